"""Fixtures for worker tests: an isolated data home and socket directory per test, helpers that
drive the real ``rolling-graph`` console script, and a teardown that kills every worker the
test started (found by the test's own socket directory in the process environment)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
RG = str(BIN / "rolling-graph")


def worker_pids(sock_dir: str) -> list[int]:
    """Live worker processes whose environment names ``sock_dir`` (i.e. started by this test)."""
    needle = f"ROLLING_GRAPH_SOCKET_DIR={sock_dir}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            if b"rolling_graph.transport" not in cmd:
                continue
            env = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if needle in env and stat.split(")")[-1].split()[0] != "Z":
            found.append(int(entry))
    return found


@dataclass
class Hook:
    rc: int
    out: str
    err: str
    elapsed: float


@dataclass
class WorkerEnv:
    home: Path
    sock_dir: str
    env: dict[str, str]
    extra_pids: list[int] = field(default_factory=list)

    def with_env(self, **kv: str | None) -> dict[str, str]:
        env = dict(self.env)
        for k, v in kv.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def hook(
        self,
        payload: dict[str, Any] | bytes | None,
        *,
        env: dict[str, str] | None = None,
        cmd: list[str] | None = None,
        **kw: Any,
    ) -> Hook:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        started = time.monotonic()
        proc = subprocess.run(
            cmd or [RG, "hook"],
            input=data if payload is not None else None,
            stdin=subprocess.DEVNULL if payload is None else None,
            capture_output=True,
            env=env or self.env,
            timeout=30,
            **kw,
        )
        return Hook(
            proc.returncode, proc.stdout.decode(), proc.stderr.decode(), time.monotonic() - started
        )

    def cli(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [RG, *args], capture_output=True, text=True, env=env or self.env, timeout=120
        )

    def start(self, env: dict[str, str] | None = None) -> dict[str, Any]:
        res = self.cli("worker", "start", env=env)
        assert res.returncode == 0, res.stderr
        return self.status()

    def status(self) -> dict[str, Any]:
        res = self.cli("worker", "status", "--json")
        return json.loads(res.stdout)

    def wait_status(self, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        st: dict[str, Any] = {}
        while time.monotonic() < deadline:
            st = self.status()
            if pred(st):
                return st
            time.sleep(0.1)
        raise AssertionError(f"status never matched; last: {st}")

    def settled(self) -> dict[str, Any]:
        """The worker's status once it has handled every event it accepted: a prompt's or a
        tool call's hook is answered before its event is handled (transport.reply_first)."""
        return self.wait_status(lambda s: s.get("ready") and s.get("behind") == 0)

    def log_text(self) -> str:
        path = self.home / "rolling-graph.log"
        return path.read_text() if path.exists() else ""

    def pids(self) -> list[int]:
        return worker_pids(self.sock_dir)


def payload(event: str, session: str, **fields: Any) -> dict[str, Any]:
    return {
        "hook_event_name": event,
        "session_id": session,
        "cwd": "/tmp",
        "transcript_path": f"/tmp/{session}.jsonl",
        **fields,
    }


def seed_graph(home: Path, session: str) -> dict[str, Any]:
    """Give ``session`` a small graph (through the real patch engine) and return its JSON."""
    from rolling_graph.core.hotstore import HotStore
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession

    sess = HotSession.open(HotStore(home), session)
    ops = [
        {"op": "add", "reason": "t", "path": "/nodes/postgres",
         "value": {"id": "postgres", "label": "PostgreSQL", "domain": "technical"}},
        {"op": "add", "reason": "t", "path": "/nodes/warm-store",
         "value": {"id": "warm-store", "label": "Warm store", "domain": "project"}},
        {"op": "add", "reason": "t", "path": "/edges/warm-store|uses|postgres",
         "value": {"source": "warm-store", "target": "postgres", "relationship": "uses"}},
    ]  # fmt: skip
    result = sess.apply(ops, PatchSource("test"))
    assert result.applied, result.error
    sess.save()
    return read_graph(home, session)


def read_graph(home: Path, session: str) -> dict[str, Any]:
    return json.loads((home / "sessions" / session / "graph.json").read_text())


@pytest.fixture
def wenv(tmp_path: Path) -> Iterator[WorkerEnv]:
    # A short socket path: sun_path holds ~104 bytes, pytest's tmp_path can be longer.
    base = tempfile.mkdtemp(prefix="rgw-", dir="/tmp")
    sock_dir = os.path.join(base, "run")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROLLING_GRAPH_")}
    env.update(
        ROLLING_GRAPH_HOME=str(home),
        ROLLING_GRAPH_SOCKET_DIR=sock_dir,
        ROLLING_GRAPH_CONFIG=str(tmp_path / "no-config.toml"),
        ROLLING_GRAPH_LOAD_PLUGINS="0",
        ROLLING_GRAPH_PROBE="offline",
        ROLLING_GRAPH_HOOK_BUDGET_MS="300",
        ROLLING_GRAPH_WORKER_IDLE_S="120",
    )
    w = WorkerEnv(home, sock_dir, env)
    try:
        yield w
    finally:
        with contextlib.suppress(Exception):
            w.cli("worker", "stop", "--wait", "5")
        for pid in set(w.pids()) | set(w.extra_pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while w.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not w.pids(), "worker processes left running"
        shutil.rmtree(base, ignore_errors=True)
