"""The gate as a default plugin: fills ``ctx.triggers`` first, before probe scheduling.

Runs ``tryfirst`` on ``prompt_submit`` and ``tool_use``. The spaCy pipeline and the gate are
shared across sessions through ``ctx.engine.component("gate", …)``; per-session state lives in
``gate.json`` in the session directory. Detected triggers go to ``ctx.triggers``; when a probe
is due the plugin sets ``ctx.probe_due`` (and the pending triggers it coalesces go to
``ctx.coalesced``); the probe plugin queues a probe then. Each decision is written to
the audit log as ``{"type": "gate", …}`` and handed to the outcome as ``ctx.gate``.
"""

from __future__ import annotations

import logging
from typing import Any

from rolling_graph.gate import Gate, GateDecision
from rolling_graph.gate.state import load_state, save_state
from rolling_graph.pipeline.hookspecs import EventContext, hookimpl

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


def _record(ctx: EventContext, decision: GateDecision) -> None:
    ctx.triggers.extend(decision.triggers)
    if decision.probe:
        ctx.probe_due = True
        ctx.coalesced = [t.as_dict() for t in decision.coalesced]
    ctx.gate = {k: v for k, v in decision.as_log().items() if k != "type"}
    if decision.kind == "prompt" or decision.fired:
        ctx.session.log_event(decision.as_log())


@hookimpl(tryfirst=True)
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    gate: Gate = ctx.engine.component("gate", _make_gate)
    state = load_state(ctx.engine.store, ctx.session_id)
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
    decision = gate.evaluate_tool(tool_name, tool_input, tool_response, state, phase)
    save_state(ctx.engine.store, ctx.session_id, state)
    _record(ctx, decision)
