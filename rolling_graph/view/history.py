"""What created and changed each node and edge, read back from a session's audit log.

Applied patch records carry the normalized ops and one reason per op; this folds them into a
per-element list of changes (turn, op, field, reason, source), so the view can say why a node
exists and replay the graph turn by turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MAX_CHANGES = 24  # per element, the first (creation) plus the most recent ones
MAX_REASON = 240


@dataclass(frozen=True)
class Change:
    turn: int
    op: str  # add | replace
    field: str  # "" for the whole element, else the field replaced
    reason: str
    source: str  # the probe backend, an observer, or mention / expand

    def as_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "op": self.op,
            "field": self.field,
            "reason": self.reason,
            "source": self.source,
        }


@dataclass
class History:
    nodes: dict[str, list[Change]] = field(default_factory=dict)
    edges: dict[str, list[Change]] = field(default_factory=dict)
    last_turn: int = 0

    def born(self, kind: str, key: str) -> int:
        """The turn an element first appeared (0 when the log never saw it being added)."""
        changes = (self.nodes if kind == "nodes" else self.edges).get(key) or []
        adds = [c.turn for c in changes if c.op == "add" and not c.field]
        return min(adds) if adds else 0

    def trimmed(self, kind: str, key: str) -> list[Change]:
        changes = (self.nodes if kind == "nodes" else self.edges).get(key) or []
        if len(changes) <= MAX_CHANGES:
            return changes
        return [changes[0], *changes[-(MAX_CHANGES - 1) :]]


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _source_name(source: Any) -> str:
    if isinstance(source, dict):
        return str(source.get("probe") or source.get("backend") or source.get("observer") or "")
    return str(source or "")


def read_history(records: Iterable[dict[str, Any]]) -> History:
    """Fold applied patches (in log order) into per-element changes; rejected ones are skipped."""
    hist = History()
    for rec in records:
        turn = rec.get("turn")
        if isinstance(turn, int) and turn > hist.last_turn:
            hist.last_turn = turn
        if rec.get("type") != "patch" or rec.get("status") != "applied":
            continue
        ops = rec.get("applied") or []
        reasons = rec.get("reasons") or []
        source = _source_name(rec.get("source"))
        for i, op in enumerate(ops):
            if not isinstance(op, dict) or not isinstance(op.get("path"), str):
                continue
            parts = [_unescape(p) for p in op["path"][1:].split("/")]
            if len(parts) < 2 or parts[0] not in ("nodes", "edges"):
                continue
            reason = reasons[i] if i < len(reasons) and isinstance(reasons[i], str) else ""
            bucket = hist.nodes if parts[0] == "nodes" else hist.edges
            bucket.setdefault(parts[1], []).append(
                Change(
                    turn=turn if isinstance(turn, int) else 0,
                    op=str(op.get("op", "")),
                    field="/".join(parts[2:]),
                    reason=reason[:MAX_REASON],
                    source=source,
                )
            )
    return hist
