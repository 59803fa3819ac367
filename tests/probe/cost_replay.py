"""Paid probe calls per replayed transcript, read from the audit logs: shared by
``bench/probe_cost.py`` and ``tests/probe/test_cost_shared.py``.

The caller points the ``anthropic`` backend at a local Messages API stand-in
(``ANTHROPIC_BASE_URL``, tests/probe/standins.py); every file is replayed through the whole
pipeline with ``paid_probes`` set to ``mode`` and no session cap or daily budget.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rolling_graph.config import load_settings
from rolling_graph.eval.replay import NotASessionError, Replayer
from rolling_graph.probe.usage import billed_input


@dataclass
class FileCost:
    name: str
    turns: int = 0
    calls: int = 0
    tokens_in: int = 0  # every input token, cached or not
    tokens_cached: int = 0  # of which prompt-cache reads (billed at a tenth)
    tokens_cache_write: int = 0  # of which prompt-cache writes (billed at 2x: the 1-hour cache)
    tokens_out: int = 0
    corrections: int = 0
    corrections_paid: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def per60(self) -> float:
        return 60 * self.calls / self.turns if self.turns else 0.0

    def per60_tokens(self, n: int) -> float:
        return 60 * n / self.turns if self.turns else 0.0

    @property
    def billed_in(self) -> float:
        """Input tokens as billed (claude-haiku-4-5, the default 1-hour cache): a prompt-cache
        read counts a tenth, a write twice."""
        return billed_input(
            "claude-haiku-4-5",
            self.tokens_in,
            self.tokens_cached,
            self.tokens_cache_write,
            SimpleNamespace(probe_cache_ttl="1h"),
        )


def audit_costs(records: list[dict[str, Any]], fc: FileCost) -> None:
    paid_turns: set[int] = set()
    for r in records:
        kind = r.get("type")
        if kind in ("probe", "probe_failure") and r.get("tier") == "paid":
            fc.calls += 1
            fc.tokens_in += int(r.get("tokens_in") or 0)
            fc.tokens_cached += int(r.get("tokens_cached") or 0)
            fc.tokens_cache_write += int(r.get("tokens_cache_write") or 0)
            fc.tokens_out += int(r.get("tokens_out") or 0)
        elif kind == "probe_trigger" and r.get("tier") == "paid":
            paid_turns.add(int(r.get("turn", -1)))
            reason = str(r.get("paid_reason") or "?")
            fc.reasons[reason] = fc.reasons.get(reason, 0) + 1
    for r in records:
        is_prompt = r.get("type") == "gate" and r.get("kind") == "prompt"
        if is_prompt and any(t.get("name") == "correction" for t in r.get("triggers", [])):
            fc.corrections += 1
            fc.corrections_paid += int(r.get("turn", -2)) in paid_turns


def run(rows: list[Any], mode: str) -> list[FileCost]:
    """Replay ``rows`` (MANIFEST rows) with ``paid_probes = mode``; one FileCost per file."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            home=Path(tmp) / "store",
            probe="anthropic",
            paid_probes=mode,
            paid_session_cap=0,
            daily_token_budget=0,
            probe_retries=0,
        )
        out: list[FileCost] = []
        with Replayer(Path(tmp), settings=settings, write_outputs=False) as rp:
            for row in rows:
                try:
                    summ = rp.replay_file(row.path)
                except NotASessionError:  # a subagent's file: no turn of its own
                    continue
                fc = FileCost(row.name, turns=summ.user_turns)
                audit_costs(list(rp.engine.store.audit(summ.session_id).records()), fc)
                out.append(fc)
    return out
