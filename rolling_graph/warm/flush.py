"""What a flush sends to the warm store, and what it did.

A flush sends the hot graph but what a pull put there and this session never touched since
(the pull's marks, :func:`rolling_graph.warm.pull.remember_pulled`); each flush leaves a
record in the session's warm state (``last_flush``, and ``final`` for the final merge), which
is how :func:`rolling_graph.warm.pending.find_unreconciled` tells a finished session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rolling_graph.core.model import HotGraph
from rolling_graph.warm.outbox import Delivery
from rolling_graph.warm.records import MergeResult


@dataclass
class FlushResult:
    """What one flush did. ``status``: ``applied`` | ``duplicate`` (already applied) |
    ``queued`` (in the outbox) | ``empty`` (nothing to send)."""

    session_id: str
    scope: str
    status: str
    flush_seq: int | None = None
    final: bool = False
    nodes: int = 0
    edges: int = 0
    merge: MergeResult | None = None
    outbox_file: str | None = None
    error: str | None = None
    delivered: Delivery | None = None
    flagged: list[str] = field(default_factory=list)
    scopes: dict[str, str] = field(default_factory=dict)  # scope → applied|duplicate|queued
    kept_private: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = {
            "session_id": self.session_id,
            "scope": self.scope,
            "status": self.status,
            "flush_seq": self.flush_seq,
            "final": self.final,
            "nodes": self.nodes,
            "edges": self.edges,
        }
        if self.outbox_file:
            out["outbox_file"] = self.outbox_file
        if self.error:
            out["error"] = self.error
        if self.flagged:
            out["graduation_flagged"] = self.flagged
        if len(self.scopes) > 1:
            out["scopes"] = self.scopes
        if self.kept_private:
            out["kept_private"] = self.kept_private
        return out


def flush_doc(graph: HotGraph, state: dict[str, Any]) -> dict[str, Any]:
    """The hot-graph document a flush sends: nodes and edges a pull put there and that this
    session never touched since (same or lower weight, not activated after the pull) are left
    out, since re-sending them would count every pulled node as seen in every session and
    inflate cross-session frequency. Endpoints of sent edges are always sent."""
    doc = graph.to_json_dict()
    pulled: dict[str, Any] = state.get("pulled") or {}
    pulled_edges: dict[str, Any] = state.get("pulled_edges") or {}

    def touched(value: dict[str, Any], mark: Any, key: str) -> bool:
        turn, before = int(mark[0]), float(mark[1])
        return int(value.get("last_activated", 0)) > turn or float(value[key]) > before + 1e-9

    edges = {
        k: e
        for k, e in doc.get("edges", {}).items()
        if k not in pulled_edges or touched(e, pulled_edges[k], "strength")
    }
    keep = {e["source"] for e in edges.values()} | {e["target"] for e in edges.values()}
    nodes = {
        i: n
        for i, n in doc.get("nodes", {}).items()
        if i not in pulled or i in keep or touched(n, pulled[i], "weight")
    }
    doc["nodes"], doc["edges"] = nodes, edges
    return doc


def flush_record(graph: HotGraph, *, now: datetime, seq: int | None, status: str) -> dict[str, Any]:
    """The state entry of one flush: when, which sequence number, and the graph's size then."""
    return {
        "seq": seq,
        "at": now.isoformat(),
        "status": status,
        "turn": graph.turn,
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
    }
