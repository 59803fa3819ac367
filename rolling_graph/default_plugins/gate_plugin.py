"""The gate as a default plugin: fills ``ctx.triggers`` first, before probe scheduling.

Runs ``tryfirst`` on ``prompt_submit`` and ``tool_use`` (and wraps ``pre_compact``, to read the
transcript before the pre-compaction probe). The spaCy pipeline and the gate are
shared across sessions through ``ctx.engine.component("gate", …)``; per-session state lives in
``gate.json`` in the session directory. Detected triggers go to ``ctx.triggers``; when a probe
is due the plugin sets ``ctx.probe_due`` (and the pending triggers it coalesces go to
``ctx.notes["coalesced"]``); the probe plugin queues a probe then. Each decision is written to
the audit log as ``{"type": "gate", …}``.

Also reads the transcript incrementally (offset kept in the gate state) and puts what happened
since the last event into ``ctx.notes["transcript_events"]`` for the probe.
"""

from __future__ import annotations

import logging
from typing import Any

from rolling_graph.events import EventContext
from rolling_graph.gate import Gate, GateDecision
from rolling_graph.gate.state import GateState, load_state, save_state
from rolling_graph.hookspecs import hookimpl

log = logging.getLogger("rolling_graph.gate")


def _make_gate(engine: Any) -> Gate:
    rules: list[Any] = []
    try:
        engine.pm.hook.register_gate_rules(register=rules.append)
    except Exception:  # noqa: BLE001 - a broken third-party plugin must not disable the gate
        log.exception("register_gate_rules failed")
    gate = Gate.from_settings(engine.settings, rules=rules)
    gate._log_error = lambda name, err: log.warning("gate rule %s failed: %s", name, err)
    return gate


def _feed_transcript(ctx: EventContext, state: GateState) -> None:
    from rolling_graph.harness.transcript_feed import read_since

    if getattr(ctx.engine, "replay", False):
        # Replay hands over what happened since the previous event; reading transcript_path
        # here would read the future.
        if ctx.event.context_events:
            ctx.notes["transcript_events"] = list(ctx.event.context_events)
        return
    events, offset = read_since(ctx.event.transcript_path, state.transcript_offset)
    state.transcript_offset = offset
    if events:
        ctx.notes["transcript_events"] = events


def _record(ctx: EventContext, decision: GateDecision) -> None:
    ctx.triggers.extend(decision.triggers)
    if decision.probe:
        ctx.probe_due = True
        ctx.notes["coalesced"] = [t.as_dict() for t in decision.coalesced]
    ctx.notes["gate"] = {k: v for k, v in decision.as_log().items() if k != "type"}
    if decision.kind == "prompt" or decision.fired:
        ctx.session.log_event(decision.as_log())


@hookimpl(tryfirst=True)
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    gate: Gate = ctx.engine.component("gate", _make_gate)
    state = load_state(ctx.engine.store, ctx.session_id)
    _feed_transcript(ctx, state)
    decision = gate.evaluate_prompt(
        prompt, state, ctx.session.graph.known_terms(), graph=ctx.session.graph
    )
    save_state(ctx.engine.store, ctx.session_id, state)
    _record(ctx, decision)


@hookimpl(tryfirst=True)
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase != "post":
        return
    gate: Gate = ctx.engine.component("gate", _make_gate)
    state = load_state(ctx.engine.store, ctx.session_id)
    _feed_transcript(ctx, state)
    decision = gate.evaluate_tool(tool_name, tool_input, tool_response, state, phase)
    save_state(ctx.engine.store, ctx.session_id, state)
    _record(ctx, decision)


@hookimpl(wrapper=True)
def pre_compact(ctx: EventContext, trigger: str) -> Any:
    """What the agent wrote since the last event (its last message before the compaction)
    reaches the probe's pre-compaction flush; read at the next prompt, it would come too late
    for the block that SessionStart(compact) injects. A wrapper: it runs before every plugin."""
    state = load_state(ctx.engine.store, ctx.session_id)
    _feed_transcript(ctx, state)
    save_state(ctx.engine.store, ctx.session_id, state)
    return (yield)
