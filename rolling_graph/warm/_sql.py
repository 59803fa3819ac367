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

import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from rolling_graph.warm._dialect import DRAFT_COLS, draft_from_row
from rolling_graph.warm._queries import SqlReads, utcnow
from rolling_graph.warm.base import DraftError
from rolling_graph.warm.merge import merge_edge, merge_node
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    DRAFT_STATUSES,
    DraftStatus,
    EdgeKey,
    GraduationDraft,
    MergeBatch,
    MergeResult,
    WarmEdge,
    WarmNode,
)

MAX_MERGE_ATTEMPTS = 4

CLAIM_FLUSH = """INSERT INTO rg_reconciliations
    (scope, session_id, flush_seq, applied_at, hot_turn, nodes, edges, person)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"""
LOCK_DRAFT = f"SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = %s AND node_id = %s"
UPSERT_DRAFT = f"""INSERT INTO rg_drafts ({DRAFT_COLS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (scope, node_id) DO UPDATE SET draft = excluded.draft,
    status = excluded.status, final_text = excluded.final_text,
    created_at = excluded.created_at, updated_at = excluded.updated_at,
    reviewed_at = excluded.reviewed_at"""


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class SqlWarmStore(SqlReads):
    """Template for SQL backends: ``merge`` and the draft door, over the shared reads."""

    # ------------------------------------------------------------------ primitives

    @abstractmethod
    def _is_retryable(self, exc: BaseException) -> bool:
        """Deadlock / serialization failure: the whole merge may simply be retried."""

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

    def _claim_flush(self, batch: MergeBatch) -> bool:
        """Insert the flush's reconciliation record; False when it was there already."""
        params = (
            batch.scope,
            batch.session_id,
            batch.flush_seq,
            self.dialect.to_db(batch.now),
            batch.hot_turn,
            len(batch.nodes),
            len(batch.edges),
            batch.person,
        )
        return self.conn.execute(self._q(CLAIM_FLUSH), params).rowcount == 1

    def _lock_draft(self, scope: str, node_id: str) -> GraduationDraft | None:
        query = self._q(LOCK_DRAFT + self.dialect.for_update)
        row = self.conn.execute(query, (scope, node_id)).fetchone()
        return None if row is None else draft_from_row(row, self.dialect)

    def _write_draft(self, draft: GraduationDraft) -> None:
        d = self.dialect
        params = (
            draft.scope,
            draft.node_id,
            draft.draft,
            draft.status,
            draft.final_text,
            d.to_db(draft.created_at),
            d.to_db(draft.updated_at),
            d.time_or_none(draft.reviewed_at),
        )
        self.conn.execute(self._q(UPSERT_DRAFT), params)

    # ------------------------------------------------------------------ plain statements

    def select(self, query: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one portable statement (``%s`` placeholders): privacy and team tools."""
        return self._read(self.dialect.sql(query), params)

    def statements(
        self,
        steps: Sequence[tuple[str, Sequence[Any]]],
        *,
        then: Callable[[list[int]], tuple[str, Sequence[Any]]] | None = None,
    ) -> list[int]:
        """Run portable statements in one transaction; the row count of each. ``then`` makes
        one more statement from those counts (an audit row), in the same transaction."""
        with self._lock, self._transaction():
            counts = [self.conn.execute(self.dialect.sql(q), p).rowcount for q, p in steps]
            if then is not None:
                query, params = then(counts)
                self.conn.execute(self.dialect.sql(query), params)
            return counts

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
        if not self._claim_flush(batch):
            return MergeResult(applied=False)

        nodes = self._merge_rows(
            batch,
            {n.id: n for n in batch.nodes},
            (self._claim_node_sightings, self._insert_nodes, self._lock_nodes, self._update_nodes),
            merge_node,
        )
        edges = self._merge_rows(
            batch,
            {e.key: e for e in batch.edges},
            (self._claim_edge_sightings, self._insert_edges, self._lock_edges, self._update_edges),
            merge_edge,
        )
        return MergeResult(
            applied=True,
            nodes_inserted=nodes[0],
            nodes_updated=nodes[1],
            edges_inserted=edges[0],
            edges_updated=edges[1],
            new_node_sightings=nodes[2],
            new_edge_sightings=edges[2],
        )

    def _merge_rows(
        self,
        batch: MergeBatch,
        hot: dict[Any, Any],
        steps: tuple[
            Callable[..., Any], Callable[..., Any], Callable[..., Any], Callable[..., Any]
        ],
        merge: Callable[..., Any],
    ) -> tuple[int, int, int]:
        """Merge one kind of row (nodes or edges) keyed as in ``hot``: claim this session's
        sightings, insert the rows that are new, lock and update the others. ``steps`` are the
        kind's (claim, insert, lock, update); returns (inserted, updated, new sightings)."""
        claim, insert, lock, update = steps
        scope, now, params, person = batch.scope, batch.now, self.params, batch.person
        keys = sorted(hot)
        sighted = claim(scope, batch.session_id, keys, now, person)
        fresh = [
            merge(None, hot[k], scope=scope, new_session=True, now=now, params=params) for k in keys
        ]
        inserted = insert(fresh, person) if fresh else set()
        rest = [k for k in keys if k not in inserted]
        current = lock(scope, rest) if rest else {}
        updated = [
            merge(current[k], hot[k], scope=scope, new_session=k in sighted, now=now, params=params)
            for k in rest
            if k in current
        ]
        if updated:
            update(updated)
        return len(inserted), len(updated), len(sighted)

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
