"""Honest health: ``worker status`` and ``doctor`` say when the worker runs but its engine failed
(a bad config file) or its probe backend keeps failing, with a fix line; a fixed config file is
picked up by the running worker, without a restart."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from tests.transport.conftest import WorkerEnv, payload


def test_bad_config_is_reported_then_picked_up_when_fixed(wenv: WorkerEnv, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('budget = "lots"\n')
    env = wenv.with_env(ROLLING_GRAPH_CONFIG=str(config))
    wenv.cli("worker", "start", env=env)
    st = json.loads(wenv.cli("worker", "status", "--json", env=env).stdout)
    assert st["engine_error"] and "budget" in st["engine_error"]
    pid = st["pid"]
    text = wenv.cli("worker", "status", env=env).stdout
    assert "PROBLEM   the worker runs but its engine failed to load" in text, text
    assert f"fix the setting in {config}" in text
    doc = wenv.cli("doctor", "--no-start", env=env)
    assert doc.returncode != 0
    assert "engine failed to load" in doc.stdout and "fix: fix the setting in" in doc.stdout
    hook = wenv.hook(payload("UserPromptSubmit", "h1", prompt="use Redis"), env=env)
    assert hook.rc == 0 and hook.out == ""

    config.write_text("budget = 700\n")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = json.loads(wenv.cli("worker", "status", "--json", env=env).stdout)
        if st.get("ready") and not st.get("engine_error") and st.get("probes") is not None:
            break
        wenv.hook(payload("UserPromptSubmit", "h1", prompt="use Redis"), env=env)
        time.sleep(0.5)
    assert not st.get("engine_error"), st
    assert st["pid"] == pid  # the same worker: no restart
    assert len(wenv.pids()) == 1
    assert "PROBLEM" not in wenv.cli("worker", "status", env=env).stdout
    wenv.hook(payload("UserPromptSubmit", "h1", prompt="Let's go with Redis."), env=env)
    wenv.settled()
    assert (wenv.home / "sessions" / "h1" / "audit.jsonl").exists()


FAILING_CLAUDE = "#!/bin/sh\necho 'error: not logged in' >&2\nexit 1\n"


def test_failing_probe_backend_is_reported(wenv: WorkerEnv, tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    claude = fake_bin / "claude"
    claude.write_text(FAILING_CLAUDE)
    claude.chmod(claude.stat().st_mode | stat.S_IEXEC)
    env = wenv.with_env(
        ROLLING_GRAPH_PROBE="claude-cli",
        ROLLING_GRAPH_PROBE_RETRIES="0",
        ROLLING_GRAPH_BACKOFF_S="0",  # every correction tries the paid backend again
        PATH=f"{fake_bin}{os.pathsep}{os.environ['PATH']}",
    )
    wenv.start(env=env)
    for i in range(6):  # corrections probe at once
        prompt = f"Actually, no: use Kafka{i} instead of RabbitMQ{i}."
        assert wenv.hook(payload("UserPromptSubmit", "p1", prompt=prompt), env=env).rc == 0
        wenv.wait_status(lambda s: not (s.get("probes") or {}).get("in_flight"), timeout=30)
    st = wenv.status()
    assert st["probe_health"]["failures_in_row"] >= 3, st["probe_health"]
    text = wenv.cli("worker", "status", env=env).stdout
    assert "PROBLEM" in text and "failed" in text and "ROLLING_GRAPH_PROBE" in text, text
    doc = wenv.cli("doctor", "--no-start", env=env)
    assert doc.returncode != 0 and "times in a row" in doc.stdout
