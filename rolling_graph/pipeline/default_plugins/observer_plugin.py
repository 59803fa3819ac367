"""Observers as a default plugin: each finished tool call's deterministic patch is applied at
once (see :mod:`rolling_graph.observe.observers`), before the renderer runs, so the block of the next
injection already shows the file, the task and its status."""

from __future__ import annotations

from typing import Any

from rolling_graph.pipeline.hookspecs import EventContext, hookimpl


@hookimpl
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase != "post" or not ctx.settings.observers:
        return
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.observe.observers import observe

    patch = observe(ctx.session.graph, tool_name, tool_input, tool_response, cwd=ctx.event.cwd)
    if patch is None:
        return
    # Tool input and output were scrubbed where the event entered the engine (privacy.py).
    res = ctx.session.apply(patch, PatchSource("observer", "observer.v1"))
    if res.applied:
        ctx.ops_applied += res.ops_applied
    else:
        ctx.session.log_event({"type": "observer_rejected", "tool": tool_name, "error": res.error})
