"""Plain records exchanged with a warm store.

They are frozen dataclasses rather than pydantic models on purpose: the warm layer is
used by the worker and by ``rolling-graph recover`` and must not pay for pydantic at
import time, and the stores build thousands of them per merge.

Keys, decided once for every backend:

- a warm node is keyed ``(scope, id)``; ``id`` is the hot graph's slug, so the same
  concept seen in two sessions of one project lands on one row;
- a warm edge is keyed ``(scope, source, relationship, target)``, the hot graph's
  ``source|relationship|target`` key plus the scope;
- ``scope`` is the project key (e.g. a repository slug). ``""`` is the default scope, the
  one a single-user SQLite store uses; a team PostgreSQL store holds one warm graph per
  scope, isolated from each other (no cross-scope edges, counts or candidates).
  A string (not NULL) so that it can be part of primary keys on every backend.
- a person's own scope on a shared (PostgreSQL) store is ``~<person>`` (``personal_scope``):
  the ``~`` cannot start a project key, and the database's row-level security hides every
  ``~`` scope but the connected role's own (see ``pg_team``). A SQLite store is one person's:
  its personal scope stays ``""``.
- ``person`` (the identity of whoever wrote a row: the database role on PostgreSQL unless
  configured, else the OS user) is stored with every row; a batch carries it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

DEFAULT_SCOPE = ""
PERSONAL_PREFIX = "~"


def personal_scope(person: str) -> str:
    """The scope of one person's own memories on a shared store."""
    return f"{PERSONAL_PREFIX}{person}"


def is_personal_scope(scope: str) -> bool:
    return scope.startswith(PERSONAL_PREFIX)


EdgeKey = tuple[str, str, str]
"""``(source, relationship, target)``, the warm edge key within a scope."""

DraftStatus = Literal["pending", "approved", "edited", "rejected"]
DRAFT_STATUSES: tuple[DraftStatus, ...] = ("pending", "approved", "edited", "rejected")


@dataclass(frozen=True, slots=True)
class HotNode:
    """One hot-graph node as the merge sees it (DESIGN §2); ``weight`` is in [0, 1]."""

    id: str
    label: str
    domain: str
    weight: float
    summary: str | None = None
    aliases: tuple[str, ...] = ()
    kind: str | None = None
    anchor: bool = False
    last_activated: int | None = None
    # Small str → str facts (task status, due date, a person's role); never part of a hash.
    attrs: dict[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class HotEdge:
    """One hot-graph edge as the merge sees it; ``strength`` is in [0, 1]."""

    source: str
    relationship: str
    target: str
    strength: float
    last_activated: int | None = None

    @property
    def key(self) -> EdgeKey:
        return (self.source, self.relationship, self.target)


@dataclass(frozen=True, slots=True)
class WarmNode:
    """A persistent node.

    ``weight`` is the weight as of ``last_seen``; the weight *now* is
    ``merge.effective_weight(node, now)`` (wall-time decay is computed on read, never
    written back, so reading twice never decays twice). ``at_floor_since`` is, for an
    anchor, the wall time at which its decayed weight reaches (or reached) its floor if
    no session touches it again; ``None`` for nodes without a floor.
    """

    id: str
    label: str
    domain: str
    weight: float
    summary: str | None = None
    aliases: tuple[str, ...] = ()
    kind: str | None = None
    anchor: bool = False
    floor: float = 0.0
    scope: str = DEFAULT_SCOPE
    sessions_seen: int = 0
    first_seen: datetime = EPOCH
    last_seen: datetime = EPOCH
    at_floor_since: datetime | None = None
    attrs: dict[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class WarmEdge:
    """A persistent edge; ``strength`` is as of ``last_seen`` (see ``WarmNode``)."""

    source: str
    relationship: str
    target: str
    strength: float
    sessions_seen: int = 0
    last_seen: datetime = EPOCH
    first_seen: datetime = EPOCH
    scope: str = DEFAULT_SCOPE

    @property
    def key(self) -> EdgeKey:
        return (self.source, self.relationship, self.target)


@dataclass(frozen=True, slots=True)
class MergeBatch:
    """Everything one flush of one session writes, applied in one transaction.

    ``flush_seq`` numbers the flushes of a session (pre-compaction flushes 1, 2, …, the
    session-end merge the next one). The store records ``(scope, session_id, flush_seq)``
    and ignores a batch it has already applied, so replaying an outbox entry or a double
    delivery is harmless. Build it with ``merge.prepare_batch``, which sorts and
    de-duplicates nodes and edges (stable lock order, one row per key).
    """

    scope: str
    session_id: str
    flush_seq: int
    now: datetime
    nodes: tuple[HotNode, ...] = ()
    edges: tuple[HotEdge, ...] = ()
    hot_turn: int | None = None
    person: str = ""


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What a merge did; ``applied`` is False when the flush had already been applied."""

    applied: bool
    nodes_inserted: int = 0
    nodes_updated: int = 0
    edges_inserted: int = 0
    edges_updated: int = 0
    new_node_sightings: int = 0
    new_edge_sightings: int = 0


@dataclass(frozen=True, slots=True)
class ReconciliationRecord:
    """One applied flush: the idempotency log of merges."""

    scope: str
    session_id: str
    flush_seq: int
    applied_at: datetime
    hot_turn: int | None
    nodes: int
    edges: int


@dataclass(frozen=True, slots=True)
class WarmBranches:
    """Warm nodes and edges to seed a fresh hot graph with, and why each node is there.

    ``reasons[id]`` is one of ``id``, ``mention``, ``neighbor``, ``top``, ``recent``,
    ``supersedes`` (the first that selected the node; ``nodes`` is in that order).
    """

    nodes: tuple[WarmNode, ...] = ()
    edges: tuple[WarmEdge, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GraduationCandidate:
    """A node meeting the graduation criteria; ``neighbors`` = distinct linked nodes."""

    node: WarmNode
    neighbors: int
    weight_now: float


@dataclass(frozen=True, slots=True)
class GraduationDraft:
    """A drafted flat memory awaiting (or past) human review.

    ``pending`` → ``approved`` | ``edited`` (``final_text`` holds the edit) | ``rejected``;
    review is a one-way door: a reviewed draft cannot be redrafted or re-reviewed.
    """

    scope: str
    node_id: str
    draft: str
    status: DraftStatus
    created_at: datetime
    updated_at: datetime
    final_text: str | None = None
    reviewed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class WarmCounts:
    """Sizes of one scope of the warm graph."""

    nodes: int
    edges: int
    anchors: int
    sessions: int
    reconciliations: int
    drafts_pending: int
