"""Per-session gate state, persisted as ``gate.json`` in the session directory.

Kept small and JSON-plain so that it survives worker restarts (the worker may exit when idle
and the next hook starts a fresh one) and can be inspected by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

STATE_NAME = "gate"
WINDOW = 5  # recent confident domains remembered for the domain-shift trigger
MAX_SEEN = 4000  # entity norms remembered per session (oldest dropped first)


@dataclass
class GateState:
    """Counters and memories of one session's gate.

    ``turns_since_probe`` / ``steps_since_probe`` count user turns / post-tool steps since the
    last probe request; they reset whenever the gate fires (a fired trigger *is* a probe
    request, see :mod:`rolling_graph.gate`).
    """

    turn: int = 0
    step: int = 0
    turns_since_probe: int = 0
    steps_since_probe: int = 0
    last_probe_turn: int = 0
    last_probe_step: int = 0
    probes: int = 0
    tool_probes: int = 0
    domain_window: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    pending_tool: list[str] = field(default_factory=list)  # tool signals not yet probed
    pending_prompt: list[str] = field(
        default_factory=list
    )  # detected prompt triggers not yet probed

    def __post_init__(self) -> None:
        self._seen_set = set(self.seen)

    # -- memories
    def knows(self, norm: str) -> bool:
        return norm in self._seen_set

    def remember(self, norm: str) -> None:
        if norm and norm not in self._seen_set:
            self._seen_set.add(norm)
            self.seen.append(norm)
            if len(self.seen) > MAX_SEEN:
                drop = self.seen[: len(self.seen) - MAX_SEEN]
                del self.seen[: len(drop)]
                self._seen_set.difference_update(drop)

    def push_domain(self, domain: str) -> None:
        self.domain_window.append(domain)
        del self.domain_window[:-WINDOW]

    def probed(self) -> None:
        """A probe was requested now: reset the dead-man counters."""
        self.turns_since_probe = 0
        self.steps_since_probe = 0
        self.last_probe_turn = self.turn
        self.last_probe_step = self.step
        self.pending_tool.clear()
        self.pending_prompt.clear()
        self.probes += 1

    # -- persistence
    def to_dict(self) -> dict[str, Any]:
        # What asdict gives (numbers, and copies of the lists of strings) without its deep
        # copy of every string: saved on every event.
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, list) else value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> GateState:
        """Lenient: unknown keys are ignored and wrong types fall back to defaults."""
        if not isinstance(data, dict):
            return cls()
        default = cls()
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            want = type(getattr(default, f.name))
            if isinstance(value, want) and not isinstance(value, bool):
                kwargs[f.name] = (
                    [str(v) for v in value if isinstance(v, str)] if want is list else value
                )
        return cls(**kwargs)


def load_state(store: Any, session_id: str) -> GateState:
    # from_dict copies what it keeps: the store's own value is only read
    return GateState.from_dict(store.peek_state(session_id, STATE_NAME, {}))


def save_state(store: Any, session_id: str, state: GateState) -> None:
    store.write_state(session_id, STATE_NAME, state.to_dict())
