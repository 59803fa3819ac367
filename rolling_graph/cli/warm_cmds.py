"""``flush``, ``outbox``, ``recover``, ``review`` and ``seed``: the warm graph by hand.

``--scope`` defaults to the project key of the current directory (see
:func:`rolling_graph.warm.identity.project_scope`); ``--scope ''`` is the person's own scope.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from rolling_graph.cli.common import resolve_session, session_option, settings, store


def _reconciler() -> Any:
    from rolling_graph.probe.drafter import probe_drafter
    from rolling_graph.warm.reconcile import Reconciler

    s = settings()
    return Reconciler(s, store(s), drafter=lambda: probe_drafter(s))


def _scope(value: str | None) -> str:
    if value is not None and value != "":
        return value
    # The person's own scope ("~<role>" on a shared PostgreSQL store): for ``--scope ''``,
    # and for the default outside a repository (as the worker's sessions there).
    from rolling_graph.warm.identity import own_scope, person_for, project_scope

    s = settings()
    own = own_scope(s.warm, person_for(s.warm, s.person))
    return own if value == "" else project_scope(s, os.getcwd(), own)


scope_option = click.option(
    "--scope",
    default=None,
    help="Warm-graph scope (project key). Default: derived from the current directory.",
)


def _echo_outbox(rec: Any, as_json: bool) -> None:
    entries = [e.as_dict() for e in rec.outbox.entries()]
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    if not entries:
        click.echo("outbox empty: every flush reached the warm store")
        return
    click.echo(f"{len(entries)} pending flush(es) in {rec.outbox.dir}:")
    for e in entries:
        final = " final" if e["final"] else ""
        err = f" — {e['last_error'] or e['reason']}" if (e["last_error"] or e["reason"]) else ""
        click.echo(
            f"  {e['created'][:19]} {e['session_id']} seq {e['flush_seq']}{final}"
            f" [{e['scope'] or '(person)'}] {e['nodes']} nodes, {e['edges']} edges,"
            f" {e['attempts']} retries{err}"
        )


@click.command("flush")
@session_option
@click.option("--final", is_flag=True, help="Record it as the session's final merge.")
@click.option("--retry", is_flag=True, help="Only deliver the pending flushes in the outbox.")
@click.option("--pending", is_flag=True, help="Only list the pending flushes (like `outbox`).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def flush_cmd(
    session_id: str | None, final: bool, retry: bool, pending: bool, as_json: bool
) -> None:
    """Flush a session's hot graph into the warm graph now (default: the latest session).

    Pending flushes in the outbox are delivered first; if the warm store cannot be reached,
    this flush joins them there and nothing is lost.
    """
    from rolling_graph.core.session import HotSession, SessionParams

    with _reconciler() as rec:
        if pending:
            _echo_outbox(rec, as_json)
            return
        if retry:
            d = rec.deliver_outbox()
            left = len(rec.outbox.entries())
            if as_json:
                click.echo(json.dumps({**d.__dict__, "left": left}))
            else:
                click.echo(
                    f"delivered {d.delivered}, already applied {d.already_applied}, {left} left"
                    + (f" (store unavailable: {d.error})" if d.error else "")
                )
            if left:
                raise SystemExit(1)
            return
        sid = resolve_session(rec.hot, session_id)
        with rec.hot.lock(sid):
            sess = HotSession.open(rec.hot, sid, SessionParams.from_settings(rec.settings))
            result = rec.flush(sess, final=final, reason="cli")
        if final:
            rec.clear_pending(sid)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
    else:
        click.echo(
            f"{sid}: {result.status} (seq {result.flush_seq}, {result.nodes} nodes,"
            f" {result.edges} edges, scope {result.scope or '(person)'})"
            + (f"; queued in the outbox: {result.error}" if result.status == "queued" else "")
        )
        for nid in result.flagged:
            click.echo(f"  flagged for graduation: {nid} (see `rolling-graph review`)")


@click.command("outbox")
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
def outbox_cmd(as_json: bool) -> None:
    """List flushes waiting for the warm store (retry with `flush --retry`)."""
    with _reconciler() as rec:
        _echo_outbox(rec, as_json)


@click.command("recover")
@click.option(
    "--older-than",
    type=float,
    default=60.0,
    show_default=True,
    help="Minutes since a hot graph last changed before it counts as abandoned.",
)
@click.option("--dry-run", is_flag=True, help="Only list the sessions that would be reconciled.")
@click.option(
    "--transcript",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Reconcile from this transcript (with --session, or the id inside it).",
)
@session_option
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def recover_cmd(
    older_than: float,
    dry_run: bool,
    transcript: Path | None,
    session_id: str | None,
    as_json: bool,
) -> None:
    """Reconcile sessions that never got their final merge (crashes, killed hooks).

    From the leftover hot graph, or, when it is gone, by replaying the session's transcript
    offline into a new hot graph. Each session is one transaction in the warm store.
    """
    from rolling_graph.pipeline.recovery import reconcile_session

    results: list[dict[str, Any]] = []
    with _reconciler() as rec:
        if transcript is not None:
            from rolling_graph.eval.replay import transcript_meta

            sid = session_id or transcript_meta(transcript)[0] or transcript.stem
            todo = [(sid, "transcript given", str(transcript))]
        elif session_id is not None:
            todo = [(session_id, "asked", None)]
        else:
            todo = [
                (u.session_id, u.reason, u.transcript_path)
                for u in rec.unreconciled(older_than=timedelta(minutes=older_than))
            ]
        for sid, reason, path in todo:
            if dry_run:
                results.append({"session_id": sid, "reason": reason, "transcript": path})
                continue
            try:
                res = reconcile_session(rec, sid, transcript_path=path)
            except Exception as err:  # noqa: BLE001 - report it, go on with the others
                results.append({"session_id": sid, "reason": reason, "error": str(err)})
                continue
            if res is None:
                results.append(
                    {"session_id": sid, "reason": reason, "error": "no hot graph or transcript"}
                )
            else:
                results.append({"reason": reason, **res.as_dict()})
    if as_json:
        click.echo(json.dumps(results, indent=2))
        return
    if not results:
        click.echo("nothing to recover")
    for r in results:
        what = r.get("error") or r.get("status") or "would reconcile"
        click.echo(f"{r['session_id']}: {what} ({r['reason']})")


def _open_warm() -> Any:
    from rolling_graph.warm import open_store
    from rolling_graph.warm.base import WarmStoreUnavailable
    from rolling_graph.warm.merge import store_params

    s = settings()
    try:
        return open_store(s.warm or None, Path(s.home), params=store_params(s))
    except WarmStoreUnavailable as err:
        raise click.ClickException(f"warm store unavailable: {err}") from None


@click.command("review")
@scope_option
@click.option("--approve", "approve", multiple=True, metavar="NODE", help="Approve a draft.")
@click.option("--reject", "reject", multiple=True, metavar="NODE", help="Reject a draft.")
@click.option("--edit", "edit", metavar="NODE", help="Edit a draft (with --text or $EDITOR).")
@click.option("--text", "text", help="The edited text for --edit.")
@click.option("--list", "list_only", is_flag=True, help="Only list the pending drafts.")
@click.option("--stats", is_flag=True, help="Graduation quality: counts by review outcome.")
@click.option("--archive", is_flag=True, help="Anchors at their floor for 6+ weeks.")
@click.option("--json", "as_json", is_flag=True, help="JSON output (--list, --stats, --archive).")
def review_cmd(
    scope: str | None,
    approve: tuple[str, ...],
    reject: tuple[str, ...],
    edit: str | None,
    text: str | None,
    list_only: bool,
    stats: bool,
    archive: bool,
    as_json: bool,
) -> None:
    """Review graduation drafts: approve, edit or reject each (a one-way door).

    Approved and edited drafts are appended to the flat memory file (``flat_memory``,
    default ``<home>/MEMORY.md``). Without options, asks about each pending draft in turn.
    """
    from rolling_graph.warm.graduation import flat_memory_path

    sc = _scope(scope)
    flat = flat_memory_path(settings())
    with _open_warm() as warm:
        if stats:
            _review_stats(warm, sc, as_json)
        elif archive:
            _review_archive(warm, sc, as_json)
        elif approve or reject or edit:
            actions = [(n, "approve", None) for n in approve] + [
                (n, "reject", None) for n in reject
            ]
            if edit:
                actions.append((edit, "edit", _edited_text(warm, sc, edit, text)))
            _review_actions(warm, sc, flat, actions)
        elif list_only or as_json:
            _review_list(warm.list_drafts(scope=sc, status="pending"), as_json)
        else:
            _review_each(warm, sc, flat)


def _review_stats(warm: Any, scope: str, as_json: bool) -> None:
    from rolling_graph.warm.graduation import review_stats

    st = review_stats(warm, scope=scope)
    if as_json:
        doc = {**st.__dict__, "reviewed": st.reviewed, "acceptance": st.acceptance}
        click.echo(json.dumps(doc))
        return
    acc = "n/a" if st.acceptance is None else f"{st.acceptance:.0%}"
    click.echo(
        f"approved {st.approved}, edited {st.edited}, rejected {st.rejected},"
        f" pending {st.pending} (graduated {acc} of reviewed)"
    )


def _review_archive(warm: Any, scope: str, as_json: bool) -> None:
    from rolling_graph.warm.graduation import archive_review

    nodes = archive_review(warm, scope=scope)
    if as_json:
        rows = [
            {
                "id": n.id,
                "label": n.label,
                "at_floor_since": n.at_floor_since and n.at_floor_since.isoformat(),
            }
            for n in nodes
        ]
        click.echo(json.dumps(rows))
    elif not nodes:
        click.echo("no anchors at their floor for 6+ weeks")
    else:
        click.echo(f"{len(nodes)} anchor(s) at their floor for 6+ weeks (archive review):")
        for n in nodes:
            day = n.at_floor_since.date() if n.at_floor_since else "?"
            click.echo(f"  {n.id}: {n.label} (at floor since {day})")


def _edited_text(warm: Any, scope: str, node_id: str, text: str | None) -> str:
    """The new text of ``--edit``: ``--text``, else the draft through ``$EDITOR``."""
    draft = warm.get_draft(node_id, scope=scope)
    if draft is None:
        raise click.ClickException(f"no draft for {node_id!r}")
    new = text if text is not None else click.edit(draft.draft)
    if not new or not new.strip():
        raise click.ClickException("edit cancelled: no text")
    return new.strip()


def _review_actions(
    warm: Any, scope: str, flat: Path, actions: list[tuple[str, str, str | None]]
) -> None:
    from rolling_graph.warm.base import DraftError
    from rolling_graph.warm.graduation import review

    for node_id, action, new_text in actions:
        try:
            d = review(warm, node_id, action, flat_memory=flat, scope=scope, text=new_text)
        except DraftError as err:
            raise click.ClickException(str(err)) from None
        click.echo(f"{node_id}: {d.status}")


def _review_list(pending: list[Any], as_json: bool) -> None:
    if as_json:
        rows = [
            {"node_id": d.node_id, "draft": d.draft, "created": str(d.created_at)} for d in pending
        ]
        click.echo(json.dumps(rows))
        return
    for d in pending:
        click.echo(f"{d.node_id}: {d.draft}")
    if not pending:
        click.echo("no pending drafts")


def _review_each(warm: Any, scope: str, flat: Path) -> None:
    """Ask about each pending draft in turn."""
    from rolling_graph.warm.graduation import review

    pending = warm.list_drafts(scope=scope, status="pending")
    if not pending:
        click.echo("no pending drafts")
        return
    for d in pending:
        click.echo(f"\n{d.node_id}\n  {d.draft}")
        choice = click.prompt(
            "[a]pprove, [e]dit, [r]eject, [s]kip, [q]uit",
            type=click.Choice(["a", "e", "r", "s", "q"]),
            default="s",
        )
        if choice == "q":
            break
        if choice == "s":
            continue
        new_text = None
        if choice == "e":
            new_text = click.edit(d.draft)
            if not new_text or not new_text.strip():
                click.echo("  skipped: no text")
                continue
        action = {"a": "approve", "e": "edit", "r": "reject"}[choice]
        done = review(warm, d.node_id, action, flat_memory=flat, scope=scope, text=new_text)
        click.echo(f"  {done.status}")


@click.command("seed")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@scope_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def seed_cmd(path: Path, scope: str | None, as_json: bool) -> None:
    """Import flat memories (Markdown bullets, JSONL, CLAUDE.md) as anchor nodes.

    Corrections ("don't…", "never…", "actually…", "use X not Y") become high-weight anchors.
    Importing the same file again changes nothing.
    """
    from rolling_graph.core.textfile import NotText, read_text
    from rolling_graph.warm.seed import seed

    try:  # before the store is opened: a file that is not text changes nothing
        read_text(path)
    except NotText as err:
        raise click.ClickException(f"{err}; give a Markdown, text or JSONL file") from None
    sc = _scope(scope)
    with _open_warm() as warm:
        res = seed(warm, path, scope=sc)
    doc = {
        "memories": res.memories,
        "nodes": len(res.nodes),
        "corrections": res.corrections,
        "inserted": res.merge.nodes_inserted,
        "applied": res.merge.applied,
        "scope": sc,
    }
    if as_json:
        click.echo(json.dumps(doc))
    else:
        click.echo(
            f"{res.memories} memories → {len(res.nodes)} anchors ({res.corrections} corrections),"
            f" {res.merge.nodes_inserted} new in scope {sc or '(person)'}"
            + ("" if res.merge.applied or not res.nodes else "; already imported")
        )


COMMANDS = [flush_cmd, outbox_cmd, recover_cmd, review_cmd, seed_cmd]
