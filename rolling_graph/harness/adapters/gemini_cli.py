"""Gemini CLI hook payloads ↔ events. Standard library only (used on the hook path).

Events: SessionStart (``source``), BeforeAgent (``prompt``: one per person's prompt), BeforeTool
/ AfterTool (``tool_name``, ``tool_input``, ``tool_response``), PreCompress (``trigger``;
advisory; Gemini CLI 0.61 fires it with ``auto`` before every turn's compression *check*, so
only ``manual`` (``/compress``) counts as a compaction: an ``auto`` one per turn would cost a
probe per turn), SessionEnd
(``reason``; not awaited: the worker finishes the merge). Output: ``hookSpecificOutput.
additionalContext`` on SessionStart (prepended to the first prompt), BeforeAgent (added to this
turn's prompt) and AfterTool (appended to the tool result). Stdout must be JSON or nothing.

Gemini CLI wraps injected context in ``<hook_context>`` inside the next BeforeAgent ``prompt``;
it is cut out here, so that the gate never reads our own block as the person's words.
"""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.harness.adapters.claude_code import PayloadError
from rolling_graph.harness.adapters.common import hook_specific, session_id, str_field, tool_call

NAME = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "PreCompress", "SessionEnd")
CONTEXT_EVENTS = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})
MAX_CONTEXT_CHARS = 9_500
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>\s*", re.DOTALL)


def event_name(payload: dict[str, Any], hint: str | None = None) -> str:
    return str_field(payload, "hook_event_name") or hint or ""


def strip_hook_context(prompt: str) -> str:
    return _HOOK_CONTEXT.sub("", prompt).strip()


def _tool_response(value: Any) -> Any:
    if isinstance(value, dict):
        for key in ("llmContent", "returnDisplay", "error"):
            if isinstance(value.get(key), str):
                return value[key]
    return value


def parse_payload(payload: Any, hint: str | None = None) -> HookEvent | None:
    """Map one decoded Gemini CLI payload to a HookEvent; ``None`` for events we ignore."""
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
        "raw": payload,
    }
    if name == "BeforeAgent":
        prompt = strip_hook_context(str_field(payload, "prompt") or "")
        return HookEvent("prompt_submit", prompt=prompt, **common)
    if name in ("BeforeTool", "AfterTool"):
        tool, tool_input = tool_call(
            str_field(payload, "tool_name") or "", payload.get("tool_input")
        )
        return HookEvent(
            "tool_use",
            tool_name=tool,
            tool_input=tool_input,
            tool_response=_tool_response(payload.get("tool_response")),
            phase="pre" if name == "BeforeTool" else "post",
            **common,
        )
    if name == "SessionStart":
        return HookEvent(
            "session_start", source=str_field(payload, "source") or "startup", **common
        )
    if name == "PreCompress":
        trigger = str_field(payload, "trigger") or "auto"
        return HookEvent("pre_compact", trigger=trigger, **common) if trigger == "manual" else None
    return HookEvent("session_end", reason=str_field(payload, "reason") or "other", **common)


def format_output(name: str, context: str | None) -> str:
    if not context or name not in CONTEXT_EVENTS:
        return ""
    return hook_specific(name, context, MAX_CONTEXT_CHARS)
