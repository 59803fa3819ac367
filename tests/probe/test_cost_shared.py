"""The cost ceiling on the real shared Claude Code transcripts: with a paid backend (the real
anthropic SDK against a local Messages API stand-in that counts calls), at most 15 paid calls
per 60 user turns pooled, at most 30,000 input tokens per 60 user turns as billed (prompt-cache
reads at a tenth, writes at 2x; the stand-in reports them as the API does), and every detected
correction probed on that very prompt."""

from __future__ import annotations

import pytest

from tests.probe.cost_replay import run
from tests.probe.standins import MessagesStandIn
from tests.shared_data import manifest_rows, require_shared_data

pytest.importorskip("anthropic")


@pytest.mark.shared_data
@pytest.mark.timeout(900)
def test_paid_calls_per_60_turns_within_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = manifest_rows(require_shared_data(), ("claude-code",))
    with MessagesStandIn("ok") as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
        files = run(rows, "judgement")
    turns = sum(f.turns for f in files)
    calls = sum(f.calls for f in files)
    assert turns > 200
    assert calls == server.calls  # the audit logs and the server agree
    assert 60 * calls / turns <= 15, f"{calls} paid calls on {turns} user turns"
    assert sum(f.tokens_in for f in files) == server.tokens_in
    assert sum(f.tokens_cached for f in files) == server.tokens_cached > 0
    billed = sum(f.billed_in for f in files)
    assert 60 * billed / turns <= 30_000, f"{billed:.0f} billed input tokens on {turns} turns"
    corrections = sum(f.corrections for f in files)
    assert corrections > 10
    assert sum(f.corrections_paid for f in files) == corrections
