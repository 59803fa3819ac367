"""When a *paid* probe runs: the cost ceiling of issue 19.

The gate (:mod:`rolling_graph.gate`) says when a probe is due; with the offline probe that is
free and stays as it is. A paid backend (anthropic, claude-cli, openai, a plugin's) is only
worth its price for what needs judgement in what the person *says*: tool activity reaches the
graph through the observers and the offline probe. So, per session, on top of the gate:

- a **correction** is probed at once (a superseded decision must not render as current);
- the session's **first** detected judgement trigger is probed at once (it names the task);
- **decisions, new names and domain shifts** wait, coalesced, until ``paid_gap_turns`` user
  turns passed since the last paid probe;
- a paid **dead-man** switch fires after ``paid_dead_man_turns`` quiet user turns;
- before a **compaction**, whatever is pending is probed (the graph is about to be all the
  agent has);
- **tool events never** ask for a paid probe.

Due probes the policy does not pay for run on the offline probe (see the runner's tiers). In
``always`` mode every due probe is paid (the behaviour before this module, kept for people who
want it and for the before/after bench). State is a small JSON file per session (``paid.json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

STATE_NAME = "paid"
#: prompt triggers that need an LLM's judgement; the others (tool signals, step dead-man) do not
JUDGEMENT = frozenset({"correction", "decision", "new_entity", "domain_shift"})
URGENT = frozenset({"correction"})
#: why a paid probe is due, and the judgement triggers it takes
Taken = tuple[str, list[str]]


@dataclass
class PaidState:
    turns_since: int = 0  # user turns since the last paid probe
    calls: int = 0  # paid probes requested in this session
    pending: list[str] = field(default_factory=list)  # judgement triggers not yet paid for

    @classmethod
    def from_dict(cls, data: Any) -> PaidState:
        if not isinstance(data, dict):
            return cls()
        pending = data.get("pending")
        return cls(
            turns_since=int(data.get("turns_since") or 0),
            calls=int(data.get("calls") or 0),
            pending=[str(p) for p in pending] if isinstance(pending, list) else [],
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PaidPolicy:
    mode: str = "judgement"  # judgement | always
    gap_turns: int = 8
    dead_man_turns: int = 15

    @classmethod
    def from_settings(cls, settings: Any) -> PaidPolicy:
        return cls(
            mode=getattr(settings, "paid_probes", "judgement"),
            gap_turns=int(getattr(settings, "paid_gap_turns", 8)),
            dead_man_turns=int(getattr(settings, "paid_dead_man_turns", 15)),
        )

    def on_prompt(self, state: PaidState, detected: set[str], gate_due: bool) -> Taken | None:
        """One user prompt: the reason a paid probe is due now, or None. Advances ``state``."""
        state.turns_since += 1
        if self.mode == "always":
            return self._take(state, "gate") if gate_due else None
        found = sorted(detected & JUDGEMENT)
        state.pending.extend(n for n in found if n not in state.pending)
        if detected & URGENT:
            return self._take(state, "correction")
        if found and state.calls == 0:
            return self._take(state, "first")
        if state.pending and state.turns_since >= self.gap_turns:
            return self._take(state, "gap")
        if self.dead_man_turns and state.turns_since >= self.dead_man_turns:
            return self._take(state, "dead_man")
        return None

    def on_tool(self, state: PaidState, gate_due: bool) -> Taken | None:
        """A tool event: paid only in ``always`` mode (observers and offline cover the rest)."""
        if self.mode == "always" and gate_due:
            return self._take(state, "gate")
        return None

    def on_pre_compact(self, state: PaidState) -> Taken | None:
        """Before compaction: pay for what is pending, if anything was said since."""
        if state.turns_since and (state.pending or self.mode == "always"):
            return self._take(state, "pre_compact")
        return None

    @staticmethod
    def _take(state: PaidState, reason: str) -> Taken:
        taken = (reason, list(state.pending))
        state.turns_since = 0
        state.calls += 1
        state.pending.clear()
        return taken


def load_state(store: Any, session_id: str) -> PaidState:
    return PaidState.from_dict(store.read_state(session_id, STATE_NAME, {}))


def save_state(store: Any, session_id: str, state: PaidState) -> None:
    store.write_state(session_id, STATE_NAME, state.as_dict())
