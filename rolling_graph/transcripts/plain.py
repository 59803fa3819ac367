"""Reader for plain role/content JSONL: one ``{"timestamp", "role", "content"}`` per line.

This is the ``claude-code-simplified`` kind in shared/data: a per-block export of a Claude
Code session where ``content`` is one block (a dict), but a string or a list of blocks is
accepted too. Roles: ``user``, ``assistant``, ``tool`` (tool results; ``system`` is counted
and ignored). Blocks: ``text``, ``thinking``, ``tool_use`` (``tool_name``/``name``,
``tool_id``/``id``, ``input``), ``tool_result`` (``tool_id``/``tool_use_id``,
``output``/``content``, ``is_error``).

User text goes through the same rules as Claude Code's (interrupts, task notifications,
slash-command wrappers are not prompts). There is no compaction marker in this format, so
a user text that opens with Claude Code's continuation preamble stands for one: it yields
a ``CompactBoundary`` (trigger unknown) followed by the ``CompactSummary``.
"""

from __future__ import annotations

from typing import Any

from ._common import as_str, parse_timestamp
from .claude_code_format import ClaudeCodeParser
from .events import (
    AssistantText,
    CompactBoundary,
    CompactSummary,
    ReadStats,
    Thinking,
    ToolResult,
    ToolUse,
    TranscriptEvent,
)

FORMAT = "plain"

#: Claude Code's first words in a post-compaction summary message
CONTINUATION_PREFIX = "This session is being continued from a previous conversation"

ROLES = frozenset({"user", "assistant", "tool", "system"})


def _blocks(content: object) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    return []


class PlainParser:
    def __init__(self, stats: ReadStats | None = None) -> None:
        # Borrow Claude Code's user-text rules; it holds the one shared stats object.
        self._cc = ClaudeCodeParser(stats if stats is not None else ReadStats())

    @property
    def stats(self) -> ReadStats:
        return self._cc.stats

    @stats.setter
    def stats(self, value: ReadStats) -> None:
        self._cc.stats = value

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        role = as_str(obj.get("role")) or "<none>"
        self.stats.by_type[role] += 1
        if role not in ROLES:
            self.stats.unknown_types[role] += 1
            return []
        ts = parse_timestamp(obj.get("timestamp"))
        uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        events: list[TranscriptEvent] = []
        texts: list[str] = []
        for block in _blocks(obj.get("content")):
            kind = block.get("type")
            if kind == "text":
                text = as_str(block.get("text"))
                if role == "assistant":  # in block order, between tool calls
                    if text.strip():
                        events.append(AssistantText(text, timestamp=ts, uuid=uuid))
                else:
                    texts.append(text)
            elif kind == "thinking":
                text = as_str(block.get("text")) or as_str(block.get("thinking"))
                if text.strip():
                    events.append(Thinking(text, timestamp=ts, uuid=uuid))
            elif kind == "tool_use":
                raw = block.get("input")
                events.append(
                    ToolUse(
                        as_str(block.get("tool_id")) or as_str(block.get("id")),
                        as_str(block.get("tool_name")) or as_str(block.get("name")),
                        raw if isinstance(raw, dict) else {"input": raw},
                        timestamp=ts,
                        uuid=uuid,
                    )
                )
            elif kind == "tool_result":
                output = block.get("output", block.get("content"))
                events.append(
                    ToolResult(
                        as_str(block.get("tool_id")) or as_str(block.get("tool_use_id")),
                        output
                        if isinstance(output, str)
                        else ("" if output is None else str(output)),
                        block.get("is_error") is True,
                        timestamp=ts,
                        uuid=uuid,
                    )
                )
        if not texts:
            return events
        if role == "user":
            joined = "\n".join(texts).strip()
            if joined.startswith(CONTINUATION_PREFIX):
                events += [
                    CompactBoundary(timestamp=ts, uuid=uuid),
                    CompactSummary(joined, timestamp=ts, uuid=uuid),
                ]
            else:
                events += self._cc.classify_user_text(texts, ts, uuid)
        return events


__all__ = ["CONTINUATION_PREFIX", "FORMAT", "PlainParser"]
