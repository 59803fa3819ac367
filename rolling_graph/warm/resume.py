"""What a new session needs to start where the last one left off, read from the warm store.

:func:`gather` collects, for one project scope: the previous session (the latest one with a
flush, other than the session starting), the nodes it sighted and the edges among them
(``supersedes`` included, so that replaced decisions are not shown as current), then a wider
ranked set of nodes from earlier sessions to fill the rest of the budget. Plain data, rendered
by :mod:`rolling_graph.render_resume`. Nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.merge import effective_weight
from rolling_graph.warm.records import WarmEdge, WarmNode

#: how many earlier nodes to rank for the budget filler (a block holds ~150 short labels)
EARLIER_TOP = 160
EARLIER_RECENT = 160
MAX_PREVIOUS = 400


@dataclass
class ResumeData:
    scope: str
    previous_session: str | None = None
    previous_ended: datetime | None = None
    sessions: int = 0  # distinct sessions flushed in this scope, the starting one excluded
    previous: list[WarmNode] = field(default_factory=list)
    earlier: list[WarmNode] = field(default_factory=list)  # ranked, best first
    edges: list[WarmEdge] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)  # weight now, per node id

    @property
    def empty(self) -> bool:
        return not self.previous and not self.earlier


def _rank(node: WarmNode, weight: float, newest: datetime) -> float:
    """Weight now, plus recurrence (a concept seen in several sessions comes back), plus a
    recency bonus in days before the newest sighting."""
    recurrence = 0.12 * min(max(node.sessions_seen - 1, 0), 4)
    days = max((newest - node.last_seen).total_seconds() / 86_400, 0.0)
    return weight + recurrence + 0.3 / (1.0 + days)


def gather(store: WarmStore, scope: str, session_id: str, now: datetime) -> ResumeData:
    data = ResumeData(scope)
    flushes = [r for r in store.reconciliations(scope=scope) if r.session_id != session_id]
    data.sessions = len({r.session_id for r in flushes})
    if flushes:
        last = max(flushes, key=lambda r: (r.applied_at, r.flush_seq))
        data.previous_session, data.previous_ended = last.session_id, last.applied_at
        ids = store.session_node_ids(last.session_id, scope=scope)[:MAX_PREVIOUS]
        data.previous = list(store.get_nodes(ids, scope=scope).values())
    branches = store.load_branches(scope=scope, top=EARLIER_TOP, recent=EARLIER_RECENT, now=now)
    prev_ids = {n.id for n in data.previous}
    pool = {n.id: n for n in branches.nodes if n.id not in prev_ids}
    for n in (*data.previous, *pool.values()):
        data.weights[n.id] = effective_weight(n, now, store.params)
    if pool:
        newest = max(n.last_seen for n in pool.values())
        data.earlier = sorted(
            pool.values(), key=lambda n: (-_rank(n, data.weights[n.id], newest), n.id)
        )
    touching = [n.id for n in data.previous] + [n.id for n in data.earlier]
    if touching:
        data.edges = store.get_edges(scope=scope, touching=touching)
    return data
