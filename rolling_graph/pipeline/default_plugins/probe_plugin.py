"""Probe scheduling: buffer what happened since the last probe, and ask for a probe when the
gate fired.

Runs as an ordinary hookimpl, i.e. after the gate (``tryfirst``) filled ``ctx.triggers`` and
``ctx.probe_due`` and before the renderer (``trylast``). Every text here was scrubbed where the
event entered the engine (``rolling_graph.privacy.boundary``), so nothing raw is buffered on disk or
reaches a probe. The buffer holds user prompts, one line per tool call, and the
assistant's text from the transcript events the engine put in ``ctx.transcript_events``.
"""

from __future__ import annotations

import os
from typing import Any

from rolling_graph.observe.digest import asked_text, tool_digest
from rolling_graph.pipeline.hookspecs import EventContext, hookimpl


def _assistant_texts(ctx: EventContext) -> list[str]:
    """Assistant text from the transcript events the engine read (objects or dicts), with the
    questions it asked through AskUserQuestion."""
    from rolling_graph.harness.adapters.transcript_feed import event_field, event_kind

    out: list[str] = []
    for ev in ctx.transcript_events:
        kind, text = event_kind(ev), event_field(ev, "text")
        if kind in ("ToolUse", "tool_use") and event_field(ev, "name") == "AskUserQuestion":
            text, kind = asked_text(event_field(ev, "input")), "AssistantText"
        if (
            kind in ("AssistantText", "assistant_text", "assistant")
            and isinstance(text, str)
            and text.strip()
        ):
            out.append(text.strip())
    return out


def _buffer_transcript(ctx: EventContext, turn: int) -> None:
    from rolling_graph.probe.buffer import buffer_assistant

    texts = _assistant_texts(ctx)
    if texts:
        buffer_assistant(ctx.engine.store, ctx.session_id, turn, "\n".join(texts))


def _paid_tier(ctx: EventContext, kind: str) -> tuple[str, list[str]] | None:
    """Whether this event asks for a *paid* probe (:mod:`rolling_graph.gate.paid`): the
    reason and the judgement triggers it takes, or None. Advances the session's paid state."""
    from rolling_graph.gate import paid

    policy = paid.PaidPolicy.from_settings(ctx.settings)
    if kind == "tool" and policy.mode != "always":
        return None  # tool events never pay: spare the state file a write per tool call
    state = paid.load_state(ctx.engine.store, ctx.session_id)
    if kind == "prompt":
        taken = policy.on_prompt(state, {t.name for t in ctx.triggers}, ctx.probe_due)
    elif kind == "tool":
        taken = policy.on_tool(state, ctx.probe_due)
    else:
        taken = policy.on_pre_compact(state)
    paid.save_state(ctx.engine.store, ctx.session_id, state)
    return taken


def _request(ctx: EventContext, kind: str, *, every_turn: bool = False) -> None:
    """Queue a probe when the gate or the paid policy asks for one. ``every_turn``: a prompt is
    always read by the free (offline) tier, so what the person states reaches the graph by the
    next turn; the gate's coalescing and the paid policy decide only the paid calls."""
    if os.environ.get("ROLLING_GRAPH_PROBE_CHILD") == "1":
        return
    from rolling_graph.probe.runner import get_runner

    runner = get_runner(ctx.engine)
    taken = _paid_tier(ctx, kind) if runner.paid else None
    if not ctx.probe_due and taken is None and not every_turn:
        return
    # This event's triggers plus those the gate kept pending since the last probe.
    triggers = [t.as_dict() for t in ctx.triggers]
    seen = {t["name"] for t in triggers}
    triggers += [t for t in ctx.coalesced if t["name"] not in seen]
    if not triggers and taken is None:
        triggers = [{"name": "every_turn", "words": []}]
    if taken is not None:
        seen = {t["name"] for t in triggers}
        triggers += [{"name": n, "words": []} for n in taken[1] if n not in seen]
    tier = "paid" if taken is not None or not runner.paid else "free"
    how = runner.request(ctx.session_id, triggers, ctx, tier=tier)
    ctx.probe_requested = True
    ctx.probe_queued = how
    record: dict[str, Any] = {
        "type": "probe_trigger",
        "turn": ctx.session.graph.turn,
        "triggers": [t["name"] for t in triggers],
        "queued": how,
    }
    if runner.paid:
        ctx.probe_tier = record["tier"] = tier
        if taken is not None:
            record["paid_reason"] = taken[0]
    ctx.session.log_event(record)


@hookimpl
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    from rolling_graph.probe.buffer import buffer_prompt

    turn = ctx.session.graph.turn
    # Transcript events arriving with this prompt answer the previous turn.
    _buffer_transcript(ctx, max(0, turn - 1))
    if prompt.strip():
        buffer_prompt(ctx.engine.store, ctx.session_id, turn, prompt)
    _request(ctx, "prompt", every_turn=bool(prompt.strip()))


@hookimpl
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    from rolling_graph.probe.buffer import buffer_tool
    from rolling_graph.render.in_play import input_names

    turn = ctx.session.graph.turn
    _buffer_transcript(ctx, turn)
    if phase == "post":
        line = tool_digest(tool_name, tool_input, tool_response, ctx.event.cwd)
        buffer_tool(ctx.engine.store, ctx.session_id, turn, line, input_names(tool_input))
        _acted_on(ctx, tool_name, line)
    _request(ctx, "tool")


def _acted_on(ctx: EventContext, tool_name: str, work: str) -> None:
    """The agent works on a prompt that its probe placed nothing from: that prompt was a
    request, and becomes a task (:mod:`rolling_graph.probe.acted_request`)."""
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.probe import acted_request
    from rolling_graph.probe.runner import get_runner

    if acted_request.bookkeeping(tool_name) or not ctx.settings.acted_requests:
        return
    runner = get_runner(ctx.engine)
    if runner.in_flight(ctx.session_id):
        return  # the prompt's probe may still place it: a later tool call of the turn decides
    prompt = runner.unplaced.take(ctx.session_id, ctx.session.graph.turn)
    patch = acted_request.task_patch(ctx.session.graph, prompt, tool_name, work) if prompt else None
    if patch is None:
        return
    res = ctx.session.apply(patch, PatchSource("acted-request"))
    if res.applied:
        ctx.ops_applied += res.ops_applied


@hookimpl(tryfirst=True)
def pre_compact(ctx: EventContext, trigger: str) -> None:
    """Probe what is still buffered before the context is compacted, so that the block
    injected on SessionStart(compact) covers the work up to the boundary (the gate coalesces
    triggers, so up to a few turns of activity may not have been probed yet). ``tryfirst``: the
    warm store's pre-compaction flush then sees the result (in replay; live, the probe runs in
    the background and is done long before the harness has written its summary)."""
    if os.environ.get("ROLLING_GRAPH_PROBE_CHILD") == "1":
        return
    from rolling_graph.probe.buffer import peek_buffer
    from rolling_graph.probe.runner import get_runner

    # What the agent wrote since the last hook event (its last message before the compaction).
    _buffer_transcript(ctx, ctx.session.graph.turn)
    buf = peek_buffer(ctx.engine.store, ctx.session_id)
    if not any(t.get("user") or t.get("assistant") or t.get("tools") for t in buf["turns"]):
        return
    runner = get_runner(ctx.engine)
    paid = runner.paid and _paid_tier(ctx, "pre_compact") is not None
    tier = "paid" if paid or not runner.paid else "free"
    how = runner.request(ctx.session_id, [{"name": "pre_compact", "words": [trigger]}], ctx, tier)
    ctx.probe_requested = True
    ctx.probe_queued = how
    if runner.paid:
        record = {"type": "probe_trigger", "turn": ctx.session.graph.turn, "tier": tier}
        record.update(triggers=["pre_compact"], queued=how)
        if paid:
            record["paid_reason"] = "pre_compact"
        ctx.session.log_event(record)


@hookimpl(wrapper=True)
def session_start(ctx: EventContext, source: str) -> Any:
    """After the block is rendered: put the pending paid-probe notice (a failure or a budget
    stop, :mod:`rolling_graph.probe.health`) on top, once, as one line."""
    result = yield
    try:
        from rolling_graph.probe.health import Health

        notice = Health.from_settings(ctx.settings).take_notice()
    except Exception:  # noqa: BLE001 - a notice must never cost the person the block
        notice = None
    if notice:
        from rolling_graph.core.tokens import estimate_tokens

        ctx.inject = f"{notice}\n\n{ctx.inject}" if ctx.inject else notice
        ctx.inject_tokens += estimate_tokens(notice)
        ctx.notice = notice
    return result
