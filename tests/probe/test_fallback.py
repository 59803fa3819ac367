"""A failing paid backend degrades gracefully: the offline probe runs for the turn (the graph
keeps growing), paid calls back off, and the person is told once — in the log, ``doctor``,
``stats`` and one line on top of the next SessionStart block. Budgets (session cap, daily
tokens) stop paid calls the same way. Real engine, real gate, real SDKs against local HTTP
stand-ins (tests/probe/standins.py)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.config import Settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.pipeline.engine import Engine
from rolling_graph.probe.health import Health
from rolling_graph.probe.runner import get_runner
from rolling_graph.probe.usage import Ledger
from tests.probe.standins import MessagesStandIn, OpenAIStandIn, StandIn

pytest.importorskip("anthropic")
pytest.importorskip("openai")

SID = "fallback-1"
FIRST = "Let's use Postgres for the Orders service; Priya Raman reviews the schema."
CORRECTION = "Actually, use SQLite instead of Postgres for the Orders service tests."


def make_engine(
    tmp_path: Path, backend: str, server: StandIn, monkeypatch: pytest.MonkeyPatch, **kw: Any
) -> Engine:
    if backend == "anthropic":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
    settings = Settings(
        **{
            "home": tmp_path / "home",
            "probe": backend,
            "openai_base_url": f"{server.url}/v1",
            "probe_timeout": 0.5,
            "probe_retries": 0,
            **kw,
        }
    )
    return Engine(settings, store=HotStore(settings.home), replay=kw.pop("replay", True))


def prompt(eng: Engine, text: str, sid: str = SID) -> Any:
    return eng.handle(HookEvent("prompt_submit", sid, prompt=text, cwd="/repo"))


def start(eng: Engine, sid: str = SID, source: str = "resume") -> Any:
    return eng.handle(HookEvent("session_start", sid, source=source, cwd="/repo"))


def records(eng: Engine, kind: str, sid: str = SID) -> list[dict[str, Any]]:
    return [r for r in eng.store.audit(sid).records() if r.get("type") == kind]


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.INFO, logger="rolling_graph")
    yield caplog


@pytest.mark.parametrize(
    ("backend", "mode", "error"),
    [
        ("anthropic", "garbage", "no emit_patch tool call"),
        ("anthropic", "error", "HTTP 500"),
        ("openai", "garbage", "no JSON patch"),
        ("openai", "error", "HTTP 500"),
        ("openai", "slow", "timed out"),
    ],
)
def test_failing_backend_falls_back_backs_off_and_tells_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    warnings: pytest.LogCaptureFixture,
    backend: str,
    mode: str,
    error: str,
) -> None:
    server_cls = MessagesStandIn if backend == "anthropic" else OpenAIStandIn
    with server_cls(mode, delay=2.0) as srv:
        eng = make_engine(tmp_path, backend, srv, monkeypatch)
        assert start(eng, source="startup").injected is None  # healthy: no notice
        prompt(eng, FIRST)
        assert srv.calls == 1
        nodes_after_first = len(eng.sessions[SID].graph.nodes)
        assert nodes_after_first > 0  # the offline probe stood in: the graph grows
        failure = records(eng, "probe_failure")
        assert len(failure) == 1 and failure[0]["tier"] == "paid" and error in failure[0]["error"]
        stood_in = records(eng, "probe")
        assert stood_in[0]["tier"] == "free" and stood_in[0]["fallback"] == "failure"
        assert stood_in[0]["backend"] == "offline" and error in stood_in[0]["paid_error"]

        # A correction right after: paid wanted at once, but the backend is backing off.
        prompt(eng, CORRECTION)
        assert srv.calls == 1
        assert records(eng, "probe")[-1]["fallback"] == "backoff"
        assert len(eng.sessions[SID].graph.nodes) > nodes_after_first
        eng.close()

    loud = [r for r in warnings.records if r.levelno >= logging.WARNING and "failed" in r.msg]
    assert len(loud) == 1  # the log says it once per episode, not per turn

    healthy, detail = Health.from_settings(eng.settings).status()
    assert not healthy and error in detail and "offline probe used meanwhile" in detail
    from rolling_graph.cli.doctor_probe import check_probe_health

    check = check_probe_health(eng.settings)
    assert not check.ok and backend in check.detail and check.fix

    # The next SessionStart block carries the notice, on top, once.
    eng2 = Engine(eng.settings, store=HotStore(eng.settings.home), replay=True)
    block = start(eng2).injected
    assert block is not None and block.startswith(f"rolling-graph: the {backend} probe failed")
    assert block.count("\n") >= 1 and "rolling-graph doctor" in block.splitlines()[0]
    again = start(eng2).injected or ""
    assert "probe failed" not in again
    other = start(eng2, sid="another-session", source="startup").injected or ""
    assert "probe failed" not in other
    eng2.close()


def test_stats_shows_paid_calls_fallbacks_cost_and_health(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MessagesStandIn("ok") as srv:
        eng = make_engine(tmp_path, "anthropic", srv, monkeypatch, backoff_s=0.0)
        prompt(eng, FIRST)
        srv.mode = "error"
        prompt(eng, CORRECTION)
        eng.close()
    assert srv.calls == 2
    from rolling_graph.cli import cli

    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(eng.settings.home))
    res = CliRunner().invoke(cli, ["stats", "--session", SID, "--json"])
    row = json.loads(res.output)[0]
    assert row["paid_calls"] == 2 and row["fallbacks"] == 1 and row["failures"] == 1
    assert row["tokens_in"] == srv.tokens_in and row["cost_usd"] > 0  # haiku list price
    res = CliRunner().invoke(cli, ["stats"])
    assert res.exit_code == 0
    assert "anthropic:claude-haiku-4-5" in res.output and "paid probe: FAILING" in res.output
    res = CliRunner().invoke(cli, ["stats", "--days", "--json"])
    doc = json.loads(res.output)
    (day,) = doc["days"].values()
    assert day["anthropic:claude-haiku-4-5"]["calls"] == 2
    assert day["anthropic:claude-haiku-4-5"]["failed"] == 1
    assert doc["health"]["ok"] is False


def test_recovery_ends_the_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: pytest.LogCaptureFixture
) -> None:
    with OpenAIStandIn("error") as srv:
        eng = make_engine(tmp_path, "openai", srv, monkeypatch, backoff_s=0.05)
        prompt(eng, FIRST)
        srv.mode = "ok"
        time.sleep(0.1)  # the backoff has passed
        prompt(eng, CORRECTION)
        eng.close()
    assert srv.calls == 2
    assert records(eng, "probe")[-1]["tier"] == "paid"
    assert Health.from_settings(eng.settings).status()[0]
    assert any("works again" in r.getMessage() for r in warnings.records)


def test_async_runner_falls_back_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStandIn("error") as srv:
        eng = make_engine(tmp_path, "openai", srv, monkeypatch, replay=False)
        out = prompt(eng, FIRST)
        assert out.probe and get_runner(eng).wait(SID, 10)
        eng.close()
    graph = json.loads((eng.store.dir(SID) / "graph.json").read_text())
    assert graph["nodes"] and srv.calls == 1
    assert records(eng, "probe")[0]["fallback"] == "failure"


def test_session_cap_stops_paid_calls_once_noticed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAIStandIn("ok") as srv:
        eng = make_engine(tmp_path, "openai", srv, monkeypatch, paid_session_cap=1)
        prompt(eng, FIRST)
        prompt(eng, CORRECTION)
        prompt(eng, "No, I meant MySQL, not SQLite.")
        eng.close()
    assert srv.calls == 1
    probes = records(eng, "probe")
    assert [p.get("fallback") for p in probes] == [None, "session_cap", "session_cap"]
    notice = Health.from_settings(eng.settings).take_notice()
    assert notice is not None and "cap of 1 paid probe" in notice
    assert Health.from_settings(eng.settings).take_notice() is None


def test_daily_token_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStandIn("ok") as srv:
        eng = make_engine(tmp_path, "openai", srv, monkeypatch, daily_token_budget=1000)
        Ledger(eng.settings.home).record("openai", "qwen", 900, 200, 0.0)
        prompt(eng, FIRST)
        eng.close()
    assert srv.calls == 0
    assert records(eng, "probe")[0]["fallback"] == "daily_budget"
    assert "budget" in (Health.from_settings(eng.settings).take_notice() or "")
