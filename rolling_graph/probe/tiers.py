"""Two tiers of probe: the configured (paid) backend within its budgets and health, and the
offline probe that stands in for it.

The runner asks for a ``paid`` or a ``free`` probe (see :mod:`rolling_graph.gate.paid`). A
paid probe runs on the configured backend unless

- it is backing off after a failure (:class:`~rolling_graph.probe.health.Health`),
- the session reached ``paid_session_cap`` paid calls, or
- today's tokens reached ``daily_token_budget`` (:class:`~rolling_graph.probe.usage.Ledger`);

then, and when the paid call fails, the offline probe runs for the same turns, so the graph
keeps growing. When the configured backend is the offline probe, there is one tier only.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from rolling_graph.probe.base import ProbeBackend, ProbeReply, is_paid
from rolling_graph.probe.health import Health
from rolling_graph.probe.usage import Ledger, cost_usd

log = logging.getLogger("rolling_graph")


class Tiers:
    """The backends of one engine, with the budget and health checks around the paid one."""

    def __init__(
        self,
        settings: Any,
        make_primary: Callable[[], ProbeBackend],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self._make_primary = make_primary
        self._primary: ProbeBackend | None = None
        self._offline: ProbeBackend | None = None
        self.health = Health.from_settings(settings, clock=clock)
        self.ledger = Ledger(settings.home)

    @property
    def primary(self) -> ProbeBackend:
        if self._primary is None:
            self._primary = self._make_primary()
        return self._primary

    @property
    def paid(self) -> bool:
        """Whether the configured backend is a paid one (else there is one free tier)."""
        return is_paid(self.primary)

    @property
    def offline(self) -> ProbeBackend:
        if not self.paid:
            return self.primary
        if self._offline is None:
            from rolling_graph.probe.select import make_backend

            self._offline = make_backend(self.settings, name="offline")
        return self._offline

    # -- budgets
    def stop_reason(self, session_calls: int) -> tuple[str, str] | None:
        """Why a paid call may not run now: (reason, one line for the person), or None."""
        wait = self.health.retry_in()
        if wait > 0:
            return "backoff", f"backing off after a failure ({wait:.0f}s left)"
        cap = int(getattr(self.settings, "paid_session_cap", 0) or 0)
        if cap and session_calls >= cap:
            return "session_cap", f"this session reached its cap of {cap} paid probe calls"
        budget = int(getattr(self.settings, "daily_token_budget", 0) or 0)
        if budget and (used := self.ledger.tokens_on()) >= budget:
            return "daily_budget", (
                f"today's probe token budget is spent ({used:,} of {budget:,} tokens)"
            )
        return None

    def note_stop(self, reason: str, detail: str) -> None:
        if reason == "backoff":
            return  # the failure that started it was already reported
        if self.health.blocked(self.primary.name, reason, detail):
            log.warning("paid probes paused: %s; using the offline probe", detail)

    # -- accounting after a paid call (success or failure)
    def cost_fields(self, reply: ProbeReply | None) -> dict[str, Any]:
        """The audit fields of a paid call: tier and estimated cost (USD; 0 when unknown)."""
        if reply is None:
            return {"tier": "paid", "cost_usd": 0.0}
        cost = cost_usd(
            reply.model,
            reply.tokens_in,
            reply.tokens_out,
            self.settings,
            cached=reply.tokens_cached,
            written=reply.tokens_cache_write,
        )
        return {"tier": "paid", "cost_usd": cost}

    def account(
        self, reply: ProbeReply | None, ok: bool, error: str | None, cost: float = 0.0
    ) -> None:
        """Record tokens and cost in the day's ledger and the outcome in the health file."""
        backend = self.primary.name
        try:
            self.ledger.record(
                backend,
                reply.model if reply is not None else getattr(self.primary, "model", None),
                reply.tokens_in if reply is not None else 0,
                reply.tokens_out if reply is not None else 0,
                cost,
                failed=not ok,
                cached=reply.tokens_cached if reply is not None else 0,
            )
        except Exception:  # noqa: BLE001 - accounting must never lose the probe's result
            log.exception("could not write the usage ledger")
        if ok:
            if self.health.success(backend):
                log.warning("the %s probe works again; paid probes resumed", backend)
        elif self.health.failure(backend, error or "failed"):
            log.warning(
                "the %s probe failed (%s); falling back to the offline probe, with backoff",
                backend,
                error,
            )
        else:
            log.info("the %s probe failed again (%s)", backend, error)

    def close(self) -> None:
        for b in (self._primary, self._offline):
            if b is not None:
                b.close()
