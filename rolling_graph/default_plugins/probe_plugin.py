"""Probe scheduling: buffer what happened since the last probe, and ask for a probe when the
gate fired.

Runs as an ordinary hookimpl, i.e. after the gate (``tryfirst``) filled ``ctx.triggers`` and
``ctx.probe_due`` and before the renderer (``trylast``). Everything is redacted before it is buffered on disk, and so
before it can reach a probe. The buffer holds user prompts, one line per tool call, and the
assistant's text when the harness adapter put transcript events in
``ctx.notes["transcript_events"]``.
"""

from __future__ import annotations

import os
from typing import Any

from rolling_graph.events import EventContext
from rolling_graph.hookspecs import hookimpl
from rolling_graph.redact import redact

_FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit", "Read")
_MAX_DIGEST = 200


def _rel(path: str, cwd: str | None) -> str:
    """Paths relative to the project: shorter, and the same in every session of one repo."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def _is_error(response: Any) -> bool:
    if isinstance(response, dict):
        return bool(
            response.get("is_error") or response.get("error") or response.get("interrupted")
        )
    return False


def tool_digest(
    tool_name: str, tool_input: dict[str, Any], response: Any, cwd: str | None = None
) -> str:
    """One short, redacted line per tool call: ``Edit src/app.py``, ``Bash: pytest -q (error)``."""
    inp = tool_input if isinstance(tool_input, dict) else {}
    path = inp.get("file_path") or inp.get("notebook_path") or inp.get("path")
    if tool_name in _FILE_TOOLS and isinstance(path, str):
        line = f"{tool_name} {_rel(path, cwd)}"
    elif tool_name == "Bash" and isinstance(inp.get("command"), str):
        line = "Bash: " + " ".join(inp["command"].split())
    elif isinstance(inp.get("pattern"), str):
        line = f"{tool_name} {inp['pattern']}" + (
            f" in {_rel(path, cwd)}" if isinstance(path, str) else ""
        )
    else:
        first = next(
            (
                v
                for k, v in inp.items()
                if isinstance(v, str) and k in ("url", "query", "description", "prompt", "skill")
            ),
            "",
        )
        line = f"{tool_name}: {' '.join(first.split())}" if first else tool_name
    if _is_error(response):
        line += " (error)"
    return redact(line[:_MAX_DIGEST])


def _assistant_texts(ctx: EventContext) -> list[str]:
    """Assistant text from transcript events the adapter read (objects or dicts)."""
    out: list[str] = []
    for ev in ctx.notes.get("transcript_events") or []:
        kind = type(ev).__name__ if not isinstance(ev, dict) else str(ev.get("type", ""))
        text = getattr(ev, "text", None) if not isinstance(ev, dict) else ev.get("text")
        if (
            kind in ("AssistantText", "assistant_text", "assistant")
            and isinstance(text, str)
            and text.strip()
        ):
            out.append(text.strip())
    return out


def _buffer_transcript(ctx: EventContext, turn: int) -> None:
    from rolling_graph.probe.runner import buffer_assistant

    texts = _assistant_texts(ctx)
    if texts:
        buffer_assistant(ctx.engine.store, ctx.session_id, turn, redact("\n".join(texts)))


def _request(ctx: EventContext) -> None:
    if not ctx.probe_due or os.environ.get("ROLLING_GRAPH_PROBE_CHILD") == "1":
        return
    from rolling_graph.probe.runner import get_runner

    # This event's triggers plus those the gate kept pending since the last probe.
    triggers = [t.as_dict() for t in ctx.triggers]
    seen = {t["name"] for t in triggers}
    triggers += [t for t in ctx.notes.get("coalesced", []) if t["name"] not in seen]
    how = get_runner(ctx.engine).request(ctx.session_id, triggers, ctx)
    ctx.probe_requested = True
    ctx.notes["probe"] = how
    ctx.session.log_event(
        {
            "type": "probe_trigger",
            "turn": ctx.session.graph.turn,
            "triggers": [t["name"] for t in triggers],
            "queued": how,
        }
    )


@hookimpl
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    from rolling_graph.probe.runner import buffer_prompt

    turn = ctx.session.graph.turn
    # Transcript events arriving with this prompt answer the previous turn.
    _buffer_transcript(ctx, max(0, turn - 1))
    if prompt.strip():
        buffer_prompt(ctx.engine.store, ctx.session_id, turn, redact(prompt))
    _request(ctx)


@hookimpl
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    from rolling_graph.probe.runner import buffer_tool

    turn = ctx.session.graph.turn
    _buffer_transcript(ctx, turn)
    if phase == "post":
        buffer_tool(
            ctx.engine.store,
            ctx.session_id,
            turn,
            tool_digest(tool_name, tool_input, tool_response, ctx.event.cwd),
        )
    _request(ctx)
