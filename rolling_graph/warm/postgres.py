"""PostgreSQL warm store (psycopg 3): the store for several machines or a team.

- psycopg is imported inside the class, so ``import rolling_graph.warm`` never loads it;
  a missing driver is reported as ``WarmStoreUnavailable`` naming the extra to install;
- every batch is one statement over ``unnest(array, …)`` parameters, never one round trip
  per row (a merge is ~9 round trips whatever its size);
- concurrent merges: sightings and new rows are claimed with ``ON CONFLICT DO NOTHING``,
  existing rows are locked in key order with ``SELECT … FOR UPDATE`` before the merge
  arithmetic reads them, and a deadlock or serialization failure retries the whole merge;
- an optional ``schema`` keeps the tables out of ``public`` (a shared database, or one
  schema per test); times are ``timestamptz`` and the session runs in UTC.

The SQL that is this backend's own (schema, ``unnest`` batches, arrays, the GIN term match)
is in this module, but for the team's roles and row-level security (``pg_team``); the reads
both backends share are written once over :data:`DIALECT` in :mod:`rolling_graph.warm._queries`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rolling_graph.warm._dialect import (
    EDGE_COLS,
    NODE_COLS,
    Dialect,
)
from rolling_graph.warm._sql import SqlWarmStore
from rolling_graph.warm.base import WarmStoreError, WarmStoreUnavailable
from rolling_graph.warm.merge import MergeParams, terms_json
from rolling_graph.warm.pg_team import MIGRATIONS as TEAM_MIGRATIONS
from rolling_graph.warm.records import EdgeKey, WarmEdge, WarmNode

if TYPE_CHECKING:
    import psycopg

# --------------------------------------------------------------------------- schema

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS rg_schema_version ("
    " version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
)
MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(hashtext('rolling_graph.warm.migrate'))"

MIGRATIONS: list[str] = [
    # 1
    """CREATE TABLE rg_nodes (
        scope text NOT NULL, id text NOT NULL, label text NOT NULL, domain text NOT NULL,
        weight double precision NOT NULL, summary text, aliases jsonb NOT NULL DEFAULT '[]',
        kind text, anchor boolean NOT NULL DEFAULT false,
        floor double precision NOT NULL DEFAULT 0, sessions_seen integer NOT NULL DEFAULT 0,
        first_seen timestamptz NOT NULL, last_seen timestamptz NOT NULL,
        at_floor_since timestamptz, terms jsonb NOT NULL DEFAULT '[]',
        PRIMARY KEY (scope, id))""",
    # 2
    "CREATE INDEX rg_nodes_recent ON rg_nodes (scope, last_seen DESC, id)",
    # 3
    "CREATE INDEX rg_nodes_anchor_floor ON rg_nodes (scope, at_floor_since, id) WHERE anchor",
    # 4
    "CREATE INDEX rg_nodes_terms ON rg_nodes USING gin (terms)",
    # 5
    """CREATE TABLE rg_edges (
        scope text NOT NULL, source text NOT NULL, relationship text NOT NULL,
        target text NOT NULL, strength double precision NOT NULL,
        sessions_seen integer NOT NULL DEFAULT 0, first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL, PRIMARY KEY (scope, source, relationship, target))""",
    # 6
    "CREATE INDEX rg_edges_target ON rg_edges (scope, target)",
    # 7
    """CREATE TABLE rg_node_sightings (
        scope text NOT NULL, node_id text NOT NULL, session_id text NOT NULL,
        first_seen timestamptz NOT NULL, PRIMARY KEY (scope, node_id, session_id))""",
    # 8
    "CREATE INDEX rg_node_sightings_session ON rg_node_sightings (scope, session_id)",
    # 9
    """CREATE TABLE rg_edge_sightings (
        scope text NOT NULL, source text NOT NULL, relationship text NOT NULL,
        target text NOT NULL, session_id text NOT NULL, first_seen timestamptz NOT NULL,
        PRIMARY KEY (scope, source, relationship, target, session_id))""",
    # 10
    "CREATE INDEX rg_edge_sightings_session ON rg_edge_sightings (scope, session_id)",
    # 11
    """CREATE TABLE rg_reconciliations (
        scope text NOT NULL, session_id text NOT NULL, flush_seq integer NOT NULL,
        applied_at timestamptz NOT NULL, hot_turn integer, nodes integer NOT NULL,
        edges integer NOT NULL, PRIMARY KEY (scope, session_id, flush_seq))""",
    # 12
    """CREATE TABLE rg_drafts (
        scope text NOT NULL, node_id text NOT NULL, draft text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'edited', 'rejected')),
        final_text text, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
        reviewed_at timestamptz, PRIMARY KEY (scope, node_id))""",
    # 13
    "CREATE INDEX rg_drafts_status ON rg_drafts (scope, status, created_at)",
    # 14-35 team (issue #20): person columns, the forget audit, row-level security
    *TEAM_MIGRATIONS,
    # 36: node attributes (task status, due date, role), a JSON object of strings (resume,
    # issue #13; appended after the team's steps, which shipped first)
    "ALTER TABLE rg_nodes ADD COLUMN attrs jsonb NOT NULL DEFAULT '{}'::jsonb",
]
"""Ordered schema steps; the position (1-based) is the version. Only ever append."""

# One row per array element; the arrays are parallel columns of the batch.
NODE_UNNEST = """unnest(%(id)s::text[], %(label)s::text[], %(domain)s::text[],
    %(weight)s::float8[], %(summary)s::text[], %(aliases)s::text[], %(kind)s::text[],
    %(anchor)s::bool[], %(floor)s::float8[], %(sessions_seen)s::int[],
    %(first_seen)s::timestamptz[], %(last_seen)s::timestamptz[],
    %(at_floor_since)s::timestamptz[], %(attrs)s::text[], %(terms)s::text[])
    AS t(id, label, domain, weight, summary, aliases, kind, anchor, floor, sessions_seen,
         first_seen, last_seen, at_floor_since, attrs, terms)"""
INSERT_NODES = f"""INSERT INTO rg_nodes ({NODE_COLS}, terms, person)
    SELECT %(scope)s, t.id, t.label, t.domain, t.weight, t.summary, t.aliases::jsonb, t.kind,
           t.anchor, t.floor, t.sessions_seen, t.first_seen, t.last_seen, t.at_floor_since,
           t.attrs::jsonb, t.terms::jsonb, %(person)s
    FROM {NODE_UNNEST} ORDER BY t.id
    ON CONFLICT (scope, id) DO NOTHING RETURNING id"""
LOCK_NODES = f"""SELECT {NODE_COLS} FROM rg_nodes
    WHERE scope = %s AND id = ANY(%s::text[]) ORDER BY id FOR UPDATE"""
UPDATE_NODES = f"""UPDATE rg_nodes AS n SET label = t.label, domain = t.domain,
    weight = t.weight, summary = t.summary, aliases = t.aliases::jsonb, kind = t.kind,
    anchor = t.anchor, floor = t.floor, sessions_seen = t.sessions_seen,
    first_seen = t.first_seen, last_seen = t.last_seen, at_floor_since = t.at_floor_since,
    attrs = t.attrs::jsonb, terms = t.terms::jsonb
    FROM {NODE_UNNEST} WHERE n.scope = %(scope)s AND n.id = t.id"""
EDGE_UNNEST = """unnest(%(source)s::text[], %(relationship)s::text[], %(target)s::text[],
    %(strength)s::float8[], %(sessions_seen)s::int[], %(first_seen)s::timestamptz[],
    %(last_seen)s::timestamptz[])
    AS t(source, relationship, target, strength, sessions_seen, first_seen, last_seen)"""
INSERT_EDGES = f"""INSERT INTO rg_edges ({EDGE_COLS}, person)
    SELECT %(scope)s, t.source, t.relationship, t.target, t.strength, t.sessions_seen,
           t.first_seen, t.last_seen, %(person)s
    FROM {EDGE_UNNEST} ORDER BY t.source, t.relationship, t.target
    ON CONFLICT (scope, source, relationship, target) DO NOTHING
    RETURNING source, relationship, target"""
KEYS_UNNEST = "unnest(%s::text[], %s::text[], %s::text[]) AS k(source, relationship, target)"
LOCK_EDGES = f"""SELECT e.scope, e.source, e.relationship, e.target, e.strength,
    e.sessions_seen, e.first_seen, e.last_seen
    FROM rg_edges e JOIN {KEYS_UNNEST}
      ON e.source = k.source AND e.relationship = k.relationship AND e.target = k.target
    WHERE e.scope = %s ORDER BY e.source, e.relationship, e.target FOR UPDATE OF e"""
SELECT_EDGES = LOCK_EDGES.replace(" FOR UPDATE OF e", "")
UPDATE_EDGES = f"""UPDATE rg_edges AS e SET strength = t.strength,
    sessions_seen = t.sessions_seen, first_seen = t.first_seen, last_seen = t.last_seen
    FROM {EDGE_UNNEST} WHERE e.scope = %(scope)s AND e.source = t.source
      AND e.relationship = t.relationship AND e.target = t.target"""
CLAIM_NODE_SIGHTINGS = """INSERT INTO rg_node_sightings
    (scope, node_id, session_id, first_seen, person)
    SELECT %s, i, %s, %s, %s FROM unnest(%s::text[]) AS t(i) ORDER BY i
    ON CONFLICT DO NOTHING RETURNING node_id"""
CLAIM_EDGE_SIGHTINGS = f"""INSERT INTO rg_edge_sightings
    (scope, source, relationship, target, session_id, first_seen, person)
    SELECT %s, k.source, k.relationship, k.target, %s, %s, %s FROM {KEYS_UNNEST}
    ORDER BY k.source, k.relationship, k.target
    ON CONFLICT DO NOTHING RETURNING source, relationship, target"""
# ``merge.warm_decay`` in SQL: the weight at ``%s`` (now) with ``%s`` (tau, days)
WEIGHT_NOW = """greatest(floor, least(1.0, greatest(0.0, weight)) * exp(
    -greatest(0.0, extract(epoch FROM (%s::timestamptz - last_seen))::float8)
    / 86400.0 / %s::float8))"""
FIND_NODES = f"""SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s
    AND (id = ANY(%s::text[]) OR terms ?| %s::text[])"""
TOUCHING_EDGES = f"""SELECT {EDGE_COLS} FROM rg_edges WHERE scope = %s
    AND (source = ANY(%s::text[]) OR target = ANY(%s::text[]))"""

# --------------------------------------------------------------------------- conversions


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _same(value: Any) -> Any:
    return value


DIALECT = Dialect(
    name="postgres",
    to_db=_same,  # timestamptz, the session in UTC
    from_db=_utc,
    loads=_same,  # jsonb comes back parsed
    text_param="%s::text",
    is_anchor="anchor",
    weight_now=WEIGHT_NOW,
    terms_text="terms::text",
    ilike="ILIKE",
    as_int="::int",
    for_update=" FOR UPDATE",
    sql=_same,
)


def node_arrays(rows: Sequence[WarmNode]) -> dict[str, Any]:
    return {
        "scope": rows[0].scope,
        "id": [r.id for r in rows],
        "label": [r.label for r in rows],
        "domain": [r.domain for r in rows],
        "weight": [r.weight for r in rows],
        "summary": [r.summary for r in rows],
        "aliases": [json.dumps(list(r.aliases)) for r in rows],
        "kind": [r.kind for r in rows],
        "anchor": [r.anchor for r in rows],
        "floor": [r.floor for r in rows],
        "sessions_seen": [r.sessions_seen for r in rows],
        "first_seen": [r.first_seen for r in rows],
        "last_seen": [r.last_seen for r in rows],
        "at_floor_since": [r.at_floor_since for r in rows],
        "attrs": [json.dumps(r.attrs, sort_keys=True) for r in rows],
        "terms": [terms_json(r) for r in rows],
    }


def edge_arrays(rows: Sequence[WarmEdge]) -> dict[str, Any]:
    return {
        "scope": rows[0].scope,
        "source": [r.source for r in rows],
        "relationship": [r.relationship for r in rows],
        "target": [r.target for r in rows],
        "strength": [r.strength for r in rows],
        "sessions_seen": [r.sessions_seen for r in rows],
        "first_seen": [r.first_seen for r in rows],
        "last_seen": [r.last_seen for r in rows],
    }


def _key_arrays(keys: Sequence[EdgeKey]) -> tuple[list[str], list[str], list[str]]:
    return [k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]


# --------------------------------------------------------------------------- store


class PostgresWarmStore(SqlWarmStore):
    """Warm store in a PostgreSQL database (optionally in its own ``schema``)."""

    dialect = DIALECT

    def __init__(
        self,
        dsn: str,
        *,
        schema: str | None = None,
        params: MergeParams | None = None,
        connect_timeout_s: int = 5,
    ) -> None:
        super().__init__(params)
        self.dsn = dsn
        self.schema = schema
        self.connect_timeout_s = connect_timeout_s
        self._conn: psycopg.Connection[Any] | None = None

    def __repr__(self) -> str:
        return f"PostgresWarmStore(schema={self.schema!r})"  # never print the DSN (password)

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> None:
        if self._conn is not None and not self._conn.closed:
            return
        try:
            import psycopg
            from psycopg import conninfo, sql
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise WarmStoreUnavailable(
                "PostgreSQL warm store needs psycopg: pip install 'rolling-graph[postgres]'"
            ) from exc
        kwargs: dict[str, Any] = {"autocommit": True}
        try:
            if "connect_timeout" not in conninfo.conninfo_to_dict(self.dsn):
                kwargs["connect_timeout"] = self.connect_timeout_s
            conn = psycopg.connect(self.dsn, **kwargs)
        except (psycopg.Error, ValueError) as exc:
            raise WarmStoreUnavailable(f"cannot connect to PostgreSQL warm store: {exc}") from exc
        try:
            conn.execute("SET TimeZone = 'UTC'")
            if self.schema:
                conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        except psycopg.Error as exc:
            conn.close()
            raise WarmStoreUnavailable(f"cannot set up PostgreSQL session: {exc}") from exc
        self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def conn(self) -> psycopg.Connection[Any]:
        if self._conn is None:
            raise WarmStoreError("store is not open (use it as a context manager)")
        return self._conn

    def _unavailable(self, exc: Exception) -> Exception:
        import psycopg

        if isinstance(exc, psycopg.OperationalError) and (self.conn.broken or self.conn.closed):
            return WarmStoreUnavailable(f"PostgreSQL warm store connection lost: {exc}")
        if isinstance(exc, psycopg.errors.UndefinedTable):
            return WarmStoreError("warm store is not migrated (call migrate())")
        return exc

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        import psycopg

        with self._lock:
            try:
                with self.conn.transaction():
                    yield
            except psycopg.Error as exc:
                translated = self._unavailable(exc)
                if translated is exc:
                    raise
                raise translated from exc

    def _is_retryable(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(
            exc, psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure
        )

    def _read(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        import psycopg

        with self._lock:
            try:
                return self.conn.execute(query, params).fetchall()
            except psycopg.Error as exc:
                translated = self._unavailable(exc)
                if translated is exc:
                    raise
                raise translated from exc

    # ------------------------------------------------------------------ migrations

    def schema_version(self) -> int:
        rows = self._read("SELECT to_regclass('rg_schema_version') IS NOT NULL")
        if not rows[0][0]:
            return 0
        row = self._read("SELECT max(version) FROM rg_schema_version")[0]
        return int(row[0] or 0)

    def migrate(self) -> int:
        from psycopg import sql

        if self.schema_version() >= len(MIGRATIONS):
            # Up to date: no DDL, so a teammate's role (no CREATE right) can open the store.
            return len(MIGRATIONS)
        with self._transaction():
            conn = self.conn
            conn.execute(MIGRATION_LOCK)
            if self.schema:
                conn.execute(
                    sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema))
                )
            conn.execute(SCHEMA_VERSION_TABLE)
            row = conn.execute("SELECT max(version) FROM rg_schema_version").fetchone()
            current = int(row[0] or 0) if row else 0
            for version, statement in enumerate(MIGRATIONS, start=1):
                if version > current:
                    conn.execute(statement)  # type: ignore[arg-type]
                    conn.execute("INSERT INTO rg_schema_version (version) VALUES (%s)", (version,))
        return len(MIGRATIONS)

    # ------------------------------------------------------------------ merge primitives

    def _claim_node_sightings(
        self, scope: str, session_id: str, ids: Sequence[str], now: datetime, person: str = ""
    ) -> set[str]:
        if not ids:
            return set()
        cur = self.conn.execute(CLAIM_NODE_SIGHTINGS, (scope, session_id, now, person, list(ids)))
        return {r[0] for r in cur.fetchall()}

    def _claim_edge_sightings(
        self, scope: str, session_id: str, keys: Sequence[EdgeKey], now: datetime, person: str = ""
    ) -> set[EdgeKey]:
        if not keys:
            return set()
        params = (scope, session_id, now, person, *_key_arrays(keys))
        cur = self.conn.execute(CLAIM_EDGE_SIGHTINGS, params)
        return {(r[0], r[1], r[2]) for r in cur.fetchall()}

    def _insert_nodes(self, rows: Sequence[WarmNode], person: str = "") -> set[str]:
        params = {**node_arrays(rows), "person": person}
        return {r[0] for r in self.conn.execute(INSERT_NODES, params).fetchall()}

    def _lock_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        rows = self.conn.execute(LOCK_NODES, (scope, list(ids))).fetchall()
        return {r[1]: self._node(r, DIALECT) for r in rows}

    def _update_nodes(self, rows: Sequence[WarmNode]) -> None:
        self.conn.execute(UPDATE_NODES, node_arrays(rows))

    def _insert_edges(self, rows: Sequence[WarmEdge], person: str = "") -> set[EdgeKey]:
        cur = self.conn.execute(INSERT_EDGES, {**edge_arrays(rows), "person": person})
        return {(r[0], r[1], r[2]) for r in cur.fetchall()}

    def _lock_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]:
        rows = self.conn.execute(LOCK_EDGES, (*_key_arrays(keys), scope)).fetchall()
        return {(r[1], r[2], r[3]): self._edge(r, DIALECT) for r in rows}

    def _update_edges(self, rows: Sequence[WarmEdge]) -> None:
        self.conn.execute(UPDATE_EDGES, edge_arrays(rows))

    # ------------------------------------------------------------------ reads

    def _select_nodes(self, scope: str, ids: Sequence[str]) -> dict[str, WarmNode]:
        rows = self._read(
            f"SELECT {NODE_COLS} FROM rg_nodes WHERE scope = %s AND id = ANY(%s::text[])",
            (scope, list(ids)),
        )
        return {r[1]: self._node(r, DIALECT) for r in rows}

    def _select_edges(self, scope: str, keys: Sequence[EdgeKey]) -> dict[EdgeKey, WarmEdge]:
        rows = self._read(SELECT_EDGES, (*_key_arrays(keys), scope))
        return {e.key: e for e in (self._edge(r, DIALECT) for r in rows)}

    def _touching_rows(self, scope: str, ids: Sequence[str]) -> list[Any]:
        return self._read(TOUCHING_EDGES, (scope, list(ids), list(ids)))

    def _adopt_lock(self, old: str) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ("rg-adopt:" + old,))

    def _find_nodes(self, scope: str, ids: Sequence[str], terms: Sequence[str]) -> list[WarmNode]:
        rows = self._read(FIND_NODES, (scope, list(ids), list(terms)))
        return [self._node(r, DIALECT) for r in rows]
