"""The reads every SQL backend shares, written once over a :class:`~._dialect.Dialect`.

A backend supplies its connection, its ``_read``/``_transaction`` and the few reads whose
SQL really differs (id lists: ``IN (…)`` chunks in SQLite, arrays in PostgreSQL; term
matching: ``json_each`` or a GIN ``?|``); everything else is here: the contract's reads,
``load_branches`` (the selection the pull starts from), drafts as read, and ``adopt_scope``.
"""

from __future__ import annotations

import functools
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, ClassVar

from rolling_graph.warm._dialect import (
    DRAFT_COLS,
    EDGE_COLS,
    NODE_COLS,
    NODE_WIDTH,
    Dialect,
    Remembered,
    draft_from_row,
    edge_from_row,
    node_from_row,
)
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.merge import (
    DEFAULT_PARAMS,
    SUPERSEDES,
    MergeParams,
    effective_strength,
    effective_weight,
    normalize_term,
)
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    DraftStatus,
    EdgeKey,
    GraduationCandidate,
    GraduationDraft,
    ReconciliationRecord,
    WarmBranches,
    WarmCounts,
    WarmEdge,
    WarmNode,
)

MAX_SEARCH_WORDS = 8  # each word is one LIKE over every row: bound the scan

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

RECONCILIATIONS = """SELECT scope, session_id, flush_seq, applied_at, hot_turn, nodes, edges
    FROM rg_reconciliations WHERE scope = %s AND ({text} IS NULL OR session_id = {text})
    ORDER BY applied_at, session_id, flush_seq"""
NODE_SESSIONS = """SELECT session_id FROM rg_node_sightings WHERE scope = %s AND node_id = %s
    ORDER BY session_id"""
SESSION_NODE_IDS = """SELECT node_id FROM rg_node_sightings WHERE scope = %s AND session_id = %s
    ORDER BY node_id"""
SESSION_NODES = f"""SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s AND id IN (SELECT node_id
    FROM rg_node_sightings WHERE scope = %s AND session_id = %s)
    ORDER BY weight DESC, id LIMIT %s"""
ALL_EDGES = f"SELECT {EDGE_COLS} FROM rg_edges WHERE scope = %s"
SCOPE_TAKEN = """SELECT 1 FROM rg_reconciliations WHERE scope = %s UNION ALL
    SELECT 1 FROM rg_nodes WHERE scope = %s LIMIT 1"""
COUNTS = """SELECT
    (SELECT count(*) FROM rg_nodes WHERE scope = %(s)s),
    (SELECT count(*) FROM rg_edges WHERE scope = %(s)s),
    (SELECT count(*) FROM rg_nodes WHERE scope = %(s)s AND {anchor}),
    (SELECT count(DISTINCT session_id) FROM rg_reconciliations WHERE scope = %(s)s),
    (SELECT count(*) FROM rg_reconciliations WHERE scope = %(s)s),
    (SELECT count(*) FROM rg_drafts WHERE scope = %(s)s AND status = 'pending')"""
TOP_NODES = f"""SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s
    ORDER BY {{weight_now}} DESC, id LIMIT %s"""
RECENT_NODES = f"""SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s
    ORDER BY last_seen DESC, id LIMIT %s"""
# from the index rg_nodes_recent alone: whole rows are read only for ids not chosen already
RECENT_IDS = """SELECT id FROM rg_nodes WHERE scope = %s ORDER BY last_seen DESC, id LIMIT %s"""
GRADUATION = f"""SELECT * FROM (
    SELECT c.*,
      (SELECT count(*) FROM (
         SELECT target FROM rg_edges WHERE scope = c.scope AND source = c.id AND target <> c.id
         UNION
         SELECT source FROM rg_edges WHERE scope = c.scope AND target = c.id AND source <> c.id
      ) nb) AS neighbors
    FROM (
      SELECT {NODE_COLS}, {{weight_now}} AS weight_now FROM rg_nodes n
      WHERE n.scope = %s AND n.sessions_seen >= %s
        AND (%s OR NOT EXISTS
             (SELECT 1 FROM rg_drafts d WHERE d.scope = n.scope AND d.node_id = n.id))
    ) c WHERE c.weight_now >= %s
  ) g WHERE neighbors >= %s
  ORDER BY weight_now DESC, id"""
ANCHORS = f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s AND {{anchor}}"
DRAFT = f"SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = %s AND node_id = %s"
DRAFTS = f"""SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = %s
    AND ({{text}} IS NULL OR status = {{text}}) ORDER BY created_at, node_id"""


@functools.lru_cache(maxsize=256)
def render(d: Dialect, query: str) -> str:
    """A shared statement with the dialect's ``{slots}`` filled, in its placeholders."""
    return d.sql(query.format(text=d.text_param, anchor=d.is_anchor, weight_now=d.weight_now))


def like_pattern(word: str) -> str:
    """A LIKE pattern matching ``word`` anywhere (``\\`` escapes the wildcards)."""
    escaped = word.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def utcnow() -> datetime:
    return datetime.now(UTC)


class SqlReads(WarmStore):
    """The shared reads of the SQL backends (see the module docstring)."""

    dialect: ClassVar[Dialect]

    def __init__(self, params: MergeParams | None = None) -> None:
        self.params = params or DEFAULT_PARAMS
        self._lock = threading.RLock()
        self._node = Remembered(node_from_row, 2)
        self._edge = Remembered(edge_from_row, 4)

    # ------------------------------------------------------------------ backend primitives

    @property
    @abstractmethod
    def conn(self) -> Any: ...

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[None]:
        """A write transaction (serializable w.r.t. the rows it locks); translates errors."""

    @abstractmethod
    def _read(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Rows of one statement in the backend's own placeholders."""

    @abstractmethod
    def _select_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]: ...

    @abstractmethod
    def _select_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]: ...

    @abstractmethod
    def _touching_rows(self, scope: str, ids: Sequence[str]) -> list[Any]:
        """Rows (``EDGE_COLS``) of the edges with an end in ``ids``; an edge may come twice."""

    def _touching_edges(
        self, scope: str, ids: Sequence[str], rows: list[Any] | None = None
    ) -> dict[EdgeKey, WarmEdge]:
        d = self.dialect
        rows = self._touching_rows(scope, ids) if rows is None else rows
        return {(r[1], r[2], r[3]): self._edge(r, d) for r in rows}

    @abstractmethod
    def _find_nodes(self, scope: str, ids: Sequence[str], terms: Sequence[str]) -> list[WarmNode]:
        """Nodes whose id is in ``ids`` or whose normalized terms meet ``terms``."""

    def _adopt_lock(self, old: str) -> None:
        """Serialize adoptions of ``old`` (SQLite's write transaction already does)."""

    # ------------------------------------------------------------------ helpers

    def _q(self, query: str) -> str:
        return render(self.dialect, query)

    def _nodes(self, query: str, params: Sequence[Any] | dict[str, Any]) -> list[WarmNode]:
        return [self._node(r, self.dialect) for r in self._read(self._q(query), params)]

    # ------------------------------------------------------------------ reads

    def reconciliations(
        self, *, scope: str = DEFAULT_SCOPE, session_id: str | None = None
    ) -> list[ReconciliationRecord]:
        rows = self._read(self._q(RECONCILIATIONS), (scope, session_id, session_id))
        when = self.dialect.from_db
        return [ReconciliationRecord(r[0], r[1], r[2], when(r[3]), r[4], r[5], r[6]) for r in rows]

    def get_nodes(self, ids: Iterable[str], *, scope: str = DEFAULT_SCOPE) -> dict[str, WarmNode]:
        with self._lock:
            return self._select_nodes(scope, sorted(set(ids)))

    def get_edges(
        self,
        *,
        scope: str = DEFAULT_SCOPE,
        keys: Iterable[EdgeKey] | None = None,
        touching: Iterable[str] | None = None,
    ) -> list[WarmEdge]:
        with self._lock:
            if keys is not None:
                found = self._select_edges(scope, sorted(set(keys)))
            elif touching is not None:
                found = self._touching_edges(scope, sorted(set(touching)))
            else:
                rows = self._read(self._q(ALL_EDGES), (scope,))
                found = {e.key: e for e in (self._edge(r, self.dialect) for r in rows)}
        return [found[k] for k in sorted(found)]

    def node_sessions(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        return [r[0] for r in self._read(self._q(NODE_SESSIONS), (scope, node_id))]

    def session_node_ids(self, session_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        return [r[0] for r in self._read(self._q(SESSION_NODE_IDS), (scope, session_id))]

    def session_nodes(
        self, session_id: str, *, scope: str = DEFAULT_SCOPE, limit: int = 50
    ) -> list[WarmNode]:
        return self._nodes(SESSION_NODES, (scope, scope, session_id, limit))

    def counts(self, *, scope: str = DEFAULT_SCOPE) -> WarmCounts:
        row = self._read(self._q(COUNTS), {"s": scope})[0]
        return WarmCounts(*(int(v) for v in row))

    def adopt_scope(self, old: str, new: str) -> bool:
        if old == new:
            return False
        with self._lock, self._transaction():
            # Two sessions adopting at once: the second waits here, then finds ``new`` taken.
            self._adopt_lock(old)
            if self.conn.execute(self._q(SCOPE_TAKEN), (new, new)).fetchone() is not None:
                return False
            moved = 0
            for table in SCOPED_TABLES:
                query = self._q(f"UPDATE {table} SET scope = %s WHERE scope = %s")  # noqa: S608 - fixed names
                moved += self.conn.execute(query, (new, old)).rowcount
        return moved > 0

    def search_nodes(
        self, words: Sequence[str], *, scopes: Sequence[str] | None = None, limit: int = 20
    ) -> list[tuple[WarmNode, int]]:
        words = [w for w in words if w][:MAX_SEARCH_WORDS]
        if not words or limit <= 0 or (scopes is not None and not scopes):
            return []
        d = self.dialect
        # ``terms`` already holds the normalized id, label and aliases.
        found = [
            f"({d.terms_text} LIKE %(w{i})s ESCAPE '\\'"
            f" OR coalesce(summary, '') {d.ilike} %(w{i})s ESCAPE '\\')"
            for i in range(len(words))
        ]
        params: dict[str, Any] = {f"w{i}": like_pattern(w) for i, w in enumerate(words)}
        params.update({f"s{i}": sc for i, sc in enumerate(scopes or ())})
        in_scope = (
            f"scope IN ({', '.join(f'%(s{i})s' for i in range(len(scopes)))}) AND "
            if scopes
            else ""
        )
        hits = " + ".join(f"{f}{d.as_int}" for f in found)
        query = (
            f"SELECT {NODE_COLS}, {hits} AS hits FROM rg_nodes"
            f" WHERE {in_scope}({' OR '.join(found)}) ORDER BY hits DESC, weight DESC, id"
            " LIMIT %(n)s"
        )
        params["n"] = limit
        return [(node_from_row(r, d), int(r[-1])) for r in self._read(d.sql(query), params)]

    def _top_nodes(self, scope: str, limit: int, now: datetime) -> list[WarmNode]:
        """The ``limit`` nodes with the highest weight at ``now``."""
        return self._nodes(TOP_NODES, (scope, self.dialect.to_db(now), self.params.tau_days, limit))

    def _recent_nodes(self, scope: str, limit: int) -> list[WarmNode]:
        """The ``limit`` most recently seen nodes."""
        return self._nodes(RECENT_NODES, (scope, limit))

    def graduation_candidates(
        self,
        min_sessions: int = 3,
        min_weight: float = 0.6,
        min_edges: int = 2,
        *,
        scope: str = DEFAULT_SCOPE,
        now: datetime | None = None,
        include_drafted: bool = False,
    ) -> list[GraduationCandidate]:
        now = now or utcnow()
        d = self.dialect
        params = (
            d.to_db(now),
            self.params.tau_days,
            scope,
            min_sessions,
            include_drafted,
            min_weight,
            min_edges,
        )
        out = []
        for row in self._read(self._q(GRADUATION), params):
            node = node_from_row(row[:NODE_WIDTH], d)
            weight = effective_weight(node, now, self.params)
            out.append(GraduationCandidate(node, int(row[NODE_WIDTH + 1]), weight))
        return out

    def anchors(
        self, *, scope: str = DEFAULT_SCOPE, at_floor_before: datetime | None = None
    ) -> list[WarmNode]:
        if at_floor_before is None:
            return self._nodes(ANCHORS + " ORDER BY at_floor_since, id", (scope,))
        return self._nodes(
            ANCHORS + " AND at_floor_since <= %s ORDER BY at_floor_since, id",
            (scope, self.dialect.to_db(at_floor_before)),
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
        edges: bool = True,
    ) -> WarmBranches:
        now = now or utcnow()
        with self._lock:
            return self._load_branches(scope, ids, mentions, top, recent, neighbors, now, edges)

    def _load_branches(
        self,
        scope: str,
        ids: Sequence[str],
        mentions: Sequence[str],
        top: int,
        recent: int,
        neighbors: int,
        now: datetime,
        with_edges: bool = True,
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
            recent_ids = [r[0] for r in self._read(self._q(RECENT_IDS), (scope, recent))]
            rows = self.get_nodes([i for i in recent_ids if i not in chosen], scope=scope)
            add([rows[i] for i in recent_ids if i in rows], "recent", sort=False)
        return self._with_edges(scope, chosen, reasons, add, with_edges)

    def _with_edges(
        self,
        scope: str,
        chosen: dict[str, WarmNode],
        reasons: dict[str, str],
        add: Callable[[list[WarmNode], str], None],
        with_edges: bool,
    ) -> WarmBranches:
        """The chosen nodes, the older nodes they supersede, and the edges among them all.
        Edge rows are read once and only those kept become records."""
        if not chosen:
            return WarmBranches(nodes=(), edges=(), reasons=reasons)
        rows = self._touching_rows(scope, sorted(chosen))
        old = sorted({r[3] for r in rows if r[2] == SUPERSEDES and r[1] in chosen} - set(chosen))
        if old:
            add(list(self.get_nodes(old, scope=scope).values()), SUPERSEDES)
            rows += self._touching_rows(scope, old)
        if not with_edges:
            return WarmBranches(nodes=tuple(chosen.values()), edges=(), reasons=reasons)
        among = self._touching_edges(
            scope, (), [r for r in rows if r[1] in chosen and r[3] in chosen]
        )
        edges = tuple(among[k] for k in sorted(among))
        return WarmBranches(nodes=tuple(chosen.values()), edges=edges, reasons=reasons)

    # ------------------------------------------------------------------ drafts (reads)

    def get_draft(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> GraduationDraft | None:
        rows = self._read(self._q(DRAFT), (scope, node_id))
        return draft_from_row(rows[0], self.dialect) if rows else None

    def list_drafts(
        self, *, scope: str = DEFAULT_SCOPE, status: DraftStatus | None = None
    ) -> list[GraduationDraft]:
        rows = self._read(self._q(DRAFTS), (scope, status, status))
        return [draft_from_row(r, self.dialect) for r in rows]
