"""Prompt caching of the probe's static prefix (issue 31), through the real SDKs against the
local stand-ins (tests/probe/standins.py), which report cache reads the way the APIs do:
the Anthropic request carries ``cache_control`` on the static prefix, the prefix bytes are the
same on every call while the variable part changes, and input, cached and output tokens reach
the reply, the audit log, the ledger and ``stats``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.config import Settings
from rolling_graph.probe.anthropic_backend import AnthropicBackend
from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest
from rolling_graph.probe.openai_backend import OpenAIBackend
from rolling_graph.probe.prompt import render_probe_parts
from rolling_graph.probe.usage import cost_usd
from tests.probe.standins import MessagesStandIn, OpenAIStandIn

pytest.importorskip("anthropic")
pytest.importorskip("openai")


def two_requests() -> list[ProbeRequest]:
    """Two calls of one session: different turns, a grown graph."""
    first = ProbeRequest("s1", 3, [TurnDigest(3, "let's use Redis for the session cache")])
    nodes = [NodeView("use-redis", "Use Redis", "technical", 0.8, kind="decision", focus=True)]
    second = ProbeRequest(
        "s1", 9, [TurnDigest(9, "actually, use Valkey instead of Redis")], nodes=nodes
    )
    return [first, second]


def anthropic_settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(home=tmp_path, probe="anthropic", probe_retries=0, **kw)


def test_anthropic_marks_the_static_prefix_and_reads_it_back(tmp_path: Path) -> None:
    with MessagesStandIn("ok") as srv:
        backend = AnthropicBackend(
            anthropic_settings(tmp_path), api_key="sk-ant-standin", base_url=srv.url
        )
        replies = [backend.run(r) for r in two_requests()]
        backend.close()
    a, b = srv.bodies
    assert a["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    # the cached prefix (tools, system) is byte-identical; the variable part is not
    assert json.dumps(a["tools"]) == json.dumps(b["tools"])
    assert json.dumps(a["system"]) == json.dumps(b["system"])
    assert a["messages"] != b["messages"] and "Valkey" in b["messages"][0]["content"]
    static = render_probe_parts(two_requests()[0])[1]
    assert static and static in a["system"][-1]["text"] and "$" not in static
    assert "Valkey" not in b["system"][-1]["text"]  # nothing per call in the prefix
    first, second = replies
    prefix = srv.cache_prefix_tokens
    assert prefix >= 4096  # Haiku 4.5 caches nothing shorter: the prefix must reach it
    assert (first.tokens_cached, first.tokens_cache_write) == (0, prefix)
    assert (second.tokens_cached, second.tokens_cache_write) == (prefix, 0)
    assert first.tokens_in + second.tokens_in == srv.tokens_in  # all input, cached included
    assert second.tokens_out > 0
    assert second.audit_fields()["tokens_cached"] == prefix


def test_cache_off_sends_no_breakpoint(tmp_path: Path) -> None:
    with MessagesStandIn("ok") as srv:
        backend = AnthropicBackend(
            anthropic_settings(tmp_path, probe_cache_ttl="off"),
            api_key="sk-ant-standin",
            base_url=srv.url,
        )
        replies = [backend.run(r) for r in two_requests()]
    assert all("cache_control" not in blk for body in srv.bodies for blk in body["system"])
    assert [r.tokens_cached for r in replies] == [0, 0]


def test_openai_prefix_is_byte_stable_and_cached(tmp_path: Path) -> None:
    with OpenAIStandIn("ok") as srv:
        settings = Settings(
            home=tmp_path, probe="openai", openai_base_url=f"{srv.url}/v1", probe_retries=0
        )
        backend = OpenAIBackend(settings)
        replies = [backend.run(r) for r in two_requests()]
        backend.close()
    a, b = (body["messages"] for body in srv.bodies)
    assert a[0] == b[0] and a[0]["role"] == "system"  # static instructions first, same bytes
    assert a[1] != b[1] and a[1]["role"] == "user"
    assert render_probe_parts(two_requests()[1])[1] in a[0]["content"]
    assert replies[0].tokens_cached == 0
    assert replies[1].tokens_cached >= 1024 and replies[1].tokens_cached % 128 == 0
    assert replies[1].tokens_cached < replies[1].tokens_in


def test_cache_reads_cost_a_tenth_and_writes_twice_on_the_hour_cache() -> None:
    s = Settings(probe_cache_ttl="1h")
    whole = cost_usd("claude-haiku-4-5", 10_000, 0, s)
    assert whole == pytest.approx(0.01)  # $1 per million input tokens
    read = cost_usd("claude-haiku-4-5", 10_000, 0, s, cached=8_000)
    assert read == pytest.approx((2_000 + 800) / 1e6)
    written = cost_usd("claude-haiku-4-5", 10_000, 0, s, written=8_000)
    assert written == pytest.approx((2_000 + 16_000) / 1e6)


def test_usage_reaches_the_audit_log_ledger_and_stats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolling_graph.cli import cli
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.core.hotstore import HotStore
    from rolling_graph.pipeline.engine import Engine

    home = tmp_path / "home"
    with MessagesStandIn("ok") as srv:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
        settings = anthropic_settings(home, paid_probes="always")
        eng = Engine(settings, store=HotStore(settings.home), replay=True)
        for text in (
            "Let's use Postgres for the Orders service",
            "actually, not Postgres: use SQLite for the Orders service instead",
        ):
            eng.handle(HookEvent("prompt_submit", "s", prompt=text))
        eng.close()
    probes = [r for r in eng.store.audit("s").records() if r.get("type") == "probe"]
    assert len(probes) == srv.calls == 2
    assert probes[1]["tokens_cached"] == srv.tokens_cached > 0
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(home))
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    res = CliRunner().invoke(cli, ["stats", "--session", "s", "--json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)[0]
    assert row["tokens_cached"] == srv.tokens_cached
    assert row["tokens_in"] == srv.tokens_in and row["tokens_out"] == srv.tokens_out
    assert row["cost_usd"] > 0
    days = json.loads(CliRunner().invoke(cli, ["stats", "--days", "--json"]).output)["days"]
    (day,) = days.values()
    assert day["anthropic:claude-haiku-4-5"]["tokens_cached"] == srv.tokens_cached
    text = CliRunner().invoke(cli, ["stats", "--session", "s"]).output
    assert "cached" in text and str(srv.tokens_cached) in text
