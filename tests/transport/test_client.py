"""The thin client on its own: stdlib-only imports, exit 0 whatever happens, the round trip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.transport.conftest import RG, WorkerEnv, payload, read_graph, seed_graph

HEAVY = ("pydantic", "spacy", "anthropic", "click", "psycopg", "networkx", "pluggy", "jsonpatch",
         "filelock", "rich", "rolling_graph.config", "rolling_graph.pipeline.engine")  # fmt: skip


def _imported(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def _heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


def test_round_trip_output_and_status(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    first = wenv.hook(payload("SessionStart", "s1", source="resume"))
    assert first.rc == 0  # cold: may or may not answer in time, never fails
    st = wenv.start()
    assert st["running"] and st["ready"] and st["pid"] in wenv.pids()
    res = wenv.hook(payload("SessionStart", "s1", source="compact"))
    assert res.rc == 0
    out = json.loads(res.out)
    ctx = out["hookSpecificOutput"]
    assert ctx["hookEventName"] == "SessionStart" and "PostgreSQL" in ctx["additionalContext"]
    turn = read_graph(wenv.home, "s1")["turn"]
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="keep PostgreSQL for the warm store"))
    assert res.rc == 0 and res.err == ""
    assert read_graph(wenv.home, "s1")["turn"] == turn + 1
    st = wenv.status()
    assert st["sessions"] >= 1 and "s1" in st["session_ids"]
    assert st["rss_bytes"] > 0 and st["version"] and st["uptime_s"] >= 0
    text = wenv.cli("worker", "status").stdout
    for word in ("pid", "uptime", "sessions", "probes", "memory"):
        assert word in text


def test_hot_path_imports_stdlib_only(wenv: WorkerEnv) -> None:
    wenv.start()
    data = json.dumps(payload("UserPromptSubmit", "s1", prompt="hello there")).encode()
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", RG, "hook"],
        input=data, capture_output=True, env=wenv.env, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 0
    names = _imported(proc.stderr.decode())
    assert "rolling_graph.transport.client" in names
    assert _heavy(names) == []


def test_cold_path_imports_stdlib_only(wenv: WorkerEnv) -> None:
    # No worker: the client starts one (subprocess) and degrades; still nothing heavy here.
    data = json.dumps(payload("UserPromptSubmit", "s1", prompt="hello there")).encode()
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", RG, "hook"],
        input=data, capture_output=True, env=wenv.env, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 0
    assert _heavy(_imported(proc.stderr.decode())) == []


def test_probe_child_guard_exits_at_once(wenv: WorkerEnv) -> None:
    env = wenv.with_env(ROLLING_GRAPH_PROBE_CHILD="1")
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="hi"), env=env)
    assert (res.rc, res.out) == (0, "")
    assert wenv.pids() == []  # no worker started for the probe's own session


def test_bad_input_exits_zero(wenv: WorkerEnv) -> None:
    for data in (b"", b"not json", b"[1, 2]", b'{"hook_event_name": "UserPromptSubmit"}', None):
        res = wenv.hook(data)
        assert (res.rc, res.out) == (0, ""), data


def test_in_process_mode(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    env = wenv.with_env(ROLLING_GRAPH_WORKER="0")
    res = wenv.hook(payload("SessionStart", "s1", source="startup"), env=env)
    assert res.rc == 0
    assert "PostgreSQL" in json.loads(res.out)["hookSpecificOutput"]["additionalContext"]
    assert wenv.pids() == []


def test_idle_worker_exits(wenv: WorkerEnv) -> None:
    # The pid is read from the process table right after the start, not through a second CLI
    # call: under load that call could take longer than the idle limit (the worker was gone
    # and `worker status` had no pid to report).
    import time

    env = wenv.with_env(ROLLING_GRAPH_WORKER_IDLE_S="3")
    res = wenv.cli("worker", "start", env=env)
    assert res.returncode == 0, res.stderr
    pids = wenv.pids()
    assert len(pids) == 1, pids
    deadline = time.monotonic() + 30
    while pids[0] in wenv.pids() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids[0] not in wenv.pids()
    assert "idle for" in wenv.log_text()


def test_a_worker_started_moments_ago_is_waited_for_only_while_it_lives(tmp_path: Path) -> None:
    """The spawn back-off keeps hooks from starting a second worker while one comes up; a
    worker that died at once (killed, crashed) is replaced by the next hook, not a second
    later."""
    from rolling_graph.transport.client import SPAWN_BACKOFF_S, coming_up

    stamp = tmp_path / "worker.spawn"
    now = time.time()
    assert not coming_up(str(stamp), now)  # never started
    stamp.write_text("")
    assert coming_up(str(stamp), now)  # being started: no pid yet
    stamp.write_text(str(os.getpid()))
    assert coming_up(str(stamp), now)  # alive
    assert not coming_up(str(stamp), now + SPAWN_BACKOFF_S + 1)  # long enough ago
    gone = subprocess.Popen(["true"])
    gone.wait()
    stamp.write_text(str(gone.pid))
    assert not coming_up(str(stamp), now)  # dead at once
    killed = subprocess.Popen(["sleep", "30"])
    killed.kill()
    time.sleep(0.2)  # not reaped yet: a zombie, as a killed worker is until init reaps it
    stamp.write_text(str(killed.pid))
    assert not coming_up(str(stamp), now)
    killed.wait()
