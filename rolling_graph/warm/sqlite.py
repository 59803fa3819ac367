"""SQLite warm store (stdlib ``sqlite3``): the zero-set-up default, one file per user.

- WAL journal, so readers (a hook rendering a block) never wait on a merging writer;
- a busy timeout, so a second process waits for the lock instead of failing;
- ``BEGIN IMMEDIATE`` for every write: the write lock is taken *before* the merge reads the
  current rows, so two processes reconciling at once serialize and lose no update;
- times are stored as integer microseconds since the Unix epoch (UTC): exact round trips
  and plain integer comparisons;
- aliases and the normalized match terms are JSON arrays (``json_each`` to match them).

All SQL of this backend is in this module.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.paths import private_db
from rolling_graph.warm._sql import (
    MAX_SEARCH_WORDS,
    SCOPED_TABLES,
    SqlWarmStore,
    chunks,
    like_pattern,
    utcnow,
)
from rolling_graph.warm.base import WarmStoreError, WarmStoreUnavailable
from rolling_graph.warm.merge import MergeParams, effective_weight, terms_json, warm_decay
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    EPOCH,
    DraftStatus,
    EdgeKey,
    GraduationCandidate,
    GraduationDraft,
    MergeBatch,
    ReconciliationRecord,
    WarmCounts,
    WarmEdge,
    WarmNode,
)

# --------------------------------------------------------------------------- schema

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS rg_schema_version ("
    " version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
)

PERSON_TABLES = (
    "rg_nodes",
    "rg_edges",
    "rg_node_sightings",
    "rg_edge_sightings",
    "rg_reconciliations",
    "rg_drafts",
)
FORGOTTEN_TABLE = """CREATE TABLE rg_forgotten (
    scope TEXT NOT NULL, person TEXT NOT NULL, at TEXT NOT NULL, selector TEXT NOT NULL,
    removed TEXT NOT NULL)"""

MIGRATIONS: list[str] = [
    # 1
    """CREATE TABLE rg_nodes (
        scope TEXT NOT NULL, id TEXT NOT NULL, label TEXT NOT NULL, domain TEXT NOT NULL,
        weight REAL NOT NULL, summary TEXT, aliases TEXT NOT NULL DEFAULT '[]', kind TEXT,
        anchor INTEGER NOT NULL DEFAULT 0, floor REAL NOT NULL DEFAULT 0,
        sessions_seen INTEGER NOT NULL DEFAULT 0, first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL, at_floor_since INTEGER, terms TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (scope, id)) WITHOUT ROWID""",
    # 2
    "CREATE INDEX rg_nodes_recent ON rg_nodes (scope, last_seen DESC, id)",
    # 3
    "CREATE INDEX rg_nodes_anchor_floor ON rg_nodes (scope, at_floor_since, id) WHERE anchor = 1",
    # 4
    """CREATE TABLE rg_edges (
        scope TEXT NOT NULL, source TEXT NOT NULL, relationship TEXT NOT NULL,
        target TEXT NOT NULL, strength REAL NOT NULL, sessions_seen INTEGER NOT NULL DEFAULT 0,
        first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
        PRIMARY KEY (scope, source, relationship, target)) WITHOUT ROWID""",
    # 5
    "CREATE INDEX rg_edges_target ON rg_edges (scope, target)",
    # 6
    """CREATE TABLE rg_node_sightings (
        scope TEXT NOT NULL, node_id TEXT NOT NULL, session_id TEXT NOT NULL,
        first_seen INTEGER NOT NULL,
        PRIMARY KEY (scope, node_id, session_id)) WITHOUT ROWID""",
    # 7
    "CREATE INDEX rg_node_sightings_session ON rg_node_sightings (scope, session_id)",
    # 8
    """CREATE TABLE rg_edge_sightings (
        scope TEXT NOT NULL, source TEXT NOT NULL, relationship TEXT NOT NULL,
        target TEXT NOT NULL, session_id TEXT NOT NULL, first_seen INTEGER NOT NULL,
        PRIMARY KEY (scope, source, relationship, target, session_id)) WITHOUT ROWID""",
    # 9
    "CREATE INDEX rg_edge_sightings_session ON rg_edge_sightings (scope, session_id)",
    # 10
    """CREATE TABLE rg_reconciliations (
        scope TEXT NOT NULL, session_id TEXT NOT NULL, flush_seq INTEGER NOT NULL,
        applied_at INTEGER NOT NULL, hot_turn INTEGER, nodes INTEGER NOT NULL,
        edges INTEGER NOT NULL, PRIMARY KEY (scope, session_id, flush_seq))""",
    # 11
    """CREATE TABLE rg_drafts (
        scope TEXT NOT NULL, node_id TEXT NOT NULL, draft TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'edited', 'rejected')),
        final_text TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        reviewed_at INTEGER, PRIMARY KEY (scope, node_id))""",
    # 12
    "CREATE INDEX rg_drafts_status ON rg_drafts (scope, status, created_at)",
    # 13-20 team (issue #20): who wrote each row, and the audit of what `warm forget` removed
    *(f"ALTER TABLE {table} ADD COLUMN person TEXT NOT NULL DEFAULT ''" for table in PERSON_TABLES),
    "CREATE INDEX rg_nodes_person ON rg_nodes (person)",
    FORGOTTEN_TABLE,
    # 21: node attributes (task status, due date, role), a JSON object of strings (resume,
    # issue #13; appended after the team's steps, which shipped first)
    "ALTER TABLE rg_nodes ADD COLUMN attrs TEXT NOT NULL DEFAULT '{}'",
]
"""Ordered schema steps; the position (1-based) is the version. Only ever append."""

NODE_COLS = (
    "scope, id, label, domain, weight, summary, aliases, kind, anchor, floor,"
    " sessions_seen, first_seen, last_seen, at_floor_since, terms, attrs"
)
EDGE_COLS = "scope, source, relationship, target, strength, sessions_seen, first_seen, last_seen"
DRAFT_COLS = "scope, node_id, draft, status, final_text, created_at, updated_at, reviewed_at"

# node_to_row's 16 values (NODE_COLS) and the writer's person
INSERT_NODE = f"INSERT INTO rg_nodes ({NODE_COLS}, person) VALUES ({', '.join('?' * 17)})"
UPDATE_NODE = """UPDATE rg_nodes SET label = ?, domain = ?, weight = ?, summary = ?, aliases = ?,
    kind = ?, anchor = ?, floor = ?, sessions_seen = ?, first_seen = ?, last_seen = ?,
    at_floor_since = ?, terms = ?, attrs = ? WHERE scope = ? AND id = ?"""
INSERT_EDGE = f"INSERT INTO rg_edges ({EDGE_COLS}, person) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
UPDATE_EDGE = """UPDATE rg_edges SET strength = ?, sessions_seen = ?, first_seen = ?,
    last_seen = ? WHERE scope = ? AND source = ? AND relationship = ? AND target = ?"""
CLAIM_FLUSH = """INSERT INTO rg_reconciliations
    (scope, session_id, flush_seq, applied_at, hot_turn, nodes, edges, person)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"""
SESSION_NODE_SIGHTINGS = "SELECT node_id FROM rg_node_sightings WHERE scope = ? AND session_id = ?"
INSERT_NODE_SIGHTING = """INSERT INTO rg_node_sightings
    (scope, node_id, session_id, first_seen, person) VALUES (?, ?, ?, ?, ?)"""
SESSION_EDGE_SIGHTINGS = (
    "SELECT source, relationship, target FROM rg_edge_sightings WHERE scope = ? AND session_id = ?"
)
INSERT_EDGE_SIGHTING = """INSERT INTO rg_edge_sightings
    (scope, source, relationship, target, session_id, first_seen, person)
    VALUES (?, ?, ?, ?, ?, ?, ?)"""
# ``rg_weight_now`` is ``merge.warm_decay`` registered as a SQL function (see ``open``).
WEIGHT_NOW = "rg_weight_now(weight, floor, last_seen, ?, ?)"
TOP_NODES = (
    f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? ORDER BY {WEIGHT_NOW} DESC, id LIMIT ?"
)
RECENT_NODES = (
    f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? ORDER BY last_seen DESC, id LIMIT ?"
)
GRADUATION = f"""SELECT * FROM (
    SELECT c.*,
      (SELECT count(*) FROM (
         SELECT target FROM rg_edges WHERE scope = c.scope AND source = c.id AND target <> c.id
         UNION
         SELECT source FROM rg_edges WHERE scope = c.scope AND target = c.id AND source <> c.id
      )) AS neighbors
    FROM (
      SELECT {NODE_COLS}, {WEIGHT_NOW} AS weight_now FROM rg_nodes n
      WHERE n.scope = ? AND n.sessions_seen >= ?
        AND (? OR NOT EXISTS
             (SELECT 1 FROM rg_drafts d WHERE d.scope = n.scope AND d.node_id = n.id))
    ) c WHERE c.weight_now >= ?
  ) WHERE neighbors >= ?
  ORDER BY weight_now DESC, id"""
ANCHORS = f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? AND anchor = 1"
COUNTS = """SELECT
    (SELECT count(*) FROM rg_nodes WHERE scope = :s),
    (SELECT count(*) FROM rg_edges WHERE scope = :s),
    (SELECT count(*) FROM rg_nodes WHERE scope = :s AND anchor = 1),
    (SELECT count(DISTINCT session_id) FROM rg_reconciliations WHERE scope = :s),
    (SELECT count(*) FROM rg_reconciliations WHERE scope = :s),
    (SELECT count(*) FROM rg_drafts WHERE scope = :s AND status = 'pending')"""
UPSERT_DRAFT = f"""INSERT INTO rg_drafts ({DRAFT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (scope, node_id) DO UPDATE SET draft = excluded.draft,
    status = excluded.status, final_text = excluded.final_text,
    created_at = excluded.created_at, updated_at = excluded.updated_at,
    reviewed_at = excluded.reviewed_at"""

CHUNK = 400


# --------------------------------------------------------------------------- conversions


def to_us(value: datetime) -> int:
    """UTC datetime → integer microseconds since the epoch (exact)."""
    return (value - EPOCH) // timedelta(microseconds=1)


def from_us(value: int | None) -> datetime | None:
    return None if value is None else EPOCH + timedelta(microseconds=int(value))


def _dt(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=int(value))


def node_from_row(row: Sequence[Any]) -> WarmNode:
    return WarmNode(
        scope=row[0],
        id=row[1],
        label=row[2],
        domain=row[3],
        weight=float(row[4]),
        summary=row[5],
        aliases=tuple(json.loads(row[6])),
        kind=row[7],
        anchor=bool(row[8]),
        floor=float(row[9]),
        sessions_seen=int(row[10]),
        first_seen=_dt(row[11]),
        last_seen=_dt(row[12]),
        at_floor_since=from_us(row[13]),
        attrs=json.loads(row[15]) if row[15] else {},
    )


def node_to_row(n: WarmNode) -> tuple[Any, ...]:
    return (
        n.scope,
        n.id,
        n.label,
        n.domain,
        n.weight,
        n.summary,
        json.dumps(list(n.aliases)),
        n.kind,
        int(n.anchor),
        n.floor,
        n.sessions_seen,
        to_us(n.first_seen),
        to_us(n.last_seen),
        None if n.at_floor_since is None else to_us(n.at_floor_since),
        terms_json(n),
        json.dumps(n.attrs, sort_keys=True),
    )


def edge_from_row(row: Sequence[Any]) -> WarmEdge:
    return WarmEdge(
        scope=row[0],
        source=row[1],
        relationship=row[2],
        target=row[3],
        strength=float(row[4]),
        sessions_seen=int(row[5]),
        first_seen=_dt(row[6]),
        last_seen=_dt(row[7]),
    )


def draft_from_row(row: Sequence[Any]) -> GraduationDraft:
    return GraduationDraft(
        scope=row[0],
        node_id=row[1],
        draft=row[2],
        status=row[3],
        final_text=row[4],
        created_at=_dt(row[5]),
        updated_at=_dt(row[6]),
        reviewed_at=from_us(row[7]),
    )


def _weight_now(weight: float, floor: float, last_seen: int, now: int, tau: float) -> float:
    days = max(0.0, (now - last_seen) / 86_400_000_000)
    return warm_decay(weight, days, floor=floor, tau_days=tau)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


# --------------------------------------------------------------------------- store


def _wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Switch to WAL. Changing the journal mode takes an exclusive lock that SQLite does not
    wait for (no busy handler): when several processes open a new store at once, retry."""
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(0.2, delay * 2)


class SQLiteWarmStore(SqlWarmStore):
    """Warm store in one SQLite file (``":memory:"`` for a private throwaway store)."""

    def __init__(
        self,
        path: str | Path,
        *,
        params: MergeParams | None = None,
        busy_timeout_s: float = 30.0,
    ) -> None:
        super().__init__(params)
        self.path = str(path)
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SQLiteWarmStore({self.path!r})"

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> None:
        if self._conn is not None:
            return
        try:
            if self.path != ":memory:":
                private_db(Path(self.path))
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            _wal(conn, self.busy_timeout_s)
            conn.execute("PRAGMA synchronous = NORMAL")
        except (sqlite3.Error, OSError) as exc:
            raise WarmStoreUnavailable(f"cannot open SQLite warm store {self.path}: {exc}") from exc
        conn.create_function("rg_weight_now", 5, _weight_now, deterministic=True)
        self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise WarmStoreError("store is not open (use it as a context manager)")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        conn = self.conn
        with self._lock:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise WarmStoreUnavailable(f"SQLite warm store busy: {exc}") from exc
            try:
                yield
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    PARAM = "?"

    def _is_retryable(self, exc: BaseException) -> bool:
        return False  # BEGIN IMMEDIATE already waited busy_timeout_s for the lock

    def _read(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    raise WarmStoreError("warm store is not migrated (call migrate())") from exc
                raise

    # ------------------------------------------------------------------ migrations

    def schema_version(self) -> int:
        with self._lock:
            self.conn.execute(SCHEMA_VERSION_TABLE)
            row = self.conn.execute("SELECT max(version) FROM rg_schema_version").fetchone()
        return int(row[0] or 0)

    def migrate(self) -> int:
        with self._transaction():
            conn = self.conn
            conn.execute(SCHEMA_VERSION_TABLE)
            current = conn.execute("SELECT max(version) FROM rg_schema_version").fetchone()[0] or 0
            now = to_us(utcnow())
            for version, statement in enumerate(MIGRATIONS, start=1):
                if version > current:
                    conn.execute(statement)
                    conn.execute(
                        "INSERT INTO rg_schema_version (version, applied_at) VALUES (?, ?)",
                        (version, now),
                    )
        return len(MIGRATIONS)

    # ------------------------------------------------------------------ merge primitives

    def _claim_flush(self, batch: MergeBatch) -> bool:
        cur = self.conn.execute(
            CLAIM_FLUSH,
            (
                batch.scope,
                batch.session_id,
                batch.flush_seq,
                to_us(batch.now),
                batch.hot_turn,
                len(batch.nodes),
                len(batch.edges),
                batch.person,
            ),
        )
        return cur.rowcount == 1

    def _claim_node_sightings(
        self, scope: str, session_id: str, ids: Sequence[str], now: datetime, person: str = ""
    ) -> set[str]:
        seen = {r[0] for r in self.conn.execute(SESSION_NODE_SIGHTINGS, (scope, session_id))}
        new = [i for i in ids if i not in seen]
        ts = to_us(now)
        rows = [(scope, i, session_id, ts, person) for i in new]
        self.conn.executemany(INSERT_NODE_SIGHTING, rows)
        return set(new)

    def _claim_edge_sightings(
        self, scope: str, session_id: str, keys: Sequence[EdgeKey], now: datetime, person: str = ""
    ) -> set[EdgeKey]:
        seen = {tuple(r) for r in self.conn.execute(SESSION_EDGE_SIGHTINGS, (scope, session_id))}
        new = [k for k in keys if k not in seen]
        ts = to_us(now)
        rows = [(scope, *k, session_id, ts, person) for k in new]
        self.conn.executemany(INSERT_EDGE_SIGHTING, rows)
        return set(new)

    def _select_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        out: dict[str, WarmNode] = {}
        for part in chunks(list(ids), CHUNK):
            sql = (
                f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? AND id IN ({_marks(len(part))})"
            )
            for row in self.conn.execute(sql, (scope, *part)):
                out[row[1]] = node_from_row(row)
        return out

    def _insert_nodes(self, rows: Sequence[WarmNode], person: str = "") -> set[str]:
        existing = self._select_nodes(rows[0].scope, [r.id for r in rows]) if rows else {}
        new = [r for r in rows if r.id not in existing]
        self.conn.executemany(INSERT_NODE, [(*node_to_row(r), person) for r in new])
        return {r.id for r in new}

    def _lock_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        return self._select_nodes(scope, ids)  # the IMMEDIATE transaction holds the lock

    def _update_nodes(self, rows: Sequence[WarmNode]) -> None:
        self.conn.executemany(UPDATE_NODE, [(*node_to_row(r)[2:], r.scope, r.id) for r in rows])

    def _select_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]:
        out: dict[EdgeKey, WarmEdge] = {}
        key_list = list(keys)
        for start in range(0, len(key_list), CHUNK // 3):
            part = key_list[start : start + CHUNK // 3]
            values = ", ".join("(?, ?, ?)" for _ in part)
            sql = (
                f"SELECT {EDGE_COLS} FROM rg_edges WHERE scope = ?"
                f" AND (source, relationship, target) IN (VALUES {values})"
            )
            for row in self.conn.execute(sql, (scope, *(v for k in part for v in k))):
                edge = edge_from_row(row)
                out[edge.key] = edge
        return out

    def _insert_edges(self, rows: Sequence[WarmEdge], person: str = "") -> set[EdgeKey]:
        existing = self._select_edges(rows[0].scope, [r.key for r in rows]) if rows else {}
        new = [r for r in rows if r.key not in existing]
        self.conn.executemany(
            INSERT_EDGE,
            [
                (
                    r.scope,
                    r.source,
                    r.relationship,
                    r.target,
                    r.strength,
                    r.sessions_seen,
                    to_us(r.first_seen),
                    to_us(r.last_seen),
                    person,
                )
                for r in new
            ],
        )
        return {r.key for r in new}

    def _lock_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]:
        return self._select_edges(scope, keys)

    def _update_edges(self, rows: Sequence[WarmEdge]) -> None:
        self.conn.executemany(
            UPDATE_EDGE,
            [
                (
                    r.strength,
                    r.sessions_seen,
                    to_us(r.first_seen),
                    to_us(r.last_seen),
                    r.scope,
                    r.source,
                    r.relationship,
                    r.target,
                )
                for r in rows
            ],
        )

    # ------------------------------------------------------------------ reads

    def reconciliations(
        self, *, scope: str = DEFAULT_SCOPE, session_id: str | None = None
    ) -> list[ReconciliationRecord]:
        sql = (
            "SELECT scope, session_id, flush_seq, applied_at, hot_turn, nodes, edges"
            " FROM rg_reconciliations WHERE scope = ? AND (? IS NULL OR session_id = ?)"
            " ORDER BY applied_at, session_id, flush_seq"
        )
        return [
            ReconciliationRecord(r[0], r[1], r[2], _dt(r[3]), r[4], r[5], r[6])
            for r in self._read(sql, (scope, session_id, session_id))
        ]

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
                found = {}
                for part in chunks(sorted(set(touching)), CHUNK // 2):
                    m = _marks(len(part))
                    sql = (
                        f"SELECT {EDGE_COLS} FROM rg_edges WHERE scope = ?"
                        f" AND (source IN ({m}) OR target IN ({m}))"
                    )
                    for row in self.conn.execute(sql, (scope, *part, *part)):
                        edge = edge_from_row(row)
                        found[edge.key] = edge
            else:
                rows = self._read(f"SELECT {EDGE_COLS} FROM rg_edges WHERE scope = ?", (scope,))
                found = {e.key: e for e in map(edge_from_row, rows)}
        return [found[k] for k in sorted(found)]

    def node_sessions(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        rows = self._read(
            "SELECT session_id FROM rg_node_sightings WHERE scope = ? AND node_id = ?"
            " ORDER BY session_id",
            (scope, node_id),
        )
        return [r[0] for r in rows]

    def session_node_ids(self, session_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        rows = self._read(SESSION_NODE_SIGHTINGS + " ORDER BY node_id", (scope, session_id))
        return [r[0] for r in rows]

    def adopt_scope(self, old: str, new: str) -> bool:
        if old == new:
            return False
        with self._lock, self._transaction():
            taken = self.conn.execute(
                "SELECT 1 FROM rg_reconciliations WHERE scope = ? UNION ALL"
                " SELECT 1 FROM rg_nodes WHERE scope = ? LIMIT 1",
                (new, new),
            ).fetchone()
            if taken is not None:
                return False
            moved = 0
            for table in SCOPED_TABLES:
                sql = f"UPDATE {table} SET scope = ? WHERE scope = ?"  # noqa: S608 - fixed names
                moved += self.conn.execute(sql, (new, old)).rowcount
        return moved > 0

    def counts(self, *, scope: str = DEFAULT_SCOPE) -> WarmCounts:
        row = self._read(COUNTS, {"s": scope})[0]
        return WarmCounts(*(int(v) for v in row))

    def search_nodes(
        self, words: Sequence[str], *, scopes: Sequence[str] | None = None, limit: int = 20
    ) -> list[tuple[WarmNode, int]]:
        words = [w for w in words if w][:MAX_SEARCH_WORDS]
        if not words or limit <= 0 or (scopes is not None and not scopes):
            return []
        # ``terms`` already holds the normalized id, label and aliases; LIKE ignores ASCII case.
        found = [
            f"(terms LIKE :w{i} ESCAPE '\\' OR coalesce(summary, '') LIKE :w{i} ESCAPE '\\')"
            for i in range(len(words))
        ]
        params: dict[str, Any] = {f"w{i}": like_pattern(w) for i, w in enumerate(words)}
        params.update({f"s{i}": sc for i, sc in enumerate(scopes or ())})
        in_scope = (
            f"scope IN ({', '.join(f':s{i}' for i in range(len(scopes)))}) AND " if scopes else ""
        )
        sql = (
            f"SELECT {NODE_COLS}, {' + '.join(found)} AS hits FROM rg_nodes"
            f" WHERE {in_scope}({' OR '.join(found)}) ORDER BY hits DESC, weight DESC, id LIMIT :n"
        )
        params["n"] = limit
        return [(node_from_row(r), int(r[-1])) for r in self._read(sql, params)]

    def session_nodes(
        self, session_id: str, *, scope: str = DEFAULT_SCOPE, limit: int = 50
    ) -> list[WarmNode]:
        sql = (
            f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? AND id IN (SELECT node_id"
            " FROM rg_node_sightings WHERE scope = ? AND session_id = ?)"
            " ORDER BY weight DESC, id LIMIT ?"
        )
        return [node_from_row(r) for r in self._read(sql, (scope, scope, session_id, limit))]

    def _find_nodes(self, scope: str, ids: Sequence[str], terms: Sequence[str]) -> list[WarmNode]:
        found = self._select_nodes(scope, ids) if ids else {}
        for part in chunks(list(terms), CHUNK):
            sql = (
                f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? AND EXISTS"
                f" (SELECT 1 FROM json_each(rg_nodes.terms) WHERE value IN ({_marks(len(part))}))"
            )
            for row in self._read(sql, (scope, *part)):
                found.setdefault(row[1], node_from_row(row))
        return list(found.values())

    def _top_nodes(self, scope: str, limit: int, now: datetime) -> list[WarmNode]:
        rows = self._read(TOP_NODES, (scope, to_us(now), self.params.tau_days, limit))
        return [node_from_row(r) for r in rows]

    def _recent_nodes(self, scope: str, limit: int) -> list[WarmNode]:
        return [node_from_row(r) for r in self._read(RECENT_NODES, (scope, limit))]

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
        rows = self._read(
            GRADUATION,
            (
                to_us(now),
                self.params.tau_days,
                scope,
                min_sessions,
                int(include_drafted),
                min_weight,
                min_edges,
            ),
        )
        out = []
        for row in rows:
            node = node_from_row(row[:16])
            out.append(
                GraduationCandidate(node, int(row[17]), effective_weight(node, now, self.params))
            )
        return out

    def anchors(
        self, *, scope: str = DEFAULT_SCOPE, at_floor_before: datetime | None = None
    ) -> list[WarmNode]:
        if at_floor_before is None:
            rows = self._read(ANCHORS + " ORDER BY at_floor_since, id", (scope,))
        else:
            rows = self._read(
                ANCHORS + " AND at_floor_since <= ? ORDER BY at_floor_since, id",
                (scope, to_us(at_floor_before)),
            )
        return [node_from_row(r) for r in rows]

    # ------------------------------------------------------------------ drafts

    def _lock_draft(self, scope: str, node_id: str) -> GraduationDraft | None:
        row = self.conn.execute(
            f"SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = ? AND node_id = ?", (scope, node_id)
        ).fetchone()
        return None if row is None else draft_from_row(row)

    def _write_draft(self, draft: GraduationDraft) -> None:
        self.conn.execute(
            UPSERT_DRAFT,
            (
                draft.scope,
                draft.node_id,
                draft.draft,
                draft.status,
                draft.final_text,
                to_us(draft.created_at),
                to_us(draft.updated_at),
                None if draft.reviewed_at is None else to_us(draft.reviewed_at),
            ),
        )

    def get_draft(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> GraduationDraft | None:
        rows = self._read(
            f"SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = ? AND node_id = ?", (scope, node_id)
        )
        return draft_from_row(rows[0]) if rows else None

    def list_drafts(
        self, *, scope: str = DEFAULT_SCOPE, status: DraftStatus | None = None
    ) -> list[GraduationDraft]:
        rows = self._read(
            f"SELECT {DRAFT_COLS} FROM rg_drafts WHERE scope = ? AND (? IS NULL OR status = ?)"
            " ORDER BY created_at, node_id",
            (scope, status, status),
        )
        return [draft_from_row(r) for r in rows]
