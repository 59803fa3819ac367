"""Codex CLI hook payloads ↔ events. Standard library only (used on the hook path).

Codex sends Claude-style payloads (``hook_event_name``, ``session_id``, ``cwd``; ``turn_id`` and
``model`` besides) and reads ``hookSpecificOutput.additionalContext`` back, added to the
conversation as a developer message. Differences from Claude Code handled here:

- ``transcript_path`` may be null (ephemeral sessions);
- there is no SessionEnd: the final merge happens when the worker finds the session idle, at
  the next start, or through ``rolling-graph recover``;
- compaction: PreCompact flushes; Codex then fires SessionStart with source ``compact``, which
  re-injects the block. PostCompact and Stop carry nothing we need.
"""

from __future__ import annotations

from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.harness.adapters.claude_code import PayloadError
from rolling_graph.harness.adapters.common import hook_specific, session_id, str_field, tool_call

NAME = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact")
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse"})
MAX_CONTEXT_CHARS = 9_500


def event_name(payload: dict[str, Any], hint: str | None = None) -> str:
    return str_field(payload, "hook_event_name") or hint or ""


def parse_payload(payload: Any, hint: str | None = None) -> HookEvent | None:
    """Map one decoded Codex payload to a HookEvent; ``None`` for events we ignore."""
    if not isinstance(payload, dict):
        raise PayloadError("payload is not a JSON object")
    name = event_name(payload, hint)
    if name not in EVENTS:
        return None
    common = {
        "session_id": session_id(payload, "session_id"),
        "cwd": str_field(payload, "cwd"),
        "transcript_path": str_field(payload, "transcript_path"),
        "harness": NAME,
        "session_end_expected": False,
        "raw": payload,
    }
    if name == "UserPromptSubmit":
        return HookEvent("prompt_submit", prompt=str_field(payload, "prompt") or "", **common)
    if name in ("PreToolUse", "PostToolUse"):
        tool, tool_input = tool_call(
            str_field(payload, "tool_name") or "", payload.get("tool_input")
        )
        return HookEvent(
            "tool_use",
            tool_name=tool,
            tool_input=tool_input,
            tool_response=payload.get("tool_response"),
            phase="pre" if name == "PreToolUse" else "post",
            **common,
        )
    if name == "SessionStart":
        return HookEvent(
            "session_start", source=str_field(payload, "source") or "startup", **common
        )
    return HookEvent("pre_compact", trigger=str_field(payload, "trigger") or "auto", **common)


def format_output(name: str, context: str | None) -> str:
    if not context or name not in CONTEXT_EVENTS:
        return ""
    return hook_specific(name, context, MAX_CONTEXT_CHARS)
