"""``view`` (the interactive HTML file) and ``graph`` (what Claude Code's ``/graph`` runs)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from rolling_graph.cli.common import echo_notices, resolve_session, session_option, settings, store
from rolling_graph.core.model import HotGraph
from rolling_graph.view.history import History

# /graph goes into the agent's prompt: a few heaviest nodes per domain, then a count.
TREE_PER_DOMAIN = 15


def open_session(session_id: str | None) -> tuple[Any, History]:
    """A session (``HotSession``) and its audit history; nothing is changed by opening it."""
    from rolling_graph.core.session import HotSession, SessionParams
    from rolling_graph.view.history import read_history

    s = settings()
    st = store(s)
    sid = resolve_session(st, session_id)
    sess = HotSession.open(st, sid, SessionParams.from_settings(s))
    echo_notices(sess.notices)
    return sess, read_history(st.audit(sid).records())


def hot_graph(session_id: str | None) -> tuple[HotGraph, History]:
    sess, history = open_session(session_id)
    return sess.graph, history


def warm_graph(scope: str) -> HotGraph:
    """A warm-store scope as a graph document: weights decayed to now, wall time as turn 0."""
    from rolling_graph.core.model import ANCHOR_FLOOR, DOMAINS, KINDS, Edge, Node
    from rolling_graph.warm import open_store
    from rolling_graph.warm.base import WarmStoreUnavailable
    from rolling_graph.warm.merge import effective_strength, effective_weight
    from rolling_graph.warm.reconcile import store_params

    s = settings()
    params = store_params(s)
    try:
        warm = open_store(s.warm or None, Path(s.home), params=params)
    except WarmStoreUnavailable as err:
        raise click.ClickException(f"warm store unavailable: {err}") from None
    now = datetime.now(UTC)
    with warm:
        n = warm.counts(scope=scope).nodes
        branches = warm.load_branches(scope=scope, top=n, recent=0, neighbors=0, now=now)
        edges = warm.get_edges(scope=scope)
    graph = HotGraph(session_id=f"warm:{scope or '(person)'}")
    for wn in branches.nodes:
        weight = min(1.0, max(wn.floor, effective_weight(wn, now, params)))
        graph.nodes[wn.id] = Node(
            id=wn.id,
            label=(wn.label or wn.id)[:80],
            domain=wn.domain if wn.domain in DOMAINS else "project",  # type: ignore[arg-type]
            weight=round(max(weight, ANCHOR_FLOOR) if wn.anchor else weight, 6),
            last_activated=0,
            summary=(wn.summary or "")[:200] or None,
            aliases=list(wn.aliases)[:8],
            anchor=bool(wn.anchor),
            kind=wn.kind if wn.kind in KINDS else None,  # type: ignore[arg-type]
        )
    for we in edges:
        if we.source in graph.nodes and we.target in graph.nodes and we.source != we.target:
            e = Edge(
                source=we.source,
                target=we.target,
                relationship=we.relationship,
                strength=round(min(1.0, max(0.0, effective_strength(we, now, params))), 6),
            )
            graph.edges[e.key] = e
    return graph


def _scope_of(project: str | None) -> str:
    if project is not None:
        return project
    from rolling_graph.warm.identity import own_scope, person_for
    from rolling_graph.warm.reconcile import project_scope

    s = settings()  # outside a repository: the person's own scope, as the sessions there
    return project_scope(s, os.getcwd(), own_scope(s.warm, person_for(s.warm, s.person)))


def write_view(graph: HotGraph, history: History, out: Path | None, title: str = "") -> Path:
    from rolling_graph.core.hotstore import atomic_write_bytes
    from rolling_graph.view.page import render_html

    if out is None:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in graph.session_id)
        out = Path(settings().home) / "views" / f"{safe}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out, render_html(graph, history, title).encode("utf-8"), durable=False)
    return out.resolve()


@click.command("view")
@session_option
@click.option("--project", default=None, help="A project's warm graph (its scope key).")
@click.option("--warm", is_flag=True, help="The warm graph of the current directory's project.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="HTML file to write (default: <home>/views/<session>.html).",
)
@click.option("--open", "open_it", is_flag=True, help="Open the file in the default browser.")
def view_cmd(
    session_id: str | None, project: str | None, warm: bool, out: Path | None, open_it: bool
) -> None:
    """Write an interactive, self-contained HTML view of a graph and print its path."""
    if sum(bool(x) for x in (session_id, project is not None, warm)) > 1:
        raise click.UsageError("give at most one of --session, --project and --warm")
    if out is not None and not out.absolute().parent.is_dir():  # never create a folder asked for
        raise click.ClickException(
            f"--out {out}: the folder {out.absolute().parent} does not exist; create it first"
        )
    if project is not None or warm:
        scope = _scope_of(project)
        graph, history = warm_graph(scope), History()
        title = f"project {scope or '(person)'} (warm graph)"
    else:
        graph, history = hot_graph(session_id)
        title = f"session {graph.session_id}"
    if not graph.nodes:
        click.echo(f"note: {title} has no nodes yet", err=True)
    path = write_view(graph, history, out, title)
    click.echo(str(path))
    if open_it:
        import webbrowser

        webbrowser.open(path.as_uri())


@click.command("graph")
@click.argument("words", nargs=-1)
@session_option
def graph_cmd(words: tuple[str, ...], session_id: str | None) -> None:
    """What `/graph` runs: the text tree; `graph NODE` expands a node; `graph view` writes the
    HTML view and prints its path. Takes the slash command's arguments as they come."""
    from rolling_graph.view.export import lookup, text_node, text_tree

    # An unset ${CLAUDE_SESSION_ID} arrives as an empty string: use the most recent session.
    sid = session_id or None
    if sid is not None and not store(settings()).exists(sid):
        click.echo(f"(no graph for session {sid} yet; showing the most recent session)")
        sid = None
    sess, history = open_session(sid)
    graph = sess.graph
    arg = " ".join(w for w in words if w.strip()).strip()
    if arg == "view":
        click.echo(f"HTML view written to {write_view(graph, history, None)}")
        return
    if not arg:
        click.echo(text_tree(graph, per_domain=TREE_PER_DOMAIN))
        return
    nid = lookup(graph, arg)
    if nid is None:
        raise click.ClickException(
            f"no node {arg!r} in session {graph.session_id}; `/graph` lists them"
        )
    # Asking for a node is an expansion on request (DESIGN §5): it counts as an activation.
    with sess.store.locked(graph.session_id):
        sess.activate([nid], strengthen=True, why="expand")
        sess.save()
    click.echo(text_node(graph, nid, history))


COMMANDS = [view_cmd, graph_cmd]
