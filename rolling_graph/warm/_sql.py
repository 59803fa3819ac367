"""The reconciliation algorithm shared by the SQL backends, over small SQL primitives.

The order of the steps is what makes concurrent merges safe on PostgreSQL (and is simply
correct under SQLite's single writer):

1. claim the flush (insert the reconciliation record; already there → nothing to do);
2. claim the ``(node, session)`` sightings; the ones that were new are the nodes this
   session has not been counted for yet (a unique key decides, not a read);
3. insert the rows of nodes that do not exist yet (``ON CONFLICT DO NOTHING``; a
   concurrent inserter makes us wait for its commit, then we see its row);
4. lock the remaining rows in key order (``SELECT … FOR UPDATE``) and read them;
5. compute each new row with ``merge.merge_node`` against the locked current value and
   write it back in one batched statement. Same for edges.

Doing the arithmetic in Python under a row lock, rather than re-writing it in each SQL
dialect, keeps one implementation of the rules (``merge.py``) for every backend.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from rolling_graph.warm.base import DraftError, WarmStore
from rolling_graph.warm.merge import (
    DEFAULT_PARAMS,
    SUPERSEDES,
    MergeParams,
    effective_strength,
    effective_weight,
    merge_edge,
    merge_node,
    normalize_term,
)
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    DRAFT_STATUSES,
    DraftStatus,
    EdgeKey,
    GraduationDraft,
    MergeBatch,
    MergeResult,
    WarmBranches,
    WarmEdge,
    WarmNode,
)

MAX_MERGE_ATTEMPTS = 4
MAX_SEARCH_WORDS = 8  # each word is one LIKE over every row: bound the scan


def like_pattern(word: str) -> str:
    """A LIKE pattern matching ``word`` anywhere (``\\`` escapes the wildcards)."""
    escaped = word.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


#: every table keyed by scope, in the order ``adopt_scope`` moves them (the team's forget
#: audit, ``rg_forgotten``, follows its project)
SCOPED_TABLES = (
    "rg_nodes",
    "rg_edges",
    "rg_node_sightings",
    "rg_edge_sightings",
    "rg_reconciliations",
    "rg_drafts",
    "rg_forgotten",
)


def utcnow() -> datetime:
    return datetime.now(UTC)


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class SqlWarmStore(WarmStore):
    """Template for SQL backends: ``merge``, ``load_branches`` and the draft door."""

    def __init__(self, params: MergeParams | None = None) -> None:
        self.params = params or DEFAULT_PARAMS
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ primitives

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[None]:
        """A write transaction (serializable w.r.t. the rows it locks); translates errors."""

    @abstractmethod
    def _is_retryable(self, exc: BaseException) -> bool:
        """Deadlock / serialization failure: the whole merge may simply be retried."""

    @abstractmethod
    def _claim_flush(self, batch: MergeBatch) -> bool: ...

    @abstractmethod
    def _claim_node_sightings(
        self, scope: str, session_id: str, ids: Sequence[str], now: datetime, person: str = ""
    ) -> set[str]: ...

    @abstractmethod
    def _claim_edge_sightings(
        self, scope: str, session_id: str, keys: Sequence[EdgeKey], now: datetime, person: str = ""
    ) -> set[EdgeKey]: ...

    @abstractmethod
    def _insert_nodes(self, rows: Sequence[WarmNode], person: str = "") -> set[str]: ...

    @abstractmethod
    def _lock_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]: ...

    @abstractmethod
    def _update_nodes(self, rows: Sequence[WarmNode]) -> None: ...

    @abstractmethod
    def _insert_edges(self, rows: Sequence[WarmEdge], person: str = "") -> set[EdgeKey]: ...

    @abstractmethod
    def _lock_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]: ...

    @abstractmethod
    def _update_edges(self, rows: Sequence[WarmEdge]) -> None: ...

    @abstractmethod
    def _find_nodes(self, scope: str, ids: Sequence[str], terms: Sequence[str]) -> list[WarmNode]:
        """Nodes whose id is in ``ids`` or whose normalized terms meet ``terms``."""

    @abstractmethod
    def _top_nodes(self, scope: str, limit: int, now: datetime) -> list[WarmNode]:
        """The ``limit`` nodes with the highest weight at ``now``."""

    @abstractmethod
    def _recent_nodes(self, scope: str, limit: int) -> list[WarmNode]:
        """The ``limit`` most recently seen nodes."""

    @abstractmethod
    def _lock_draft(self, scope: str, node_id: str) -> GraduationDraft | None: ...

    @abstractmethod
    def _write_draft(self, draft: GraduationDraft) -> None: ...

    # ------------------------------------------------------------------ plain statements

    PARAM = "%s"
    """The DB-API placeholder of the backend; ``statements``/``select`` take ``%s``."""

    @property
    @abstractmethod
    def conn(self) -> Any: ...

    def _dialect(self, query: str) -> str:
        return query if self.PARAM == "%s" else query.replace("%s", self.PARAM)

    def select(self, query: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one portable statement (``%s`` placeholders): privacy and team tools."""
        return self._read(self._dialect(query), params)

    def statements(
        self,
        steps: Sequence[tuple[str, Sequence[Any]]],
        *,
        then: Callable[[list[int]], tuple[str, Sequence[Any]]] | None = None,
    ) -> list[int]:
        """Run portable statements in one transaction; the row count of each. ``then`` makes
        one more statement from those counts (an audit row), in the same transaction."""
        with self._lock, self._transaction():
            counts = [self.conn.execute(self._dialect(q), p).rowcount for q, p in steps]
            if then is not None:
                query, params = then(counts)
                self.conn.execute(self._dialect(query), params)
            return counts

    @abstractmethod
    def _read(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]: ...

    # ------------------------------------------------------------------ merge

    def merge(self, batch: MergeBatch) -> MergeResult:
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._lock, self._transaction():
                    return self._merge_in_transaction(batch)
            except Exception as exc:
                if attempt >= MAX_MERGE_ATTEMPTS or not self._is_retryable(exc):
                    raise
                time.sleep(0.01 * attempt)

    def _merge_in_transaction(self, batch: MergeBatch) -> MergeResult:
        scope, now, params, person = batch.scope, batch.now, self.params, batch.person
        if not self._claim_flush(batch):
            return MergeResult(applied=False)

        hot_nodes = {n.id: n for n in batch.nodes}
        node_ids = sorted(hot_nodes)
        sighted = self._claim_node_sightings(scope, batch.session_id, node_ids, now, person)
        fresh = [
            merge_node(None, hot_nodes[i], scope=scope, new_session=True, now=now, params=params)
            for i in node_ids
        ]
        inserted = self._insert_nodes(fresh, person) if fresh else set()
        rest = [i for i in node_ids if i not in inserted]
        current = self._lock_nodes(scope, rest) if rest else {}
        updated = [
            merge_node(
                current[i],
                hot_nodes[i],
                scope=scope,
                new_session=i in sighted,
                now=now,
                params=params,
            )
            for i in rest
            if i in current
        ]
        if updated:
            self._update_nodes(updated)

        hot_edges = {e.key: e for e in batch.edges}
        keys = sorted(hot_edges)
        edge_sighted = self._claim_edge_sightings(scope, batch.session_id, keys, now, person)
        fresh_edges = [
            merge_edge(None, hot_edges[k], scope=scope, new_session=True, now=now, params=params)
            for k in keys
        ]
        edges_inserted = self._insert_edges(fresh_edges, person) if fresh_edges else set()
        edge_rest = [k for k in keys if k not in edges_inserted]
        current_edges = self._lock_edges(scope, edge_rest) if edge_rest else {}
        updated_edges = [
            merge_edge(
                current_edges[k],
                hot_edges[k],
                scope=scope,
                new_session=k in edge_sighted,
                now=now,
                params=params,
            )
            for k in edge_rest
            if k in current_edges
        ]
        if updated_edges:
            self._update_edges(updated_edges)

        return MergeResult(
            applied=True,
            nodes_inserted=len(inserted),
            nodes_updated=len(updated),
            edges_inserted=len(edges_inserted),
            edges_updated=len(updated_edges),
            new_node_sightings=len(sighted),
            new_edge_sightings=len(edge_sighted),
        )

    # ------------------------------------------------------------------ branches

    def load_branches(
        self,
        *,
        scope: str = DEFAULT_SCOPE,
        ids: Sequence[str] = (),
        mentions: Sequence[str] = (),
        top: int = 20,
        recent: int = 10,
        neighbors: int = 20,
        now: datetime | None = None,
    ) -> WarmBranches:
        now = now or utcnow()
        with self._lock:
            return self._load_branches(scope, ids, mentions, top, recent, neighbors, now)

    def _load_branches(
        self,
        scope: str,
        ids: Sequence[str],
        mentions: Sequence[str],
        top: int,
        recent: int,
        neighbors: int,
        now: datetime,
    ) -> WarmBranches:
        chosen: dict[str, WarmNode] = {}
        reasons: dict[str, str] = {}

        def rank(node: WarmNode) -> tuple[float, str]:
            return (-effective_weight(node, now, self.params), node.id)

        def add(nodes: list[WarmNode], reason: str, *, sort: bool = True) -> None:
            for node in sorted(nodes, key=rank) if sort else nodes:
                if node.id not in chosen:
                    chosen[node.id] = node
                    reasons[node.id] = reason

        wanted_ids = sorted(set(ids))
        terms = sorted({t for t in (normalize_term(m) for m in mentions) if t})
        if wanted_ids or terms:
            found = self._find_nodes(scope, wanted_ids, terms)
            add([n for n in found if n.id in wanted_ids], "id")
            add(found, "mention")
        hits = list(chosen)
        if hits and neighbors > 0:
            best: dict[str, float] = {}
            for edge in self.get_edges(scope=scope, touching=hits):
                for other in (edge.source, edge.target):
                    if other not in chosen:
                        s = effective_strength(edge, now, self.params)
                        best[other] = max(best.get(other, 0.0), s)
            picked = sorted(best, key=lambda i: (-best[i], i))[:neighbors]
            found_nb = self.get_nodes(picked, scope=scope)
            add([found_nb[i] for i in picked if i in found_nb], "neighbor", sort=False)
        if top > 0:
            add(self._top_nodes(scope, top, now), "top")
        if recent > 0:
            recent_nodes = self._recent_nodes(scope, recent)
            add(recent_nodes, "recent", sort=False)
        if chosen:
            old = sorted(
                {
                    e.target
                    for e in self.get_edges(scope=scope, touching=list(chosen))
                    if e.relationship == SUPERSEDES and e.source in chosen
                }
                - set(chosen)
            )
            if old:
                add(list(self.get_nodes(old, scope=scope).values()), SUPERSEDES)
        edges = (
            [
                e
                for e in self.get_edges(scope=scope, touching=list(chosen))
                if e.source in chosen and e.target in chosen
            ]
            if chosen
            else []
        )
        return WarmBranches(nodes=tuple(chosen.values()), edges=tuple(edges), reasons=reasons)

    # ------------------------------------------------------------------ drafts

    def put_draft(
        self, node_id: str, text: str, *, scope: str = DEFAULT_SCOPE, now: datetime | None = None
    ) -> GraduationDraft:
        now = now or utcnow()
        if not text.strip():
            raise DraftError("a draft needs text")
        with self._lock, self._transaction():
            existing = self._lock_draft(scope, node_id)
            if existing is not None and existing.status != "pending":
                raise DraftError(
                    f"draft for {node_id!r} was already {existing.status}; review is one-way"
                )
            draft = GraduationDraft(
                scope=scope,
                node_id=node_id,
                draft=text,
                status="pending",
                created_at=existing.created_at if existing else now,
                updated_at=now,
            )
            self._write_draft(draft)
            return draft

    def review_draft(
        self,
        node_id: str,
        status: DraftStatus,
        *,
        scope: str = DEFAULT_SCOPE,
        text: str | None = None,
        now: datetime | None = None,
    ) -> GraduationDraft:
        now = now or utcnow()
        if status not in DRAFT_STATUSES or status == "pending":
            raise DraftError(f"review status must be approved, edited or rejected, not {status!r}")
        if status == "edited" and not (text and text.strip()):
            raise DraftError("an edited draft needs the edited text")
        with self._lock, self._transaction():
            existing = self._lock_draft(scope, node_id)
            if existing is None:
                raise DraftError(f"no draft for {node_id!r}")
            if existing.status != "pending":
                raise DraftError(
                    f"draft for {node_id!r} was already {existing.status}; review is one-way"
                )
            final = text if status == "edited" else existing.draft if status == "approved" else None
            draft = GraduationDraft(
                scope=scope,
                node_id=node_id,
                draft=existing.draft,
                status=status,
                created_at=existing.created_at,
                updated_at=now,
                final_text=final,
                reviewed_at=now,
            )
            self._write_draft(draft)
            return draft
