"""Sessions whose final merge may not have happened.

- pending-final markers (``<home>/pending/<session>.json``) make SessionEnd's merge survive
  a killed process: written before the final flush, removed after it; the next session
  start or ``rolling-graph recover`` finishes what is left (:mod:`rolling_graph.pipeline.recovery`);
- :func:`find_unreconciled` lists the sessions that never reconciled: a marker, or a hot
  graph left idle whose final merge is not recorded (or that changed after it).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.core.hotstore import HotStore, atomic_write_json
from rolling_graph.paths import safe_session_id

PENDING_DIR = "pending"


@dataclass(frozen=True)
class Unreconciled:
    """A session that never got its final merge (see :func:`find_unreconciled`)."""

    session_id: str
    reason: str
    has_graph: bool
    transcript_path: str | None = None
    modified: datetime | None = None


class PendingMarkers:
    """The pending-final markers of one data home."""

    def __init__(self, home: Path, *, durable: bool = True) -> None:
        self.dir = Path(home) / PENDING_DIR
        self.durable = durable  # a replay's markers skip the fsyncs (see ReplayStore)

    def path(self, session_id: str) -> Path:
        return self.dir / f"{safe_session_id(session_id)}.json"

    def exists(self, session_id: str) -> bool:
        return self.path(session_id).exists()

    def write(self, session_id: str, doc: dict[str, Any]) -> Path:
        path = self.path(session_id)
        atomic_write_json(path, {"session_id": session_id, **doc}, durable=self.durable)
        return path

    def clear(self, session_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(session_id))

    def all(self) -> list[dict[str, Any]]:
        """Every readable marker, by file name."""
        if not self.dir.exists():
            return []
        out = []
        for path in sorted(self.dir.glob("*.json")):
            try:
                doc = json.loads(path.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(doc, dict) and doc.get("session_id"):
                out.append(doc)
        return out


def _final_matches(final: dict[str, Any] | None, turn: int, nodes: int, edges: int) -> bool:
    if not final:
        return False
    return (final.get("turn"), final.get("nodes"), final.get("edges")) == (turn, nodes, edges)


def find_unreconciled(
    hot: HotStore,
    markers: list[dict[str, Any]],
    state_of: Callable[[str], dict[str, Any]],
    *,
    older_than: timedelta,
    now: datetime,
) -> list[Unreconciled]:
    """Sessions that never reconciled: a pending-final marker, or a hot graph older than
    ``older_than`` whose final merge is not recorded (or that changed after it)."""
    out: dict[str, Unreconciled] = {}
    for marker in markers:
        sid = str(marker["session_id"])
        out[sid] = Unreconciled(
            sid,
            "pending final flush",
            hot.exists(sid),
            marker.get("transcript_path") or state_of(sid).get("transcript_path"),
        )
    for info in hot.sessions():
        sid = info.session_id
        if sid in out:
            continue
        state = state_of(sid)
        has_graph = hot.exists(sid)
        if info.modified > now - older_than:
            continue  # maybe still live
        final = state.get("final")
        if has_graph:
            if info.nodes == 0 or _final_matches(final, info.turn, info.nodes, info.edges):
                continue
            reason = "changed after its final merge" if final else "no final merge"
            out[sid] = Unreconciled(sid, reason, True, state.get("transcript_path"), info.modified)
        elif not final and state.get("transcript_path"):
            out[sid] = Unreconciled(
                sid, "hot graph gone", False, state["transcript_path"], info.modified
            )
    return sorted(out.values(), key=lambda u: u.session_id)
