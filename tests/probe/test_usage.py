"""Cost accounting (rolling_graph/probe/usage.py): prices, the per-day ledger, its retention."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.config import Settings
from rolling_graph.probe.usage import KEEP_DAYS, Ledger, cost_usd, price


def test_prices_known_configured_unknown(tmp_path: Path) -> None:
    assert price("claude-haiku-4-5") == (1.0, 5.0)
    assert price("qwen2.5:7b") is None  # a local model: unknown, not "free"
    s = Settings(home=tmp_path, price_in=0.5, price_out=1.5)
    assert price("qwen2.5:7b", s) == (0.5, 1.5)
    assert cost_usd("claude-haiku-4-5", 1_000_000, 200_000) == pytest.approx(2.0)
    assert cost_usd("qwen2.5:7b", 1_000_000, 1_000_000) == 0.0


def test_ledger_sums_per_day_and_backend(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    led.record("anthropic", "claude-haiku-4-5", 3000, 200, 0.004, day="2026-11-23", cached=2500)
    led.record("anthropic", "claude-haiku-4-5", 1000, 100, 0.0015, failed=True, day="2026-11-23")
    led.record("openai", "qwen2.5:7b", 500, 50, 0.0, day="2026-11-24")
    row = led.days()["2026-11-23"]["anthropic:claude-haiku-4-5"]
    assert row == {
        "calls": 2,
        "failed": 1,
        "tokens_in": 4000,
        "tokens_cached": 2500,
        "tokens_out": 300,
        "cost_usd": pytest.approx(0.0055),
    }
    assert led.tokens_on("2026-11-23") == 4300 and led.tokens_on("2026-11-24") == 550
    assert led.tokens_on("2026-01-01") == 0


def test_ledger_keeps_the_last_days_and_survives_a_corrupt_file(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    for d in range(KEEP_DAYS + 5):
        led.record("openai", "m", 1, 1, 0.0, day=f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}")
    days = led.days()
    assert len(days) == KEEP_DAYS and "2026-01-01" not in days
    (tmp_path / "usage.json").write_text("{not json")
    assert led.days() == {}
    led.record("openai", "m", 2, 3, 0.0, day="2026-12-01")
    assert led.tokens_on("2026-12-01") == 5
