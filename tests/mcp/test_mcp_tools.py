"""``rolling-graph mcp`` driven by the MCP SDK's own client over stdio, against a real worker
and a real warm store (SQLite and PostgreSQL): list the tools, call each, and the errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.tokens import estimate_tokens

from .conftest import CURRENT, EARLIER, Memory, status_ok, text_of

TOOLS = {"memory_search", "memory_expand", "memory_history", "memory_sessions", "memory_note"}


def test_the_server_lists_five_described_tools_with_schemas(memory: Memory) -> None:
    async def fn(s: Any) -> Any:
        return (await s.list_tools()).tools

    tools = {t.name: t for t in memory.call(fn)}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert len(t.description or "") > 40, t.name
        assert t.input_schema["type"] == "object", t.name
    search = tools["memory_search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["query"]["maxLength"] == 500
    assert set(search["properties"]["scope"]["enum"]) == {"session", "project", "all"}
    assert tools["memory_expand"].input_schema["required"] == ["node"]
    assert tools["memory_history"].input_schema["required"] == ["subject"]


def test_each_tool_answers_from_the_workers_graph_and_the_warm_store(memory: Memory) -> None:
    async def fn(s: Any) -> dict[str, Any]:
        return {
            "session": await s.call_tool("memory_search", {"query": "email", "scope": "session"}),
            "project": await s.call_tool("memory_search", {"query": "invoice export"}),
            "history": await s.call_tool("memory_history", {"subject": "bento"}),
            "sessions": await s.call_tool("memory_sessions", {}),
            "resources": await s.list_resources(),
            "block": await s.read_resource("rolling-graph://block"),
        }

    got = memory.call(fn)
    resources, block = got.pop("resources"), got.pop("block")
    assert not any(r.is_error for r in got.values()), {k: text_of(r) for k, r in got.items()}
    assert [str(r.uri) for r in resources.resources] == ["rolling-graph://block"]
    block_text = block.contents[0].text
    assert block_text.startswith("Rolling memory ") and "(why:" in block_text
    session = text_of(got["session"])
    assert "Use Bento for email" in session and "Use Resend for email" in session
    assert "invoice" not in session.lower()  # scope session: the earlier session stays out
    project = text_of(got["project"])
    first = project.splitlines()[1]
    assert "Invoice export task" in first and "earlier sessions (shop" in first, project
    history = text_of(got["history"]).splitlines()
    steps = [ln for ln in history if ln[:2] in ("1.", "2.")]
    assert "Use Resend" in steps[0] and "superseded" in steps[0], history
    assert "Use Bento" in steps[1] and "in force" in steps[1], history
    assert any("switched to Bento" in ln for ln in history), history
    sessions = text_of(got["sessions"])
    assert CURRENT in sessions and EARLIER in sessions, sessions
    assert "(this session)" in sessions and "Invoice export task" in sessions, sessions


def test_expand_is_an_activation_the_next_block_reflects(memory: Memory) -> None:
    before = memory.graph()["nodes"]["mail-worker"]
    memory.hook("UserPromptSubmit", CURRENT, prompt="let us look at the checkout page")
    turn = memory.graph()["turn"]

    async def fn(s: Any) -> Any:
        return await s.call_tool("memory_expand", {"node": "Mail worker"})

    result = memory.call(fn)
    assert not result.is_error, text_of(result)
    text = text_of(result)
    assert "Mail worker [id mail-worker" in text
    assert "uses → Use Bento for email" in text
    after = memory.graph()["nodes"]["mail-worker"]
    assert after["weight"] > before["weight"]
    assert after["last_activated"] == turn
    audit = (memory.env.home / "sessions" / CURRENT / "audit.jsonl").read_text().splitlines()
    last = json.loads(audit[-1])
    assert last["source"] == {"probe": "expand (agent asked via MCP)"}
    assert {op["path"] for op in last["applied"]} >= {"/nodes/mail-worker/weight"}
    # The worker holds the session open: its next hook renders from the new weight.
    out = memory.env.hook(
        {"hook_event_name": "SessionStart", "session_id": CURRENT, "source": "resume",
         "cwd": str(memory.project), "transcript_path": "/tmp/x.jsonl"}
    )  # fmt: skip
    block = json.loads(out.out)["hookSpecificOutput"]["additionalContext"]
    # Just activated, it is in the focus: a full line of its own (blocks show no weights).
    assert any(ln.startswith("- Mail worker [technical]") for ln in block.splitlines()), block


BAD = [
    ("memory_expand", {"node": "no-such-thing"}, "unknown node"),
    ("memory_expand", {"node": ""}, "node is empty"),
    ("memory_search", {"query": "   "}, "query is empty"),
    ("memory_search", {"query": "the and of"}, "no searchable words"),
    ("memory_search", {"query": "x" * 20_000}, "at most 500"),
    ("memory_search", {"query": "email", "session": "nope"}, "no session 'nope'"),
    ("memory_search", {"query": "email", "limit": 0}, "limit"),
    ("memory_history", {"subject": "kubernetes"}, "no decision or topic matches"),
    ("memory_sessions", {"project": "never-heard-of"}, "no sessions recorded"),
    ("memory_nonsense", {}, "memory_nonsense"),
]


def test_bad_input_is_a_clear_tool_error_and_nothing_breaks(memory: Memory) -> None:
    async def fn(s: Any) -> list[Any]:
        out = [await s.call_tool(tool, args) for tool, args, _ in BAD]
        out.append(await s.call_tool("memory_search", {"query": "bento"}))  # still serving
        return out

    results = memory.call(fn)
    for (tool, args, expected), result in zip(BAD, results, strict=False):
        assert result.is_error, (tool, args, text_of(result))
        assert expected in text_of(result), (tool, text_of(result))
    assert not results[-1].is_error and "Use Bento" in text_of(results[-1])
    assert status_ok(memory.env)["ready"] is True  # the worker survived every one


def test_answers_stay_within_their_token_budget(memory: Memory) -> None:
    from .conftest import seed

    many = [
        {"id": f"email-topic-{i}", "label": f"Email topic number {i}", "domain": "project",
         "summary": "an email related note " * 8}
        for i in range(60)
    ]  # fmt: skip
    seed(memory.env.home, "big", many, [])
    memory.hook("SessionStart", "big", source="startup")

    async def fn(s: Any) -> Any:
        return await s.call_tool(
            "memory_search", {"query": "email topic", "limit": 25, "session": "big"}
        )

    budget = 300
    memory.env.cli("worker", "stop", "--wait", "10")  # the budget is read when it starts
    result = memory.call(fn, ROLLING_GRAPH_MCP_ANSWER_TOKENS=str(budget))
    text = text_of(result)
    assert not result.is_error, text
    assert estimate_tokens(text) <= budget
    assert "more matches left out" in text


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_install_registers_and_uninstall_removes_exactly(memory: Memory, scope: str) -> None:
    home = memory.env.home.parent / "user-home"
    home.mkdir()
    claude_json = home / ".claude.json"
    claude_json.write_text(
        json.dumps({"numStartups": 3, "mcpServers": {"other": {"command": "x"}}})
    )
    import os
    import subprocess

    from tests.transport.conftest import RG

    # A project's .mcp.json names `rolling-graph` as each teammate's PATH finds it.
    path = os.pathsep.join([str(Path(RG).parent), os.environ.get("PATH", "")])
    env = memory.env.with_env(HOME=str(home), PATH=path)
    cwd = str(memory.project)

    def rg(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [RG, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
        )

    original = claude_json.read_text()
    res = rg("install", "claude-code", "--scope", scope)
    assert res.returncode == 0, res.stderr
    assert "registered the rolling-graph MCP server" in res.stdout
    where = memory.project / ".mcp.json" if scope == "project" else claude_json
    data = json.loads(where.read_text())
    servers = data["projects"][cwd]["mcpServers"] if scope == "local" else data["mcpServers"]
    assert servers["rolling-graph"]["args"] == ["mcp"]
    command = servers["rolling-graph"]["command"]
    assert command == "rolling-graph" if scope == "project" else command.endswith("/rolling-graph")
    doctor = rg("doctor", "--project", cwd, "--no-start")
    line = next(ln for ln in doctor.stdout.splitlines() if ln[6:].startswith("mcp"))
    assert line.startswith("ok") and "memory_search" in line, doctor.stdout
    assert (memory.env.home / "mcp-registrations.json").exists()  # the block's hint is on
    res = rg("uninstall", "claude-code", "--scope", scope)
    assert res.returncode == 0, res.stderr
    assert "removed the rolling-graph MCP server" in res.stdout
    assert claude_json.read_text() == original  # byte for byte
    assert not (memory.project / ".mcp.json").exists()
    assert not (memory.env.home / "mcp-registrations.json").exists()


def test_questions_run_alongside_hooks_without_losing_a_change(memory: Memory) -> None:
    import threading

    from rolling_graph.core.session import rebuild_from_audit

    from .conftest import payload

    stop = threading.Event()
    rcs: list[int] = []

    def prompts() -> None:
        i = 0
        while not stop.is_set():
            p = payload("UserPromptSubmit", CURRENT, cwd=str(memory.project), prompt=f"mail {i}")
            rcs.append(memory.env.hook(p).rc)
            i += 1

    thread = threading.Thread(target=prompts)
    thread.start()
    try:

        async def fn(s: Any) -> list[Any]:
            out = []
            for _ in range(4):
                out.append(await s.call_tool("memory_expand", {"node": "use-bento"}))
                out.append(await s.call_tool("memory_search", {"query": "mail worker"}))
            return out

        results = memory.call(fn)
    finally:
        stop.set()
        thread.join()
    assert not [text_of(r) for r in results if r.is_error]
    assert rcs and set(rcs) == {0}
    # Every change, the hooks' and the expansions', is in the audit log in the order it was
    # made: replaying the log gives exactly the graph on disk (nothing lost or torn). Probes
    # still running would change both: wait for them.
    memory.env.wait_status(
        lambda st: not any((st.get("probes") or {}).get(k) for k in ("queued", "in_flight"))
    )
    lines = (memory.env.home / "sessions" / CURRENT / "audit.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    patches = [r for r in records if r.get("type") == "patch"]
    expands = [r for r in patches if (r.get("source") or {}).get("probe", "").startswith("expand")]
    assert len(expands) >= 1
    rebuilt = rebuild_from_audit(CURRENT, records).to_json_dict()
    assert rebuilt["nodes"] == memory.graph()["nodes"]
