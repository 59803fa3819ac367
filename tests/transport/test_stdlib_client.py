"""The installed hook command: this environment's Python with ``-I -S`` running the single-file
standard-library client by path (transport/stdlib_client.py). Same contract as ``rolling-graph
hook``: the round trip, the cold worker started (and waited for on SessionStart), the budget,
exit 0 whatever arrives, and on the hot path nothing but builtin modules."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess

import pytest

from rolling_graph.harness.install import claude_code as inst
from rolling_graph.transport import protocol, stdlib_client
from tests.transport.conftest import WorkerEnv, payload, read_graph, seed_graph

CMD = shlex.split(inst.hook_command())
#: what the hot path may import beyond ``-c pass``: the client itself and two C modules, and
#: select only where stdin is not written yet; never os (not loaded under -S), json (re),
#: site, or the package
HOT_OK = {"stdlib_client", "_json", "_socket", "select"}


def _imported(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def _floor_imports(env: dict[str, str]) -> set[str]:
    proc = subprocess.run(
        [CMD[0], "-I", "-S", "-X", "importtime", "-c", "pass"],
        capture_output=True, env=env, timeout=30,
    )  # fmt: skip
    return _imported(proc.stderr.decode())


def test_installed_command_is_the_floor_client() -> None:
    assert CMD[1:3] == ["-I", "-S"] and CMD[3].endswith("rolling_graph/transport/stdlib_hook.py")
    assert inst.is_ours({"command": inst.hook_command() + " --harness codex"})
    assert inst.is_ours({"command": "/x/bin/rolling-graph hook"})  # older installs still ours
    assert not inst.is_ours({"command": "python -I -S /x/transport/other_hook.py"})


def test_round_trip_through_a_warm_worker(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    wenv.start()
    res = wenv.hook(payload("SessionStart", "s1", source="compact"), cmd=CMD)
    assert (res.rc, res.err) == (0, "")
    ctx = json.loads(res.out)["hookSpecificOutput"]
    assert ctx["hookEventName"] == "SessionStart" and "PostgreSQL" in ctx["additionalContext"]
    turn = read_graph(wenv.home, "s1")["turn"]
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="keep PostgreSQL"), cmd=CMD)
    assert (res.rc, res.err) == (0, "")
    assert read_graph(wenv.home, "s1")["turn"] == turn + 1
    assert "s1" in wenv.status()["session_ids"]


def test_hot_path_imports_builtins_only(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    wenv.start()
    data = json.dumps(payload("UserPromptSubmit", "s1", prompt="keep PostgreSQL")).encode()
    proc = subprocess.run(
        [CMD[0], "-I", "-S", "-X", "importtime", *CMD[3:]],
        input=data, capture_output=True, env=wenv.env, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 0
    extra = _imported(proc.stderr.decode()) - _floor_imports(wenv.env)
    assert extra <= HOT_OK, sorted(extra - HOT_OK)
    wenv.settled()
    assert read_graph(wenv.home, "s1")["turn"] >= 1  # it did reach the worker


def test_cold_session_start_starts_and_waits_for_the_worker(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    assert wenv.pids() == []
    res = wenv.hook(payload("SessionStart", "s1", source="startup"), cmd=CMD)
    assert res.rc == 0
    ctx = json.loads(res.out)["hookSpecificOutput"]  # nothing rendered before: the worker's
    assert "PostgreSQL" in ctx["additionalContext"]
    assert wenv.pids(), "the worker the hook started is running"


def test_cold_prompt_keeps_the_budget_and_starts_the_worker(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="hello"), cmd=CMD)
    assert res.rc == 0
    assert res.elapsed < 1.3, res.elapsed  # 300 ms budget + start-up; no wait for the worker
    wenv.wait_status(lambda st: st.get("ready"))


def test_session_start_wait_is_bounded(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    env = wenv.with_env(ROLLING_GRAPH_START_BUDGET_MS="1")
    res = wenv.hook(payload("SessionStart", "s1", source="startup"), env=env, cmd=CMD)
    assert (res.rc, res.out) == (0, "")
    assert res.elapsed < 2.0, res.elapsed


def test_stopped_worker_degrades_within_the_budget(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    pid = wenv.start()["pid"]
    os.kill(pid, signal.SIGSTOP)  # connected, never answers
    try:
        res = wenv.hook(payload("PostToolUse", "s1", tool_name="Read"), cmd=CMD)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert (res.rc, res.out) == (0, "")
    assert res.elapsed < 1.5, res.elapsed
    assert "worker did not answer" in wenv.log_text()


@pytest.mark.parametrize(
    "data", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": "UserPromptSubmit"}', None]
)
def test_bad_input_exits_zero(wenv: WorkerEnv, data: bytes | None) -> None:
    res = wenv.hook(data, cmd=CMD)
    assert (res.rc, res.out) == (0, ""), data


def test_probe_child_guard_and_in_process_mode(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    env = wenv.with_env(ROLLING_GRAPH_PROBE_CHILD="1")
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="hi"), env=env, cmd=CMD)
    assert (res.rc, res.out) == (0, "") and wenv.pids() == []
    env = wenv.with_env(ROLLING_GRAPH_WORKER="0")
    res = wenv.hook(payload("SessionStart", "s1", source="startup"), env=env, cmd=CMD)
    assert "PostgreSQL" in json.loads(res.out)["hookSpecificOutput"]["additionalContext"]
    assert wenv.pids() == []


def test_ping_is_a_round_trip(wenv: WorkerEnv) -> None:
    ping = [*CMD, "--ping"]
    assert subprocess.run(ping, env=wenv.env, timeout=30).returncode == 1  # no worker
    wenv.start()
    assert subprocess.run(ping, env=wenv.env, timeout=30).returncode == 0


@pytest.mark.parametrize(
    "env",
    [
        {"ROLLING_GRAPH_HOME": "/tmp/rg-a", "ROLLING_GRAPH_SOCKET_DIR": "/tmp/rg-a/run"},
        {"ROLLING_GRAPH_HOME": "/tmp/rg-b", "XDG_RUNTIME_DIR": "/run/user/7"},
        {"XDG_DATA_HOME": "/tmp/xdg", "HOME": "/tmp/h"},
        {"HOME": "/tmp/" + "deep/" * 20},
    ],
)
def test_socket_rules_match_the_protocol(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "ROLLING_GRAPH_HOME",
        "ROLLING_GRAPH_SOCKET_DIR",
        "XDG_RUNTIME_DIR",
        "XDG_DATA_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    files = protocol.worker_files()
    assert stdlib_client.worker_socket() == (files["dir"], files["socket"])
    assert stdlib_client.version() == protocol.__version__


def test_doctor_shows_the_ratio_to_the_floor(
    wenv: WorkerEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolling_graph.cli.doctor_speed import check_hook_speed

    for k, v in wenv.env.items():
        monkeypatch.setenv(k, v)
    idle = check_hook_speed(runs=2)
    assert idle.ok and "not timed" in idle.detail
    wenv.start()
    check = check_hook_speed(runs=3)
    assert check.ok, check.detail
    ratio = float(check.detail.split(" = ", 1)[1].split("x", 1)[0])
    assert ratio > 0 and "`python -I -S -c pass`" in check.detail
