"""Warm reconciliation as a default plugin (DESIGN §6): pull at start, flush at compaction
and at session end.

- ``session_start`` (ordinary priority, so before the ``trylast`` renderer injects): finish
  final flushes that a killed SessionEnd left behind, then pull this project's and this
  person's relevant warm branches into the hot graph (startup, resume, clear, compact; after
  compaction the hot graph is usually intact, so the pull adds little or nothing).
- ``prompt_submit``, first of the session only: SessionStart carries no prompt, so the warm
  branches the first prompt mentions are pulled here (before the renderer sees the prompt).
- ``pre_compact``: flush (a safety net; not final).
- ``session_end``: write a "pending final flush" marker, merge, remove the marker. Harnesses
  without SessionEnd (Codex) get the marker at start instead. The
  harness gives SessionEnd ~1.5 s; the worker keeps handling the event after the hook client
  stops waiting, and if the process dies mid-way the marker makes the next session start (or
  ``rolling-graph recover``) finish the merge.

One :class:`~rolling_graph.warm.reconcile.Reconciler` per engine
(``ctx.engine.component("warm", …)``), which opens the warm store once. Errors never break a
hook: a flush that cannot reach the store goes to the outbox, a failed pull is only noted.
What a killed SessionEnd left is finished by :mod:`rolling_graph.pipeline.recovery`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from rolling_graph.pipeline.hookspecs import EventContext, hookimpl
from rolling_graph.pipeline.recovery import finish_pending, reconcile_session
from rolling_graph.probe.drafter import probe_drafter
from rolling_graph.warm.reconcile import Reconciler

log = logging.getLogger("rolling_graph.warm")


def _make(engine: Any) -> Reconciler:
    return Reconciler(
        engine.settings, engine.store, drafter=lambda: probe_drafter(engine.settings, engine.pm)
    )


def reconciler(ctx: EventContext) -> Reconciler:
    rec: Reconciler = ctx.engine.component("warm", _make)
    return rec


def _now(ctx: EventContext) -> datetime:
    # Replays pass the transcript's clock: warm times then follow the transcript, deterministically.
    ts = ctx.event.timestamp
    return datetime.fromtimestamp(ts, UTC) if ts is not None else datetime.now(UTC)


@hookimpl
def session_start(ctx: EventContext, source: str) -> None:
    try:
        rec = reconciler(ctx)
        rec.remember(ctx.session_id, cwd=ctx.event.cwd, transcript_path=ctx.event.transcript_path)
        finished = finish_pending(rec, exclude=ctx.session_id, engine=ctx.engine)
        if rec.pending() and any(m["session_id"] == ctx.session_id for m in rec.pending()):
            # This very session's SessionEnd was cut short and it is being resumed.
            reconcile_session(rec, ctx.session_id, session=ctx.session, now=_now(ctx))
        result = rec.pull(ctx.session, None, now=_now(ctx), cwd=ctx.event.cwd)
        ctx.warm = {"pull": result.as_dict(), "finished_pending": len(finished)}
        if starts_fresh(ctx, source):
            _gather_resume(ctx, rec, result.scope)
        if not ctx.event.session_end_expected:
            # No SessionEnd will come (Codex): the marker stands in for it, so the next
            # session start (or `recover`) finishes this session's final merge.
            rec.mark_pending(
                ctx.session_id, cwd=ctx.event.cwd, transcript_path=ctx.event.transcript_path
            )
    except Exception as err:  # noqa: BLE001 - the session must start whatever the warm store does
        log.warning("warm session_start failed: %s", err)
        ctx.warm = {"error": f"{type(err).__name__}: {err}"}


def starts_fresh(ctx: EventContext, source: str) -> bool:
    """A new conversation (or one resumed where this machine has no history of it): it gets
    the "where we left off" block rather than the session's own graph."""
    return source in ("startup", "clear") or (source == "resume" and ctx.session.graph.turn == 0)


def _gather_resume(ctx: EventContext, rec: Reconciler, scope: str) -> None:
    """The data of the "where we left off" block, for the renderer (``ctx.resume``)."""
    from rolling_graph.observe.worktree_changes import changes_since
    from rolling_graph.warm.resume import gather

    try:
        data = rec.read(
            lambda store: gather(store, scope, ctx.session_id, _now(ctx), own=rec.own_scope)
        )
        changes = changes_since(ctx.event.cwd, data.previous_ended)
    except Exception as err:  # noqa: BLE001 - the ordinary block is still there
        log.warning("resume data for %s failed: %s", ctx.session_id, err)
        return
    ctx.resume = (data, changes)
    ctx.warm["resume"] = {
        "previous_session": data.previous_session,
        "previous_nodes": len(data.previous),
        "earlier_nodes": len(data.earlier),
        "commits_since": len(changes.commits) + changes.more_commits,
    }


@hookimpl
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    try:
        rec = reconciler(ctx)
        state = rec.state(ctx.session_id)
        if state.get("prompt_pulled") or not prompt.strip():
            return
        result = rec.pull(ctx.session, prompt, now=_now(ctx), cwd=ctx.event.cwd, top=0, recent=0)
        state = rec.state(ctx.session_id)
        state["prompt_pulled"] = True
        rec.write_state(ctx.session_id, state)
        if result.ops:
            ctx.warm = {"pull": result.as_dict()}
    except Exception as err:  # noqa: BLE001
        log.warning("warm first-prompt pull failed: %s", err)


@hookimpl
def pre_compact(ctx: EventContext, trigger: str) -> None:
    try:
        result = reconciler(ctx).flush(
            ctx.session, final=False, now=_now(ctx), cwd=ctx.event.cwd, reason="pre_compact"
        )
        ctx.warm = {"flush": result.as_dict()}
    except Exception as err:  # noqa: BLE001
        log.warning("warm pre-compact flush failed: %s", err)


@hookimpl
def session_end(ctx: EventContext, reason: str) -> None:
    rec = reconciler(ctx)
    try:
        # The marker first: if the process is killed during the merge, it survives.
        rec.mark_pending(
            ctx.session_id, cwd=ctx.event.cwd, transcript_path=ctx.event.transcript_path
        )
        result = rec.flush(
            ctx.session, final=True, now=_now(ctx), cwd=ctx.event.cwd, reason="session_end"
        )
        # Applied, a duplicate, or safely in the outbox: the final flush is done either way.
        rec.clear_pending(ctx.session_id)
        ctx.warm = {"flush": result.as_dict()}
    except Exception as err:  # noqa: BLE001 - the marker stays; recover finishes it
        log.warning("warm session-end flush failed (left pending): %s", err)
