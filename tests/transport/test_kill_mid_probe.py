"""SIGKILL the worker while a real probe is in flight (the claude-cli backend, with a fake
``claude`` on PATH that never answers): the next hook starts a new worker and the hot graph is
intact, and the new worker can probe again."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import time
from pathlib import Path

from tests.transport.conftest import WorkerEnv, payload, read_graph, seed_graph

FAKE_CLAUDE = """#!/bin/sh
echo $$ >> "{pids}"
sleep 60
"""


def test_sigkill_mid_probe_then_new_worker_and_graph_intact(
    wenv: WorkerEnv, tmp_path: Path
) -> None:
    before = seed_graph(wenv.home, "s1")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    pids_file = tmp_path / "claude.pids"
    script = fake_bin / "claude"
    script.write_text(FAKE_CLAUDE.format(pids=pids_file))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    env = wenv.with_env(
        ROLLING_GRAPH_PROBE="claude-cli",
        ROLLING_GRAPH_PROBE_TIMEOUT="120",
        PATH=f"{fake_bin}{os.pathsep}{os.environ['PATH']}",
    )
    old = wenv.start(env=env)["pid"]
    try:
        # The session's first detection probes at once (decision language, a new entity).
        res = wenv.hook(
            payload("UserPromptSubmit", "s1", prompt="Let's go with Bento for email in mailer.py"),
            env=env,
        )
        assert res.rc == 0
        st = wenv.wait_status(lambda s: (s.get("probes") or {}).get("in_flight", 0) >= 1)
        assert st["pid"] == old
        deadline = time.monotonic() + 10
        while not pids_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids_file.exists(), "the probe never started its claude child"
        graph_during = read_graph(wenv.home, "s1")
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while old in wenv.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert old not in wenv.pids()
        # The graph on disk is loadable and holds what it held before the kill; nothing from
        # the unfinished probe leaked into it.
        after = read_graph(wenv.home, "s1")
        assert sorted(after["nodes"]) == sorted(graph_during["nodes"]) == sorted(before["nodes"])
        # The next hook starts a new worker, which serves the same session.
        res = wenv.hook(payload("SessionStart", "s1", source="resume"), env=env)
        assert res.rc == 0
        st = wenv.wait_status(lambda s: s.get("running") and s.get("ready"))
        assert st["pid"] != old
        # A compaction always gets the block (a resume would skip one it already has).
        res = wenv.hook(payload("SessionStart", "s1", source="compact"), env=env)
        assert res.rc == 0 and "PostgreSQL" in res.out
        assert sorted(read_graph(wenv.home, "s1")["nodes"]) == sorted(before["nodes"])
    finally:
        for line in pids_file.read_text().split() if pids_file.exists() else []:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(line), signal.SIGKILL)
