"""Claude Code hook payloads ↔ events. Standard library only (used on the hook path).

Output: ``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}`` on the events
that accept context (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse), nothing otherwise.
"""

from __future__ import annotations

import json
from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.paths import safe_session_id

NAME = "claude-code"
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})
HANDLED = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "SessionEnd"}
)
MAX_CONTEXT_CHARS = 9_500  # Claude Code keeps 10,000 characters whole


class PayloadError(ValueError):
    """The payload is not a usable Claude Code hook event."""


def _str(payload: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = payload.get(key)
    if value is None:
        if required:
            raise PayloadError(f"missing field {key!r}")
        return None
    if not isinstance(value, str):
        raise PayloadError(f"field {key!r} must be a string")
    return value


def event_name(payload: dict[str, Any], hint: str | None = None) -> str:
    name = payload.get("hook_event_name")
    return name if isinstance(name, str) else (hint or "")


def parse_payload(payload: Any, hint: str | None = None) -> HookEvent | None:
    """Map one decoded payload to a HookEvent; ``None`` for events we ignore. Raises PayloadError.

    ``hint`` (the event name given on the hook's command line) is unused: Claude Code names
    the event in the payload."""
    if not isinstance(payload, dict):
        raise PayloadError("payload is not a JSON object")
    name = _str(payload, "hook_event_name", required=True)
    if name not in HANDLED:
        return None
    session_id = _str(payload, "session_id", required=True)
    if not session_id or not session_id.strip():
        raise PayloadError("empty session_id")
    common = {
        # Harness ids are UUIDs; anything else (huge, `../`) becomes a short, safe key.
        "session_id": safe_session_id(session_id),
        "cwd": _str(payload, "cwd"),
        "transcript_path": _str(payload, "transcript_path"),
        "raw": payload,
    }
    if name == "UserPromptSubmit":
        return HookEvent("prompt_submit", prompt=_str(payload, "prompt") or "", **common)
    if name in ("PreToolUse", "PostToolUse"):
        tool_input = payload.get("tool_input") or {}
        if not isinstance(tool_input, dict):
            tool_input = {"value": tool_input}
        return HookEvent(
            "tool_use",
            tool_name=_str(payload, "tool_name") or "",
            tool_input=tool_input,
            tool_response=payload.get("tool_response"),
            phase="pre" if name == "PreToolUse" else "post",
            **common,
        )
    if name == "SessionStart":
        return HookEvent("session_start", source=_str(payload, "source") or "startup", **common)
    if name == "PreCompact":
        return HookEvent("pre_compact", trigger=_str(payload, "trigger") or "auto", **common)
    return HookEvent("session_end", reason=_str(payload, "reason") or "other", **common)


def format_output(hook_event_name: str, context: str | None) -> str:
    """The exact stdout for Claude Code: JSON with additionalContext, or nothing."""
    if not context or hook_event_name not in CONTEXT_EVENTS:
        return ""
    if len(context) > MAX_CONTEXT_CHARS:
        context = context[: MAX_CONTEXT_CHARS - 1] + "…"
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": hook_event_name, "additionalContext": context}},
        ensure_ascii=False,
    )
