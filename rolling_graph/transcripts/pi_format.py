"""Reader for pi coding-agent session JSONL, version 3 (``~/.pi/agent/sessions/…/*.jsonl``).

Each line is an entry ``{"type", "id", "parentId", "timestamp", …}`` after a ``session``
header (``{"type": "session", "version": 3, "id", "cwd"}``). Entries form a tree through
``parentId`` (``/tree`` branches in place); they are read in file order, which for a session
never branched is the conversation's order. What we take:

- ``message`` with ``message.role``:

  - ``user`` -> ``UserPrompt``, except a skill invocation: pi expands ``/skill:name args``
    into ``<skill name="name" …>body</skill>`` followed by the args, which becomes
    ``SlashCommand("skill:name", args)`` (the skill body is the harness's text, not typed);
  - ``assistant``: ``text`` -> ``AssistantText``, ``thinking`` -> ``Thinking``, ``toolCall``
    -> ``ToolUse``; ``stopReason == "aborted"`` (Esc) -> ``Interrupt`` after the message;
    ``stopReason == "error"`` with no content is counted as synthetic;
  - ``toolResult`` -> ``ToolResult`` (``isError`` kept, images as ``[image]``);
  - ``bashExecution`` (the person's ``!cmd``) -> ``UserShellCommand`` + ``CommandOutput``;
  - ``custom``, ``branchSummary`` (extension and harness messages) are counted as injected;
    ``compactionSummary`` -> ``CompactSummary``;

- ``compaction`` -> ``CompactBoundary`` (``tokensBefore`` as ``pre_tokens``) +
  ``CompactSummary``;
- ``custom_message`` (extension text put into the model's context: enriched prompts, project
  trees, reminders) and ``branch_summary`` are counted as injected, never prompts;
- ``session_info`` -> ``SessionTitle`` (``/name``);
- ``session``, ``model_change``, ``thinking_level_change``, ``custom`` (extension state),
  ``label``: counted only.
"""

from __future__ import annotations

import re
from typing import Any

from ._common import as_int, as_str, parse_timestamp
from .events import (
    AssistantText,
    CommandOutput,
    CompactBoundary,
    CompactSummary,
    Interrupt,
    ReadStats,
    SessionTitle,
    SlashCommand,
    Thinking,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
    UserShellCommand,
)

FORMAT = "pi"

#: entry types pi writes that carry nothing for the event stream (counted only)
QUIET_TYPES = frozenset({"session", "model_change", "thinking_level_change", "custom", "label"})
#: every entry type this reader knows
ENTRY_TYPES = QUIET_TYPES | {
    "message",
    "compaction",
    "custom_message",
    "branch_summary",
    "session_info",
}
_SKILL = re.compile(r'^\s*<skill name="([^"]+)"[^>]*>.*?</skill>\s*', re.DOTALL)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)


def _text(content: object, kinds: tuple[str, ...] = ("text",)) -> str:
    """A string, or the joined text of ``kinds`` blocks (images as ``[image]``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in kinds:
            parts.append(as_str(block.get("text")))
        elif kind == "image":
            parts.append("[image]")
    return "\n".join(p for p in parts if p)


class PiParser:
    """Stateless apart from its counters; see the module docstring for the rules."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        kind = as_str(obj.get("type")) or "<none>"
        ts = parse_timestamp(obj.get("timestamp"))
        uuid = as_str(obj.get("id")) or None
        if kind == "message":
            message = obj.get("message")
            message = message if isinstance(message, dict) else {}
            role = as_str(message.get("role")) or "<none>"
            self.stats.by_type[f"message/{role}"] += 1
            return self._message(role, message, ts, uuid)
        self.stats.by_type[kind] += 1
        if kind == "compaction":
            boundary = CompactBoundary(
                pre_tokens=as_int(obj.get("tokensBefore")), timestamp=ts, uuid=uuid
            )
            summary = as_str(obj.get("summary")).strip()
            return [boundary, CompactSummary(summary, timestamp=ts)] if summary else [boundary]
        if kind in ("custom_message", "branch_summary"):
            self.stats.injected_lines += 1
            return []
        if kind == "session_info":
            name = as_str(obj.get("name")).strip()
            return [SessionTitle(name, "session-info", timestamp=ts, uuid=uuid)] if name else []
        if kind not in ENTRY_TYPES:
            self.stats.unknown_types[kind] += 1
        return []

    def _message(
        self, role: str, message: dict[str, Any], ts: Any, uuid: str | None
    ) -> list[TranscriptEvent]:
        if role == "user":
            return self._user(_text(message.get("content")), ts, uuid)
        if role == "assistant":
            return self._assistant(message, ts, uuid)
        if role == "toolResult":
            text = _text(message.get("content"))
            is_error = message.get("isError") is True
            call_id = as_str(message.get("toolCallId"))
            return [ToolResult(call_id, text, is_error, timestamp=ts, uuid=uuid)]
        if role == "bashExecution":
            command = as_str(message.get("command")).strip()
            if not command:
                return []
            events: list[TranscriptEvent] = [UserShellCommand(command, timestamp=ts, uuid=uuid)]
            output = as_str(message.get("output"))
            if output.strip():
                events.append(CommandOutput(output, timestamp=ts))
            return events
        if role == "compactionSummary":
            summary = as_str(message.get("summary")).strip()
            return [CompactSummary(summary, timestamp=ts)] if summary else []
        if role in ("custom", "branchSummary"):
            self.stats.injected_lines += 1
            return []
        self.stats.unknown_types[f"message/{role}"] += 1
        return []

    def _user(self, text: str, ts: Any, uuid: str | None) -> list[TranscriptEvent]:
        skill = _SKILL.match(text)
        if skill:
            args = _REMINDER.sub("", text[skill.end() :]).strip()
            return [SlashCommand(f"skill:{skill.group(1)}", args, timestamp=ts, uuid=uuid)]
        text = _REMINDER.sub("", text).strip()
        if not text:
            self.stats.injected_lines += 1  # only harness tags: nothing typed
            return []
        return [UserPrompt(text, timestamp=ts, uuid=uuid)]

    def _assistant(
        self, message: dict[str, Any], ts: Any, uuid: str | None
    ) -> list[TranscriptEvent]:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        model = as_str(message.get("model")) or None
        events: list[TranscriptEvent] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and as_str(block.get("text")).strip():
                events.append(AssistantText(block["text"], uuid, model, timestamp=ts))
            elif kind == "thinking" and as_str(block.get("thinking")).strip():
                events.append(Thinking(block["thinking"], uuid, timestamp=ts))
            elif kind == "toolCall":
                args = block.get("arguments")
                args = args if isinstance(args, dict) else {"input": args}
                call_id, name = as_str(block.get("id")), as_str(block.get("name"))
                events.append(ToolUse(call_id, name, args, uuid, timestamp=ts))
        stop = message.get("stopReason")
        if stop == "aborted":
            during = any(isinstance(e, ToolUse) for e in events)
            events.append(Interrupt(during, timestamp=ts))
        elif stop == "error" and not events:
            self.stats.synthetic_lines += 1  # an API error the harness recorded
        return events


__all__ = ["ENTRY_TYPES", "FORMAT", "PiParser"]
