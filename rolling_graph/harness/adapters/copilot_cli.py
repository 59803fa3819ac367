"""GitHub Copilot CLI hook payloads ↔ events. Standard library only (used on the hook path).

Copilot's own hook format (``version: 1``, camelCase events) sends camelCase payloads without
the event's name, so the installed command names it: ``rolling-graph hook --harness copilot
--event sessionStart``. Events: sessionStart (``source`` new | resume, ``initialPrompt``),
userPromptSubmitted (``prompt``), preToolUse / postToolUse (``toolName``, ``toolArgs``,
``toolResult``), preCompact, sessionEnd (``reason``). Context goes back as a top-level
``additionalContext`` on sessionStart, userPromptSubmitted and postToolUse.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.harness.adapters.claude_code import PayloadError
from rolling_graph.harness.adapters.common import session_id, str_field, tool_call

NAME = "copilot"
EVENTS = (
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "preCompact",
    "sessionEnd",
)
CONTEXT_EVENTS = frozenset({"sessionStart", "userPromptSubmitted", "postToolUse"})
MAX_CONTEXT_CHARS = 9_500
_SOURCES = {"new": "startup", "startup": "startup", "resume": "resume", "clear": "clear"}


def event_name(payload: dict[str, Any], hint: str | None = None) -> str:
    name = hint or str_field(payload, "hookEventName", "hook_event_name") or ""
    return name[:1].lower() + name[1:]  # Copilot accepts PascalCase names as aliases


def transcript_path(payload: dict[str, Any], sid: str) -> str | None:
    """Only agentStop names the transcript; the others get the file Copilot keeps for every
    session, ``$COPILOT_HOME/session-state/<id>/events.jsonl``, when it exists."""
    named = str_field(payload, "transcriptPath", "transcript_path")
    if named:
        return named
    root = os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
    path = os.path.join(root, "session-state", os.path.basename(sid), "events.jsonl")
    return path if os.path.isfile(path) else None


def _tool_response(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("textResultForLlm"), str):
        return value["textResultForLlm"]
    return value


def parse_payload(payload: Any, hint: str | None = None) -> HookEvent | None:
    """Map one decoded Copilot CLI payload to a HookEvent; ``None`` for events we ignore."""
    if not isinstance(payload, dict):
        raise PayloadError("payload is not a JSON object")
    name = event_name(payload, hint)
    if name not in EVENTS:
        return None
    sid = session_id(payload, "sessionId", "session_id")
    common = {
        "session_id": sid,
        "cwd": str_field(payload, "cwd"),
        "transcript_path": transcript_path(payload, sid),
        "harness": NAME,
        "raw": payload,
    }
    if name == "userPromptSubmitted":
        return HookEvent("prompt_submit", prompt=str_field(payload, "prompt") or "", **common)
    if name in ("preToolUse", "postToolUse"):
        tool, tool_input = tool_call(str_field(payload, "toolName") or "", payload.get("toolArgs"))
        return HookEvent(
            "tool_use",
            tool_name=tool,
            tool_input=tool_input,
            tool_response=_tool_response(payload.get("toolResult")),
            phase="pre" if name == "preToolUse" else "post",
            **common,
        )
    if name == "sessionStart":
        source = str_field(payload, "source") or "new"
        return HookEvent("session_start", source=_SOURCES.get(source, source), **common)
    if name == "preCompact":
        return HookEvent("pre_compact", trigger=str_field(payload, "trigger") or "auto", **common)
    return HookEvent("session_end", reason=str_field(payload, "reason") or "other", **common)


def format_output(name: str, context: str | None) -> str:
    if not context or name not in CONTEXT_EVENTS:
        return ""
    if len(context) > MAX_CONTEXT_CHARS:
        context = context[: MAX_CONTEXT_CHARS - 1] + "…"
    return json.dumps({"additionalContext": context}, ensure_ascii=False)
