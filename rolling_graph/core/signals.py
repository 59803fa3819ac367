"""The spec's validation signals, recorded in the audit log and summed up by ``stats``.

- **Cross-domain surfacing**: an injected hint or snapped branch (a node named in the prompt)
  whose domain is none of the focus cluster's domains: the graph linked two domains.
- **Turns to first injection after a resume or compaction**: from a ``SessionStart`` with
  source ``resume`` or ``compact`` to the first injection at or after it, in user turns.
- **Graduation outcomes** (per project, from the warm store): drafts approved, edited,
  rejected, pending, and graduated memories deleted from the flat memory file within 30 days
  of their review.

Standard library only; the render plugin writes the records, ``stats`` reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

SURFACING_SECTIONS = {"hint": "hint", "mention": "snap"}
RESTARTS = ("resume", "compact")
DELETION_WINDOW = timedelta(days=30)


def inject_record(rendered: Any, graph: Any, event: str) -> dict[str, Any]:
    """The audit record of one injection: what was surfaced outside the focus, and how."""
    focus_domains = sorted({graph.nodes[f].domain for f in rendered.focus if f in graph.nodes})
    surfaced = []
    seen: set[str] = set()
    for item in rendered.items:
        how = SURFACING_SECTIONS.get(item.section)
        for nid in item.node_ids if how else ():
            if nid in seen or nid not in graph.nodes or nid in rendered.focus:
                continue
            seen.add(nid)
            surfaced.append({"id": nid, "domain": graph.nodes[nid].domain, "how": how})
    cross = sum(1 for s in surfaced if focus_domains and s["domain"] not in focus_domains)
    return {
        "type": "inject",
        "event": event,
        "turn": graph.turn,
        "tokens": rendered.tokens,
        "focus_domains": focus_domains,
        "surfaced": surfaced,
        "cross_domain": cross,
    }


@dataclass
class SessionSignals:
    injections: int = 0
    cross_domain: int = 0  # surfacings that linked two domains
    restarts: int = 0  # SessionStart(resume | compact)
    # Per restart: user turns until the first injection; None when none followed (yet).
    turns_to_inject: list[int | None] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "injections": self.injections,
            "cross_domain": self.cross_domain,
            "restarts": self.restarts,
            "turns_to_inject": self.turns_to_inject,
        }


def session_signals(records: Iterable[dict[str, Any]]) -> SessionSignals:
    out = SessionSignals()
    waiting: list[tuple[int, int]] = []  # (index in turns_to_inject, turn of the restart)
    for rec in records:
        kind = rec.get("type")
        turn = rec["turn"] if isinstance(rec.get("turn"), int) else 0
        if kind == "session_start" and rec.get("source") in RESTARTS:
            out.restarts += 1
            out.turns_to_inject.append(None)
            waiting.append((len(out.turns_to_inject) - 1, turn))
        elif kind == "inject":
            out.injections += 1
            out.cross_domain += int(rec.get("cross_domain") or 0)
            for i, start in waiting:
                out.turns_to_inject[i] = max(0, turn - start)
            waiting = []
    return out


@dataclass
class GraduationOutcomes:
    pending: int = 0
    approved: int = 0
    edited: int = 0
    rejected: int = 0
    deleted_30d: int = 0  # graduated, then gone from the flat memory file within 30 days

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def graduation_outcomes(
    drafts: Iterable[Any], flat_memory: Path | None, now: datetime
) -> GraduationOutcomes:
    """Count draft outcomes; a graduated text missing from the flat memory file counts as
    deleted within 30 days when it was reviewed less than 30 days ago (so the deletion fell
    inside the window; older deletions cannot be dated and are not counted)."""
    out = GraduationOutcomes()
    try:
        flat = flat_memory.read_text(encoding="utf-8") if flat_memory else ""
    except OSError:
        flat = ""
    for d in drafts:
        status = getattr(d, "status", "")
        if status in ("pending", "approved", "edited", "rejected"):
            setattr(out, status, getattr(out, status) + 1)
        text = (getattr(d, "final_text", None) or "").strip()
        reviewed = getattr(d, "reviewed_at", None)
        if (
            status in ("approved", "edited")
            and text
            and reviewed is not None
            and now - reviewed <= DELETION_WINDOW
            and text not in flat
        ):
            out.deleted_30d += 1
    return out
