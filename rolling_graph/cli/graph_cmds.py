"""``show``, ``render``, ``expand`` and ``sessions``: look at hot graphs."""

from __future__ import annotations

import json
import os

import click

from rolling_graph.cli.common import echo_notices, resolve_session, session_option, settings, store
from rolling_graph.cli.tables import emit, format_option
from rolling_graph.core.session import HotSession, SessionParams
from rolling_graph.render.lod import render_session


def _open(session_id: str | None) -> HotSession:
    s = settings()
    st = store(s)
    sid = resolve_session(st, session_id)
    sess = HotSession.open(st, sid, SessionParams.from_settings(s))
    echo_notices(sess.notices)
    return sess


@click.command()
@session_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["list", "text", "mermaid", "dot", "json"]),
    default="list",
    show_default=True,
    help="list: every node and edge; text: a tree by domain; mermaid: the focus and its "
    "neighbours; dot: Graphviz; json: the graph document.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
def show(session_id: str | None, fmt: str, as_json: bool) -> None:
    """Show a session's hot graph (every node and edge)."""
    sess = _open(session_id)
    g = sess.graph
    if as_json or fmt == "json":
        click.echo(json.dumps(g.to_json_dict(), indent=2, ensure_ascii=False))
        return
    if fmt != "list":
        from rolling_graph.view import export

        render = {"text": export.text_tree, "mermaid": export.to_mermaid, "dot": export.to_dot}
        click.echo(render[fmt](g))
        return
    click.echo(f"session {g.session_id}: turn {g.turn}, {len(g.nodes)} nodes, {len(g.edges)} edges")
    for n in sorted(g.nodes.values(), key=lambda n: (-n.weight, n.id)):
        extra = f" — {n.summary}" if n.summary else ""
        flags = " anchor" if n.anchor else ""
        click.echo(
            f"  {n.weight:.2f} {n.id} [{n.domain}{', ' + n.kind if n.kind else ''}{flags}] {n.label}{extra}"
        )
    for e in sorted(g.edges.values(), key=lambda e: (-e.strength, e.key)):
        click.echo(f"  {e.strength:.2f} {e.source} --{e.relationship}--> {e.target}")


@click.command("render")
@session_option
@click.option(
    "--budget", type=click.IntRange(100, 2500), help="Token budget (default from settings, 800)."
)
@click.option(
    "--mention", "mention", default="", help="Prompt text: named nodes snap to full detail."
)
@click.option("--why", is_flag=True, help="Say why each item is shown.")
@click.option("--json", "as_json", is_flag=True, help="Print text, tokens and items as JSON.")
def render_cmd(
    session_id: str | None, budget: int | None, mention: str, why: bool, as_json: bool
) -> None:
    """Render the level-of-detail block the agent would receive."""
    sess = _open(session_id)
    fresh = None
    unchecked = ""
    if why:  # as the block after a lost context: checked against the session's work tree
        from rolling_graph.config import load_settings
        from rolling_graph.render.freshness import check, fresh_graph

        tree, unchecked = _work_tree(sess)
        if tree:
            g = sess.graph
            budget_ms = load_settings().freshness_budget_ms
            fresh = check(g.nodes.values(), g.edges.values(), tree, budget_ms)
            sess.graph = fresh_graph(g, fresh)  # a view, for this render only; never saved
    out = render_session(sess, mention, budget=budget, show_why=why)
    if as_json:
        click.echo(json.dumps(out.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(out.text or "(the graph is empty)")
        if fresh is not None:
            click.echo(f"(why: {fresh.report()})")
        elif unchecked:
            click.echo(f"(why: {unchecked})")
        click.echo(f"\n[{out.tokens} tokens by the estimate of 3.5 chars per token]", err=True)


def _work_tree(sess: HotSession) -> tuple[str, str]:
    """The directory ``render --why`` checks the graph against, or why it checks none: the
    session's own work tree (its recorded cwd) wherever the command runs; the current directory
    for a session that recorded none. A session from another machine (a replayed transcript)
    is not checked: every file would read as removed."""
    from rolling_graph.warm.reconcile import session_state

    state = session_state(sess.store, sess.graph.session_id) if sess.store is not None else {}
    recorded = state.get("cwd")
    if not isinstance(recorded, str) or not recorded:
        return os.getcwd(), ""
    if os.path.isdir(recorded):
        return recorded, ""
    return "", f"Not checked against a work tree: the session ran in {recorded}, not here."


@click.command()
@click.argument("node")
@session_option
@click.option("--budget", type=click.IntRange(100, 2500), default=None)
def expand(node: str, session_id: str | None, budget: int | None) -> None:
    """Show NODE and its branch in full; counts as an activation (and strengthens it)."""
    sess = _open(session_id)
    g = sess.graph
    nid = (
        node
        if node in g.nodes
        else next(
            (
                n.id
                for n in g.nodes.values()
                if n.label.lower() == node.lower() or node.lower() in (a.lower() for a in n.aliases)
            ),
            None,
        )
    )
    if nid is None:
        raise click.ClickException(
            f"no node {node!r} in session {g.session_id}; see `rolling-graph show`"
        )
    with sess.store.locked(g.session_id):  # type: ignore[union-attr]
        sess.activate([nid], strengthen=True, why="expand")
        sess.save()
    out = render_session(sess, mentions=[nid], budget=budget)
    branch = [i for i in out.items if nid in i.node_ids or i.section == "mention"]
    for item in branch:
        click.echo(item.text)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@format_option
def sessions(as_json: bool, fmt: str) -> None:
    """List sessions: last change, turn, size, project and source (the transcript it follows),
    and whether its graph was rebuilt from the audit log."""
    from rolling_graph.cli.session_rows import session_table

    fmt = "json" if as_json else fmt
    st = store(settings())
    table = session_table(st, every_column=fmt == "json")
    if not table.rows and fmt != "json":
        click.echo(f"no sessions under {st.home}")
        return
    emit([table], fmt)


COMMANDS = [show, render_cmd, expand, sessions]
