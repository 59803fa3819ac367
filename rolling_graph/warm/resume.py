"""What a new session needs to start where the last one left off, read from the warm store.

:func:`gather` collects, for one project scope: the previous session (the latest one with a
flush, other than the session starting), the nodes it sighted and the edges among them
(``supersedes`` included, so that replaced decisions are not shown as current), then a wider
ranked set of nodes from earlier sessions to fill the rest of the budget. Plain data, rendered
by :mod:`rolling_graph.render.resume`. Nothing is written.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime

from rolling_graph.core.patch.history import SUPERSEDES, keep_history
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.merge import effective_weight
from rolling_graph.warm.pull import personal_part
from rolling_graph.warm.records import WarmEdge, WarmNode
from rolling_graph.warm.seed import SEED_SESSION

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
    rank: dict[str, float] = field(default_factory=dict)  # resume rank, higher first

    @property
    def empty(self) -> bool:
        return not self.previous and not self.earlier


# Measured on the shared multi-session series (bench/resume.py): the next session's first
# events come back mostly to the last sessions' items, and to what recurred across sessions.
RECURRENCE = 0.3  # per extra session a node was seen in, up to 4
RECENCY = 2.0  # divided by 1 + the number of sessions since the node was last seen


def _rank(node: WarmNode, weight: float, ends: list[datetime]) -> float:
    """Weight now + recurrence + recency, where recency counts sessions, not days: a week
    off between two sessions does not make the last one less relevant."""
    recurrence = RECURRENCE * min(max(node.sessions_seen - 1, 0), 4)
    age = len(ends) - bisect.bisect_left(ends, node.last_seen)  # sessions ended after it
    return weight + recurrence + RECENCY / (1.0 + max(age - 1, 0))


OWN_TOP = 20  # the person's own items a resume block may name


def gather(
    store: WarmStore, scope: str, session_id: str, now: datetime, own: str | None = None
) -> ResumeData:
    """What the previous session of ``scope`` left, and what ranks next across earlier ones;
    with ``own``, the person's own scope (their asides, their colleagues) joins the pool."""
    data = ResumeData(scope)
    # Seeded flat memories are written as a pseudo-session: not a session to continue.
    flushes = [
        r
        for r in store.reconciliations(scope=scope)
        if r.session_id not in (session_id, SEED_SESSION)
    ]
    data.sessions = len({r.session_id for r in flushes})
    last_flush: dict[str, datetime] = {}
    for r in flushes:
        last_flush[r.session_id] = max(last_flush.get(r.session_id, r.applied_at), r.applied_at)
    ends = sorted(last_flush.values())
    if flushes:
        last = max(flushes, key=lambda r: (r.applied_at, r.flush_seq))
        data.previous_session, data.previous_ended = last.session_id, last.applied_at
        ids = store.session_node_ids(last.session_id, scope=scope)[:MAX_PREVIOUS]
        data.previous = list(store.get_nodes(ids, scope=scope).values())
    # The nodes only: the edges among what is shown are read once, below.
    branches = store.load_branches(
        scope=scope, top=EARLIER_TOP, recent=EARLIER_RECENT, now=now, edges=False
    )
    prev_ids = {n.id for n in data.previous}
    pool = {n.id: n for n in branches.nodes if n.id not in prev_ids}
    if own is not None and own != scope:
        mine = personal_part(
            store.load_branches(scope=own, top=OWN_TOP, recent=OWN_TOP, now=now, edges=False)
        )
        pool.update({n.id: n for n in mine.nodes if n.id not in prev_ids and n.id not in pool})
    for n in (*data.previous, *pool.values()):
        data.weights[n.id] = effective_weight(n, now, store.params)
    everything = [*data.previous, *pool.values()]
    if everything:
        data.rank = {n.id: _rank(n, data.weights[n.id], ends) for n in everything}
        data.earlier = sorted(pool.values(), key=lambda n: (-data.rank[n.id], n.id))
    touching = [n.id for n in data.previous] + [n.id for n in data.earlier]
    if touching:
        edges = store.get_edges(scope=scope, touching=touching)
        newest = sorted(
            (e for e in edges if e.relationship == SUPERSEDES),
            key=lambda e: -e.last_seen.timestamp(),
        )
        history = {e.key for e in keep_history(newest, lambda e: (e.source, e.target))}
        data.edges = [e for e in edges if e.relationship != SUPERSEDES or e.key in history]
    return data
