"""Observers as a default plugin: each finished tool call's deterministic patch is applied at
once (see :mod:`rolling_graph.observers`), before the renderer runs, so the block of the next
injection already shows the file, the task and its status."""

from __future__ import annotations

from typing import Any

from rolling_graph.events import EventContext
from rolling_graph.hookspecs import hookimpl


def _redacted(value: Any) -> Any:
    from rolling_graph.redact import redact

    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


@hookimpl
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase != "post" or not ctx.settings.observers:
        return
    from rolling_graph.observers import observe
    from rolling_graph.patch import PatchSource

    patch = observe(ctx.session.graph, tool_name, tool_input, tool_response, cwd=ctx.event.cwd)
    if patch is None:
        return
    # What an observer writes comes from tool input and output: redacted like everything else.
    res = ctx.session.apply(_redacted(patch), PatchSource("observer", "observer.v1"))
    if res.applied:
        ctx.ops_applied += res.ops_applied
    else:
        ctx.session.log_event({"type": "observer_rejected", "tool": tool_name, "error": res.error})
