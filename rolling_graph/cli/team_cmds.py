"""``warm init-team``, ``warm forget`` and ``warm export``: a team's shared warm store.

The store is the configured one (``ROLLING_GRAPH_WARM``); ``--dsn`` names another (the admin's
connection for ``init-team``). Every command prints what it did; ``--json`` for scripts.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from rolling_graph.cli.common import settings


def _open(dsn: str | None) -> tuple[Any, str, str]:
    """The open store, the person and their own scope."""
    from rolling_graph.warm import open_store
    from rolling_graph.warm.base import WarmStoreError
    from rolling_graph.warm.identity import own_scope, person_for
    from rolling_graph.warm.reconcile import store_params

    s = settings()
    url = dsn or s.warm or None
    try:
        store = open_store(url, Path(s.home), params=store_params(s))
    except WarmStoreError as err:
        raise click.ClickException(f"warm store unavailable: {err}") from None
    person = person_for(url, s.person)
    return store, person, own_scope(url, person)


def _project(scope: str | None) -> str:
    if scope is not None:
        return scope
    from rolling_graph.warm.reconcile import project_scope

    key = project_scope(settings(), os.getcwd())
    if not key:
        # Outside a repository the session's scope is the person's own: not a project.
        raise click.ClickException("not in a project (no git work tree here): pass --scope")
    return key


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    # A database refusal (row-level security, missing rights) is an answer, not a crash.
    try:
        yield
    except click.ClickException:
        raise
    except Exception as err:  # noqa: BLE001 - psycopg and sqlite3 errors alike
        raise click.ClickException(f"refused by the warm store: {err}") from None


@click.group("warm")
def warm_group() -> None:
    """The warm store shared by a team: roles and policies, privacy requests, export."""


@warm_group.command("init-team")
@click.argument("people", nargs=-1)
@click.option("--dsn", help="Connect with this DSN (the tables' owner), not ROLLING_GRAPH_WARM.")
@click.option("--passwords", is_flag=True, help="Give each new login role a random password.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def init_team_cmd(people: tuple[str, ...], dsn: str | None, passwords: bool, as_json: bool) -> None:
    """Set up a PostgreSQL warm store for a team: migrate it (tables, row-level security),
    create the rolling_graph_team role with the table rights and one login role per PERSON.

    Run it as the tables' owner (an admin role); run it again to add people. The admin's
    password comes from the DSN, PGPASSWORD or ~/.pgpass, else a prompt on a terminal.
    """
    from rolling_graph.warm.identity import is_postgres_url
    from rolling_graph.warm.pg_team import TEAM_ROLE, init_team

    url = dsn or settings().warm
    if not is_postgres_url(url):
        raise click.ClickException(
            "init-team needs a PostgreSQL store (--dsn or ROLLING_GRAPH_WARM)"
        )
    from rolling_graph.cli.pg_password import NEXT_STEP, password_source

    source = password_source(url)  # may prompt (on a terminal) before connecting
    if not as_json:
        click.echo(source, err=True)
    try:
        store, _, _ = _open(url)
    except click.ClickException as err:
        if "password" in err.message:
            err.message += f"; {NEXT_STEP}"
        raise
    with store, _refused():
        setup = init_team(store, list(people), passwords=passwords)
        version = store.schema_version()
    if as_json:
        click.echo(json.dumps({**setup.__dict__, "schema_version": version}))
        return
    click.echo(f"warm store migrated to version {version} (row-level security on)")
    for statement in setup.statements:
        click.echo(f"  {statement};")
    for warning in setup.warnings:
        click.echo(f"warning: {warning}", err=True)
    for person, secret in setup.passwords.items():
        click.echo(f"password for {person} (shown once): {secret}")
    click.echo(f"members of {TEAM_ROLE} share project memory; each one's own scope is ~<role>")


@warm_group.command("forget")
@click.argument("nodes", nargs=-1)
@click.option("--scope", default=None, help="Scope of NODE (default: the current project).")
@click.option("--own", is_flag=True, help="NODE is in your own scope, not the project's.")
@click.option("--person", "person_opt", metavar="NAME", help="Forget a person (yourself: --me).")
@click.option("--me", is_flag=True, help="Forget yourself: your own scope and your traces.")
@click.option("--project", "project_flag", is_flag=True, help="Forget the whole project scope.")
@click.option("--dsn", help="Connect with this DSN instead of ROLLING_GRAPH_WARM.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit record as JSON.")
def forget_cmd(
    nodes: tuple[str, ...],
    scope: str | None,
    own: bool,
    person_opt: str | None,
    me: bool,
    project_flag: bool,
    dsn: str | None,
    as_json: bool,
) -> None:
    """Remove warm rows for a privacy request: NODE… (with their edges, sightings and drafts),
    a person (--person NAME / --me) or a project (--project). What was removed is recorded
    in the store's audit (`warm forgotten`) and printed."""
    from rolling_graph.warm.data_requests import forget_nodes, forget_person, forget_project
    from rolling_graph.warm.identity import own_scope

    chosen = sum((bool(nodes), bool(person_opt) or me, project_flag))
    if chosen != 1:
        raise click.UsageError("give exactly one of NODE…, --person/--me or --project")
    store, me_person, mine = _open(dsn)
    with store, _refused():
        if nodes:
            target = mine if own else _project(scope)
            report = forget_nodes(store, target, list(nodes), actor=me_person)
        elif project_flag:
            report = forget_project(store, _project(scope), actor=me_person)
        else:
            who = me_person if me else str(person_opt)
            report = forget_person(
                store, who, own_scope(dsn or settings().warm, who), actor=me_person
            )
    if as_json:
        click.echo(json.dumps(report.as_dict()))
        return
    click.echo(
        f"forgot {report.selector} (scope {report.scope or '(person)'}): {report.total} rows"
    )
    for table, n in sorted(report.removed.items()):
        if n:
            click.echo(f"  {table}: {n} removed")
    for table, n in sorted(report.anonymized.items()):
        if n:
            click.echo(f"  {table}: {n} unnamed")


@warm_group.command("forgotten")
@click.option("--dsn", help="Connect with this DSN instead of ROLLING_GRAPH_WARM.")
def forgotten_cmd(dsn: str | None) -> None:
    """The audit of past `warm forget` requests (that you may see), as JSON lines."""
    from rolling_graph.warm.data_requests import forgotten

    store, _, _ = _open(dsn)
    with store:
        entries = forgotten(store)
    for entry in entries:
        click.echo(json.dumps(entry))
    if not entries:  # on stderr: stdout stays valid JSON lines (none)
        click.echo("nothing forgotten yet (no `warm forget` request you may see)", err=True)


@warm_group.command("export")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), help="Write here.")
@click.option("--dsn", help="Connect with this DSN instead of ROLLING_GRAPH_WARM.")
def export_cmd(out: Path | None, dsn: str | None) -> None:
    """Your own memories as JSON: your own scope in full, and the shared nodes you brought in."""
    from rolling_graph.warm.data_requests import export_memories

    store, person, mine = _open(dsn)
    with store:
        doc = export_memories(store, person, mine)
    text = json.dumps(doc, indent=2)
    if out is None:
        click.echo(text)
        return
    out.write_text(text + "\n")
    shared = sum(len(p["nodes"]) for p in doc["shared"].values())
    click.echo(f"{len(doc['own']['nodes'])} own and {shared} shared nodes of {person} → {out}")


COMMANDS = [warm_group]
