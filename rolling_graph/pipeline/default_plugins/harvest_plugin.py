"""The compaction summary's harvest as a default plugin, and the person's words it is checked
against (:mod:`rolling_graph.probe.summary_harvest`).

The first prompt or finished tool step after a compaction reads the harness's summary from
the transcript (live) or gets it on the event (replay); its patch is applied before the
renderer runs, so the block sent in the same request already shows the harvested tasks.
Every prompt is kept (scrubbed, bounded) as the person's words that a decision from the
summary or from ``memory_note`` must be found in.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rolling_graph.pipeline.hookspecs import EventContext, hookimpl

WORDS_STATE = "person_words"
HARVESTED_STATE = "harvested"
MAX_PROMPTS = 300
MAX_PROMPT_CHARS = 2000


def person_words(store: Any, session_id: str) -> list[str]:
    """The person's prompts of this session, oldest first (scrubbed at the entry)."""
    state = store.read_state(session_id, WORDS_STATE, {})
    prompts = state.get("prompts") if isinstance(state, dict) else None
    return [p for p in prompts if isinstance(p, str)] if isinstance(prompts, list) else []


def _keep_words(ctx: EventContext, prompt: str) -> None:
    prompts = person_words(ctx.engine.store, ctx.session_id)
    prompts.append(prompt[:MAX_PROMPT_CHARS])
    state = {"prompts": prompts[-MAX_PROMPTS:]}
    ctx.engine.store.write_state(ctx.session_id, WORDS_STATE, state)


def _summary(ctx: EventContext) -> str:
    from rolling_graph.harness.adapters.transcript_feed import event_field, event_kind

    for ev in ctx.transcript_events:
        text = event_field(ev, "text")
        if event_kind(ev) == "CompactSummary" and isinstance(text, str) and text.strip():
            return text
    return ""


def harvest_into(ctx: EventContext) -> None:
    """Apply what the summary on this event adds (when there is one and harvest is on)."""
    if not ctx.settings.summary_harvest:
        return
    summary = _summary(ctx)
    if not summary:
        return
    # A summary SessionEnd looked at is read again by the next event: harvested once.
    key = hashlib.sha1(summary.encode("utf-8")).hexdigest()[:16]
    if ctx.engine.store.read_state(ctx.session_id, HARVESTED_STATE, {}).get("last") == key:
        return
    ctx.engine.store.write_state(ctx.session_id, HARVESTED_STATE, {"last": key})
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.probe.summary_harvest import PROMPT_ID, harvest

    sess = ctx.session
    prompts = person_words(ctx.engine.store, ctx.session_id)
    got = harvest(sess.graph, summary, prompts, max_ops=sess.params.limits.max_ops)
    record: dict[str, Any] = {
        "type": "harvest",
        "turn": sess.graph.turn,
        "added": got.counts(),
        "merged": len(got.merged),
        "refused": len(got.refused),
        "notes": len(got.notes),  # pending items about the person, not made tasks
    }
    if got.patch is not None:
        res = sess.apply(got.patch, PatchSource("summary", PROMPT_ID))
        if res.applied:
            ctx.ops_applied += res.ops_applied
        else:
            record["error"] = res.error
    record["current"] = got.current
    record["pending"] = got.pending
    sess.log_event(record)


# ``trylast``: after the probe and the observers (what the summary says of the current work
# is the latest word on it), and, registered after the renderer, still before it.
@hookimpl(trylast=True)
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    s = ctx.settings
    if prompt.strip() and (s.summary_harvest or s.agent_notes):
        _keep_words(ctx, prompt)
    harvest_into(ctx)


@hookimpl(trylast=True)
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase == "post":
        harvest_into(ctx)


@hookimpl(tryfirst=True)
def session_end(ctx: EventContext, reason: str) -> None:
    """A summary that is the transcript's last entry: harvested before the warm merge."""
    harvest_into(ctx)
