"""A team on one PostgreSQL warm store: row-level security and ``warm init-team``.

Project rows are shared by the team; a person's own scope (``~<role>``) is visible to that
role only. The database enforces it, not the client: every table with a ``scope`` column has
row-level security with one policy, keyed on ``current_user`` (the role the server
authenticated; a session setting could be set to anything by the client, so none is
trusted). The table owner (the admin who ran the migrations) is exempt, as PostgreSQL makes
owners by default: that role runs ``init-team`` and answers ``forget --person`` requests.

``init_team`` creates a group role with the table rights, one login role per person (member
of the group, never a superuser or ``BYPASSRLS``), and reports each statement it ran.

psycopg is imported inside functions only, like the backend itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

TEAM_ROLE = "rolling_graph_team"
PERSON_TABLES = (
    "rg_nodes",
    "rg_edges",
    "rg_node_sightings",
    "rg_edge_sightings",
    "rg_reconciliations",
    "rg_drafts",
)
SCOPED_TABLES = (*PERSON_TABLES, "rg_forgotten")
# A row is visible and writable when it belongs to a project, or to the connected role's own
# scope. ``~`` never starts a project key (see ``identity.project_scope``).
VISIBLE = "left(scope, 1) <> '~' OR scope = '~' || current_user"

MIGRATIONS: list[str] = [
    *(f"ALTER TABLE {t} ADD COLUMN person text NOT NULL DEFAULT ''" for t in PERSON_TABLES),
    "CREATE INDEX rg_nodes_person ON rg_nodes (person)",
    """CREATE TABLE rg_forgotten (
        scope text NOT NULL, person text NOT NULL, at text NOT NULL, selector text NOT NULL,
        removed text NOT NULL)""",
    *(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY" for t in SCOPED_TABLES),
    *(
        f"CREATE POLICY rg_own_or_project ON {t} USING ({VISIBLE}) WITH CHECK ({VISIBLE})"
        for t in SCOPED_TABLES
    ),
]
"""Appended to the backend's migrations (self-contained: person columns, audit, policies)."""


@dataclass
class TeamSetup:
    """What ``init_team`` did: the statements run (secrets masked), and per-person notes."""

    schema: str
    statements: list[str] = field(default_factory=list)
    passwords: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def scram_verifier(password: str, *, salt: bytes | None = None, iterations: int = 4096) -> str:
    """A SCRAM-SHA-256 verifier, as ``psql``'s ``\\password`` sends it: the server (and its
    statement log) never sees the password itself. (ASCII passwords need no SASLprep.)"""
    salt = salt or secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()
    b64 = base64.b64encode
    return (
        f"SCRAM-SHA-256${iterations}:{b64(salt).decode()}"
        f"${b64(stored_key).decode()}:{b64(server_key).decode()}"
    )


def _role_flags(conn: Any, role: str) -> tuple[bool, bool, bool] | None:
    row = conn.execute(
        "SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = %s", (role,)
    ).fetchone()
    return None if row is None else (bool(row[0]), bool(row[1]), bool(row[2]))


def init_team(store: Any, people: list[str], *, passwords: bool = False) -> TeamSetup:
    """Create the team role, grants and one login role per person on an open, migrated
    ``PostgresWarmStore`` connected as the tables' owner. Idempotent."""
    from psycopg import sql

    conn = store.conn
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    setup = TeamSetup(schema=schema)
    team, sch = sql.Identifier(TEAM_ROLE), sql.Identifier(schema)

    def run(statement: Any, shown: str | None = None, params: tuple[Any, ...] = ()) -> None:
        conn.execute(statement, params)
        setup.statements.append(shown or statement.as_string(conn))

    with store._lock, conn.transaction():
        if _role_flags(conn, TEAM_ROLE) is None:
            run(sql.SQL("CREATE ROLE {} NOLOGIN").format(team))
        run(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sch, team))
        # Only our tables: the schema may be a shared database's ``public``.
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename LIKE 'rg\\_%%'"
                " ORDER BY tablename",
                (schema,),
            )
        ]
        for table in tables:
            rights = "SELECT" if table == "rg_schema_version" else "SELECT, INSERT, UPDATE, DELETE"
            target = sql.Identifier(schema, table)
            run(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(rights), target, team))
        owner = conn.execute(
            "SELECT tableowner FROM pg_tables WHERE schemaname = %s AND tablename = 'rg_nodes'",
            (schema,),
        ).fetchone()
        for person in people:
            role = sql.Identifier(person)
            flags = _role_flags(conn, person)
            if flags is None:
                run(sql.SQL("CREATE ROLE {} LOGIN").format(role))
            elif flags[0] or flags[1] or (owner and owner[0] == person):
                setup.warnings.append(
                    f"role {person!r} is a superuser, has BYPASSRLS or owns the tables: the"
                    " database will not keep other people's personal rows from it"
                )
            run(sql.SQL("GRANT {} TO {}").format(team, role))
            if passwords:
                secret = secrets.token_urlsafe(18)
                verifier = sql.Literal(scram_verifier(secret))
                run(
                    sql.SQL("ALTER ROLE {} PASSWORD {}").format(role, verifier),
                    shown=f"ALTER ROLE {role.as_string(conn)} PASSWORD 'SCRAM-SHA-256$…'",
                )
                setup.passwords[person] = secret
    return setup
