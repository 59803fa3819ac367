"""Reader for GitHub Copilot CLI session events (``~/.copilot/session-state/<id>/events.jsonl``).

Each line is ``{"type", "data", "id", "timestamp", "parentId"}``. What we take:

- ``user.message`` -> ``UserPrompt`` (``data.content``: what the person typed, without the
  date and the hooks' ``<system_reminder>`` that ``transformedContent`` adds);
- ``assistant.message`` -> ``AssistantText`` (``data.content``) and one ``ToolUse`` per
  ``data.toolRequests`` entry;
- ``tool.execution_complete`` -> ``ToolResult`` (``detailedContent``, which leaves out the
  guidance that postToolUse hooks appended, else ``content``);
- ``session.compaction_complete`` (or any ``*compaction*`` event with a summary) ->
  ``CompactBoundary`` (+ ``CompactSummary``).

Hook runs, usage records, turn markers and session start/shutdown are counted only.
"""

from __future__ import annotations

from typing import Any

from ._common import as_str, parse_timestamp
from .events import (
    AssistantText,
    CompactBoundary,
    CompactSummary,
    ReadStats,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
)

FORMAT = "copilot"


class CopilotParser:
    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        kind = as_str(obj.get("type")) or "<none>"
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        self.stats.by_type[kind] += 1
        ts = parse_timestamp(obj.get("timestamp"))
        if kind == "user.message":
            text = as_str(data.get("content")).strip()
            return [UserPrompt(text, timestamp=ts)] if text else []
        if kind == "assistant.message":
            return self._assistant(data, ts)
        if kind == "tool.execution_complete":
            result = data.get("result") if isinstance(data.get("result"), dict) else {}
            text = as_str(result.get("detailedContent")) or as_str(result.get("content"))
            ok = data.get("success") is not False
            return [ToolResult(as_str(data.get("toolCallId")), text, not ok, timestamp=ts)]
        if "compaction" in kind and kind.endswith(("complete", "completed")):
            summary = as_str(data.get("summary") or data.get("summaryContent")).strip()
            events: list[TranscriptEvent] = [CompactBoundary(timestamp=ts)]
            return events + ([CompactSummary(summary, timestamp=ts)] if summary else [])
        self.stats.meta_lines += 1
        return []

    def _assistant(self, data: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        mid = as_str(data.get("messageId")) or None
        out: list[TranscriptEvent] = []
        text = as_str(data.get("content")).strip()
        if text:
            out.append(AssistantText(text, message_id=mid, model=data.get("model"), timestamp=ts))
        for req in data.get("toolRequests") or []:
            if isinstance(req, dict):
                args = req.get("arguments") if isinstance(req.get("arguments"), dict) else {}
                out.append(
                    ToolUse(
                        as_str(req.get("toolCallId")),
                        as_str(req.get("name")),
                        args,
                        message_id=mid,
                        timestamp=ts,
                    )
                )
        return out


__all__ = ["FORMAT", "CopilotParser"]
