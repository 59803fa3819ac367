"""Reader for Codex CLI rollout JSONL (``~/.codex/sessions/…/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}``. What we take:

- ``event_msg``/``user_message``, or ``item_completed`` with a ``UserMessage`` item (Codex
  0.169) -> ``UserPrompt`` (the clean text a person typed; the
  ``response_item`` user messages also carry ``<environment_context>``, AGENTS.md and
  ``<turn_aborted>`` notes, so they are used only in old rollouts that have no event_msg);
- ``response_item``: ``message`` (assistant ``output_text``) -> ``AssistantText``,
  ``reasoning`` with a readable summary/content -> ``Thinking`` (encrypted ones are
  skipped), ``function_call``/``custom_tool_call``/``local_shell_call``/
  ``web_search_call`` -> ``ToolUse``, ``*_output`` -> ``ToolResult``;
- ``event_msg``/``turn_aborted`` (reason ``interrupted``) -> ``Interrupt``;
- ``compacted`` -> ``CompactBoundary`` (+ ``CompactSummary`` when ``payload.message`` is
  not empty; remote compaction leaves only an encrypted item). The ``event_msg``
  ``context_compacted`` written right after it is the same compaction, not a second one.

``event_msg`` ``agent_message``/``exec_command_end``/``token_count`` repeat what the
``response_item`` lines already say and are only counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._common import as_str, parse_timestamp
from .events import (
    AssistantText,
    CompactBoundary,
    CompactSummary,
    Interrupt,
    ReadStats,
    Thinking,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
)

FORMAT = "codex"

LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_TOOL_CALLS = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
)
_TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_EXIT_CODE = re.compile(r"Process exited with code (-?\d+)")


def _decode_args(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {"input": raw}
        return value if isinstance(value, dict) else {"input": value}
    return {} if raw is None else {"input": raw}


def _decode_output(raw: object) -> tuple[str, bool]:
    """Tool output -> (text, is_error). Old rollouts wrap it as JSON with metadata.exit_code."""
    if isinstance(raw, dict):
        raw = json.dumps(raw)
    text = as_str(raw)
    exit_code: int | None = None
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict) and "output" in value:
            meta = value.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            exit_code = code if isinstance(code, int) else None
            text = as_str(value.get("output"))
    if exit_code is None and (match := _EXIT_CODE.search(text[:400])):
        exit_code = int(match.group(1))
    return text, bool(exit_code)


def _texts(content: object, kinds: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        as_str(b.get("text"))
        for b in content
        if isinstance(b, dict) and b.get("type") in kinds and as_str(b.get("text")).strip()
    ]


class CodexParser:
    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self._saw_event_msg = False
        self._compaction_open = False
        self._saw_user_message = False

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        kind = as_str(obj.get("type")) or "<none>"
        payload = obj.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        sub = as_str(payload.get("type"))
        self.stats.by_type[f"{kind}/{sub}" if sub else kind] += 1
        ts = parse_timestamp(obj.get("timestamp"))
        if kind == "response_item":
            return self._response_item(sub, payload, ts)
        if kind == "event_msg":
            return self._event_msg(sub, payload, ts)
        if kind == "compacted":
            self._compaction_open = True
            events: list[TranscriptEvent] = [CompactBoundary(timestamp=ts)]
            message = as_str(payload.get("message")).strip()
            if message:
                events.append(CompactSummary(message, timestamp=ts))
            return events
        if kind not in LINE_TYPES:
            self.stats.unknown_types[kind] += 1
        return []

    def _event_msg(self, sub: str, payload: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        self._saw_event_msg = True
        if sub == "user_message":
            self._compaction_open = False
            self._saw_user_message = True
            text = as_str(payload.get("message")).strip()
            return [UserPrompt(text, timestamp=ts)] if text else []
        if sub == "item_completed":  # Codex ≥ 0.16x: prompts come as UserMessage items
            item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
            if item.get("type") != "UserMessage":
                return []  # agent messages and commands: the response_item lines have them
            text = "\n".join(_texts(item.get("content"), ("text", "input_text"))).strip()
            if not text or self._saw_user_message:  # a build writing both forms: once
                return []
            return [UserPrompt(text, timestamp=ts)]
        if sub == "turn_aborted":
            if payload.get("reason") == "interrupted":
                return [Interrupt(False, timestamp=ts)]
            return []
        if sub == "context_compacted":
            if self._compaction_open:  # the `compacted` line already stood for it
                self._compaction_open = False
                return []
            return [CompactBoundary(timestamp=ts)]
        return []

    def _response_item(self, sub: str, payload: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        if sub == "message":
            role = payload.get("role")
            if role == "assistant":
                text = "\n".join(_texts(payload.get("content"), ("output_text", "text")))
                return [AssistantText(text, timestamp=ts)] if text else []
            if role == "user" and not self._saw_event_msg:
                # Old rollouts: no event_msg, so the user message is the only copy.
                text = "\n".join(_texts(payload.get("content"), ("input_text", "text"))).strip()
                if text and not text.startswith(("<", "# AGENTS.md")):
                    return [UserPrompt(text, timestamp=ts)]
            self.stats.meta_lines += 1  # developer/instructions/environment context
            return []
        if sub == "reasoning":
            parts = _texts(payload.get("summary"), ("summary_text",)) or _texts(
                payload.get("content"), ("reasoning_text", "text")
            )
            return [Thinking("\n".join(parts), timestamp=ts)] if parts else []
        if sub in _TOOL_CALLS:
            call_id = as_str(payload.get("call_id")) or as_str(payload.get("id"))
            name = as_str(payload.get("name")) or sub.removesuffix("_call")
            if sub == "function_call":
                args = _decode_args(payload.get("arguments"))
            elif sub == "custom_tool_call":
                args = {"input": payload.get("input")}
            else:
                args = _decode_args(payload.get("action"))
            return [ToolUse(call_id, name, args, timestamp=ts)]
        if sub in _TOOL_OUTPUTS:
            text, is_error = _decode_output(payload.get("output"))
            return [ToolResult(as_str(payload.get("call_id")), text, is_error, timestamp=ts)]
        return []


__all__ = ["FORMAT", "CodexParser"]
