"""Paid-probe health (rolling_graph/probe/health.py): backoff doubling and capped, the notice
handed out once per episode, secrets redacted, budget stops noticed once a day."""

from __future__ import annotations

from pathlib import Path

from rolling_graph.probe.health import Health


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_backoff_doubles_and_is_capped(tmp_path: Path) -> None:
    clock = Clock()
    h = Health(tmp_path, backoff_s=10, backoff_max_s=35, clock=clock)
    assert h.retry_in() == 0
    waits = []
    for _ in range(4):
        h.failure("openai", "HTTP 500")
        waits.append(h.retry_in())
    assert waits == [10, 20, 35, 35]
    clock.now += 35
    assert h.retry_in() == 0


def test_episode_notice_once_and_recovery(tmp_path: Path) -> None:
    h = Health(tmp_path, clock=Clock())
    assert h.take_notice() is None and h.status()[0]
    assert h.failure("anthropic", "timed out") is True
    assert h.failure("anthropic", "timed out") is False  # same episode: not loud again
    notice = h.take_notice()
    assert notice is not None and "anthropic probe failed" in notice and "\n" not in notice
    assert h.take_notice() is None
    assert not h.status()[0]
    assert h.success("anthropic") is True and h.success("anthropic") is False
    assert h.status()[0] and h.retry_in() == 0
    assert h.failure("anthropic", "HTTP 503") is True  # a new episode is told again
    assert h.take_notice() is not None


def test_secrets_in_errors_never_persist(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "Qw7" * 30  # fake, shaped like an Anthropic key
    h = Health(tmp_path, clock=Clock())
    h.failure("anthropic", f"HTTP 401: invalid x-api-key {key}\nretry later")
    text = (tmp_path / "probe_health.json").read_text()
    assert key not in text and "REDACTED" in text
    assert key not in (h.take_notice() or "")


def test_budget_stop_noticed_once_a_day(tmp_path: Path) -> None:
    clock = Clock()
    h = Health(tmp_path, clock=clock)
    assert h.blocked("openai", "daily_budget", "today's budget is spent") is True
    assert h.blocked("openai", "daily_budget", "today's budget is spent") is False
    assert "budget" in (h.take_notice() or "") and h.take_notice() is None
    assert "budget reached today" in h.status()[1]
    clock.now += 86_400
    assert h.blocked("openai", "daily_budget", "today's budget is spent") is True
