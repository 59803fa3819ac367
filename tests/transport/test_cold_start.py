"""SessionStart against a cold worker: the client waits for it (bounded), other events do not."""

from __future__ import annotations

import json

from tests.transport.conftest import WorkerEnv, payload, seed_graph


def test_session_start_waits_for_a_cold_worker(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    assert wenv.pids() == []  # no worker: this SessionStart has to start one
    res = wenv.hook(payload("SessionStart", "s1", source="startup"))
    assert res.rc == 0
    # Not the fallback: nothing was rendered before, so only the worker can have answered.
    ctx = json.loads(res.out)["hookSpecificOutput"]
    assert ctx["hookEventName"] == "SessionStart" and "PostgreSQL" in ctx["additionalContext"]
    assert wenv.pids(), "the worker the hook started is running"


def test_session_start_wait_is_bounded(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    # A start budget too short for any worker to come up: the hook gives up, exit 0, silent.
    env = wenv.with_env(ROLLING_GRAPH_START_BUDGET_MS="1")
    res = wenv.hook(payload("SessionStart", "s1", source="startup"), env=env)
    assert (res.rc, res.out) == (0, "")
    assert res.elapsed < 2.0, res.elapsed


def test_prompt_keeps_the_short_budget_on_a_cold_worker(wenv: WorkerEnv) -> None:
    seed_graph(wenv.home, "s1")
    res = wenv.hook(payload("UserPromptSubmit", "s1", prompt="hello"))
    assert res.rc == 0
    # 300 ms budget plus interpreter start-up; a cold worker needs seconds, so no wait for it.
    assert res.elapsed < 1.3, res.elapsed
