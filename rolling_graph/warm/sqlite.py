"""SQLite warm store (stdlib ``sqlite3``): the zero-set-up default, one file per user.

- WAL journal, so readers (a hook rendering a block) never wait on a merging writer;
- a busy timeout, so a second process waits for the lock instead of failing;
- ``BEGIN IMMEDIATE`` for every write: the write lock is taken *before* the merge reads the
  current rows, so two processes reconciling at once serialize and lose no update;
- times are stored as integer microseconds since the Unix epoch (UTC): exact round trips
  and plain integer comparisons;
- aliases and the normalized match terms are JSON arrays (``json_each`` to match them).

The SQL that is this backend's own (schema, batched writes, id lists in chunks, term
matching) is in this module; the reads both backends share are written once over
:data:`DIALECT` in :mod:`rolling_graph.warm._queries`.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.paths import private_db
from rolling_graph.warm._dialect import (
    EDGE_COLS,
    NODE_COLS,
    Dialect,
    qmark,
)
from rolling_graph.warm._sql import SqlWarmStore, chunks, utcnow
from rolling_graph.warm.base import WarmStoreError, WarmStoreUnavailable
from rolling_graph.warm.merge import MergeParams, terms_json, warm_decay
from rolling_graph.warm.records import EPOCH, EdgeKey, WarmEdge, WarmNode

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

#: what ``node_to_row`` writes: the read columns but ``attrs``, then ``terms`` and ``attrs``
NODE_WRITE_COLS = NODE_COLS.replace(", attrs", ", terms, attrs")

# node_to_row's 16 values (NODE_WRITE_COLS) and the writer's person
INSERT_NODE = f"INSERT INTO rg_nodes ({NODE_WRITE_COLS}, person) VALUES ({', '.join('?' * 17)})"
UPDATE_NODE = """UPDATE rg_nodes SET label = ?, domain = ?, weight = ?, summary = ?, aliases = ?,
    kind = ?, anchor = ?, floor = ?, sessions_seen = ?, first_seen = ?, last_seen = ?,
    at_floor_since = ?, terms = ?, attrs = ? WHERE scope = ? AND id = ?"""
INSERT_EDGE = f"INSERT INTO rg_edges ({EDGE_COLS}, person) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
UPDATE_EDGE = """UPDATE rg_edges SET strength = ?, sessions_seen = ?, first_seen = ?,
    last_seen = ? WHERE scope = ? AND source = ? AND relationship = ? AND target = ?"""
SESSION_NODE_SIGHTINGS = "SELECT node_id FROM rg_node_sightings WHERE scope = ? AND session_id = ?"
INSERT_NODE_SIGHTING = """INSERT INTO rg_node_sightings
    (scope, node_id, session_id, first_seen, person) VALUES (?, ?, ?, ?, ?)"""
SESSION_EDGE_SIGHTINGS = (
    "SELECT source, relationship, target FROM rg_edge_sightings WHERE scope = ? AND session_id = ?"
)
INSERT_EDGE_SIGHTING = """INSERT INTO rg_edge_sightings
    (scope, source, relationship, target, session_id, first_seen, person)
    VALUES (?, ?, ?, ?, ?, ?, ?)"""

CHUNK = 400
TOP_KEYS = "SELECT id, weight, floor, last_seen FROM rg_nodes WHERE scope = ?"


# --------------------------------------------------------------------------- conversions


def to_us(value: datetime) -> int:
    """UTC datetime → integer microseconds since the epoch (exact)."""
    return (value - EPOCH) // timedelta(microseconds=1)


@functools.lru_cache(maxsize=16_384)
def _dt(value: int) -> datetime:
    # Rows of one flush share their times: a warm read meets the same few values again and
    # again (datetimes are immutable, so sharing them is safe).
    return EPOCH + timedelta(microseconds=int(value))


def _loads(value: str | None) -> Any:
    if value == "[]" or value == "{}":  # most aliases and attrs: skip the parser
        return [] if value == "[]" else {}
    return json.loads(value) if value else None


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


def _weight_now(weight: float, floor: float, last_seen: int, now: int, tau: float) -> float:
    days = max(0.0, (now - last_seen) / 86_400_000_000)
    return warm_decay(weight, days, floor=floor, tau_days=tau)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


DIALECT = Dialect(
    name="sqlite",
    to_db=to_us,
    from_db=_dt,
    loads=_loads,
    text_param="%s",
    is_anchor="anchor = 1",  # as the partial index rg_nodes_anchor_floor says it
    # ``rg_weight_now`` is ``merge.warm_decay`` registered as a SQL function (see ``open``).
    weight_now="rg_weight_now(weight, floor, last_seen, %s, %s)",
    terms_text="terms",
    ilike="LIKE",  # ASCII case already ignored
    as_int="",
    for_update="",  # the IMMEDIATE transaction holds the write lock
    sql=qmark,
)


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


#: pages a batch writer lets its WAL grow to before a checkpoint (SQLite's default is 1,000)
BATCH_CHECKPOINT_PAGES = 16_384  # 64 MiB of 4 KiB pages


class SQLiteWarmStore(SqlWarmStore):
    """Warm store in one SQLite file (``":memory:"`` for a private throwaway store)."""

    dialect = DIALECT

    def __init__(
        self,
        path: str | Path,
        *,
        params: MergeParams | None = None,
        busy_timeout_s: float = 30.0,
        batch: bool = False,
    ) -> None:
        super().__init__(params)
        self.path = str(path)
        self.busy_timeout_s = busy_timeout_s
        # A batch writer (a replay) checkpoints the WAL rarely, and at close: SQLite's
        # automatic checkpoint (every 1,000 pages, an fsync of the database file) would land
        # in whichever session's flush crosses it, one in ten (10 ms of a 35-event session's
        # 170). The WAL stays bounded: 34 sessions write ~26 MB of it.
        self.batch = batch
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
            if self.batch:
                conn.execute(f"PRAGMA wal_autocheckpoint = {BATCH_CHECKPOINT_PAGES}")
        except (sqlite3.Error, OSError) as exc:
            raise WarmStoreUnavailable(f"cannot open SQLite warm store {self.path}: {exc}") from exc
        conn.create_function("rg_weight_now", 5, _weight_now, deterministic=True)
        self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            if self.batch:
                # a reader holding the WAL makes it fail: the next writer's checkpoint moves it
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
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

    def _node_rows(self, cols: str, scope: str, ids: Sequence[str]) -> Iterator[Any]:
        for part in chunks(list(ids), CHUNK):
            sql = f"SELECT {cols} FROM rg_nodes WHERE scope = ? AND id IN ({_marks(len(part))})"
            yield from self.conn.execute(sql, (scope, *part))

    def _select_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        return {row[1]: self._node(row, DIALECT) for row in self._node_rows(NODE_COLS, scope, ids)}

    def _insert_nodes(self, rows: Sequence[WarmNode], person: str = "") -> set[str]:
        # Which rows exist is all this asks: their ids, not whole rows made into records.
        ids = [r.id for r in rows]
        existing = {row[0] for row in self._node_rows("id", rows[0].scope, ids)} if rows else set()
        new = [r for r in rows if r.id not in existing]
        self.conn.executemany(INSERT_NODE, [(*node_to_row(r), person) for r in new])
        return {r.id for r in new}

    def _lock_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        return self._select_nodes(scope, ids)  # the IMMEDIATE transaction holds the lock

    def _update_nodes(self, rows: Sequence[WarmNode]) -> None:
        self.conn.executemany(UPDATE_NODE, [(*node_to_row(r)[2:], r.scope, r.id) for r in rows])

    def _edge_rows(self, cols: str, scope: str, keys: Sequence[EdgeKey]) -> Iterator[Any]:
        key_list = list(keys)
        for start in range(0, len(key_list), CHUNK // 3):
            part = key_list[start : start + CHUNK // 3]
            values = ", ".join("(?, ?, ?)" for _ in part)
            sql = (
                f"SELECT {cols} FROM rg_edges WHERE scope = ?"
                f" AND (source, relationship, target) IN (VALUES {values})"
            )
            yield from self.conn.execute(sql, (scope, *(v for k in part for v in k)))

    def _select_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]:
        edges = (self._edge(row, DIALECT) for row in self._edge_rows(EDGE_COLS, scope, keys))
        return {edge.key: edge for edge in edges}

    def _insert_edges(self, rows: Sequence[WarmEdge], person: str = "") -> set[EdgeKey]:
        keys, cols = [r.key for r in rows], "source, relationship, target"
        existing = (
            {tuple(row) for row in self._edge_rows(cols, rows[0].scope, keys)} if rows else set()
        )
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

    def _touching_rows(self, scope: str, ids: Sequence[str]) -> list[Any]:
        rows: list[Any] = []
        for part in chunks(list(ids), CHUNK // 2):
            m = _marks(len(part))
            sql = (
                f"SELECT {EDGE_COLS} FROM rg_edges WHERE scope = ?"
                f" AND (source IN ({m}) OR target IN ({m}))"
            )
            rows += self.conn.execute(sql, (scope, *part, *part)).fetchall()
        return rows

    def _top_nodes(self, scope: str, limit: int, now: datetime) -> list[WarmNode]:
        """As the shared statement orders them (``rg_weight_now`` descending, then id), ranked
        here from four narrow columns with the same function: no SQL-to-Python call per row,
        and whole rows (JSON, times) are read for the ``limit`` kept only."""
        at, tau = to_us(now), self.params.tau_days
        keys = self._read(TOP_KEYS, (scope,))
        best = heapq.nsmallest(
            limit, keys, key=lambda r: (-_weight_now(r[1], r[2], r[3], at, tau), r[0])
        )
        found = self._select_nodes(scope, [r[0] for r in best])
        return [found[r[0]] for r in best if r[0] in found]

    def _find_nodes(self, scope: str, ids: Sequence[str], terms: Sequence[str]) -> list[WarmNode]:
        found = self._select_nodes(scope, ids) if ids else {}
        for part in chunks(list(terms), CHUNK):
            sql = (
                f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = ? AND EXISTS"
                f" (SELECT 1 FROM json_each(rg_nodes.terms) WHERE value IN ({_marks(len(part))}))"
            )
            for row in self._read(sql, (scope, *part)):
                found.setdefault(row[1], self._node(row, DIALECT))
        return list(found.values())
