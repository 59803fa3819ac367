"""Fixtures for the MCP server: a real worker (``wenv``), a real warm store (SQLite, and
PostgreSQL through the warm suite's fixtures), sessions fed through the real hooks, and the
SDK's own stdio client talking to ``rolling-graph mcp``."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import mcp_errlog
from tests.transport.conftest import RG, WorkerEnv, payload, read_graph, wenv  # noqa: F401
from tests.warm.conftest import pg_dsn, store_spec, warm_url  # noqa: F401 - fixtures

CURRENT = "sess-now"
EARLIER = "sess-before"


def seed(home: Path, session: str, nodes: list[dict], edges: list[dict]) -> None:
    """Give ``session`` a graph through the real patch engine (as a probe would)."""
    from rolling_graph.core.hotstore import HotStore
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession

    sess = HotSession.open(HotStore(home), session)
    ops = [
        {"op": "add", "reason": f"seeded {n['id']}", "path": f"/nodes/{n['id']}", "value": n}
        for n in nodes
    ]
    ops += [{"op": "add", "reason": e.pop("reason", "seeded"),
             "path": f"/edges/{e['source']}|{e['relationship']}|{e['target']}", "value": e}
            for e in edges]  # fmt: skip
    result = sess.apply(ops, PatchSource("test"))
    assert result.applied, result.error
    sess.save()


@dataclass
class Memory:
    """A data home with an earlier session (merged into the warm store) and a current one."""

    env: WorkerEnv
    project: Path

    def hook(self, event: str, session: str, **fields: Any) -> None:
        res = self.env.hook(payload(event, session, cwd=str(self.project), **fields))
        assert res.rc == 0, res.err

    def graph(self, session: str = CURRENT) -> dict[str, Any]:
        return read_graph(self.env.home, session)

    def call(self, fn: Callable[[Any], Awaitable[Any]], **env: str) -> Any:
        """Run ``fn(session)`` against a fresh ``rolling-graph mcp`` started in the project."""
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=RG, args=["mcp"], env={**self.env.env, **env}, cwd=str(self.project)
        )

        async def main() -> Any:
            with anyio.fail_after(120):
                async with (
                    stdio_client(params, errlog=mcp_errlog()) as (r, w),
                    ClientSession(r, w) as s,
                ):
                    await s.initialize()
                    return await fn(s)

        return anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.fixture
def memory(wenv: WorkerEnv, warm_url: str, tmp_path: Path) -> Memory:  # noqa: F811
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)  # the project scope is the repository's name
    wenv.env["ROLLING_GRAPH_WARM"] = warm_url
    # An empty repository has no remote or commit (its key would be its path): named here.
    wenv.env["ROLLING_GRAPH_PROJECT"] = "shop"
    m = Memory(wenv, project)
    seed(
        wenv.home,
        EARLIER,
        [
            {"id": "use-resend", "label": "Use Resend for email", "domain": "project",
             "kind": "decision", "summary": "first choice for transactional email"},
            {"id": "invoice-export", "label": "Invoice export task", "domain": "project",
             "kind": "task", "summary": "CSV export of invoices for accounting", "weight": 0.1},
            # Heavier and earlier by id: the next session's start pulls these, not the task,
            # which then lives in the warm store only.
            *({"id": f"aa-note-{i}", "label": f"Note {i}", "domain": "project", "weight": 0.9}
              for i in range(32)),
        ],
        [],
    )  # fmt: skip
    m.hook("SessionStart", EARLIER, source="startup")
    m.hook("SessionEnd", EARLIER, reason="other")  # the final merge into the warm store
    wait_merged(warm_url, wenv.home, EARLIER)
    seed(
        wenv.home,
        CURRENT,
        [
            {"id": "use-resend", "label": "Use Resend for email", "domain": "project",
             "kind": "decision", "summary": "first choice for transactional email"},
            {"id": "use-bento", "label": "Use Bento for email", "domain": "project",
             "kind": "decision", "summary": "chosen over Resend on turn 3 (deliverability)"},
            {"id": "mail-worker", "label": "Mail worker", "domain": "technical", "weight": 0.3},
        ],
        [
            {"source": "use-bento", "relationship": "supersedes", "target": "use-resend",
             "reason": "the person switched to Bento for deliverability"},
            {"source": "mail-worker", "relationship": "uses", "target": "use-bento"},
        ],
    )  # fmt: skip
    m.hook("SessionStart", CURRENT, source="startup")
    return m


def wait_merged(url: str, home: Path, session: str, timeout: float = 60.0) -> None:
    """The worker merges after the SessionEnd hook has returned: wait for the record."""
    from rolling_graph.warm import open_store

    deadline = time.monotonic() + timeout
    with open_store(url, home) as store:
        while time.monotonic() < deadline:
            if any(r.session_id == session for r in store.reconciliations(scope="shop")):
                return
            time.sleep(0.1)
    raise AssertionError(f"session {session} never reached the warm store")


def status_ok(env: WorkerEnv) -> dict[str, Any]:
    res = env.cli("worker", "status", "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)
