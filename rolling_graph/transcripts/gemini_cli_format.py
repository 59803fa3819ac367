"""Reader for Gemini CLI chat files (``~/.gemini/tmp/<project>/chats/session-*.jsonl``).

Lines: a header ``{"sessionId", "projectHash", "startTime", "kind"}``; ``{"$set": …}`` updates
(on resume one of them rewrites the whole message list, which is already in the file, so they
are only counted); and message records ``{"id", "timestamp", "type", "content", …}``:

- ``type: user`` with text parts -> ``UserPrompt`` (the ``<session_context>`` set-up and our own
  ``<hook_context>`` injections cut out); with ``functionResponse`` parts -> ``ToolResult``;
- ``type: gemini`` -> ``AssistantText`` (``content``), ``Thinking`` (``thoughts``) and one
  ``ToolUse`` per entry of ``toolCalls``. A record is written again, same ``id``, when its tool
  calls are known: text and calls already emitted are not repeated;
- ``info`` / ``error`` / ``warning`` records are counted only.
"""

from __future__ import annotations

import re
from typing import Any

from ._common import as_str, parse_timestamp
from .events import (
    AssistantText,
    ReadStats,
    Thinking,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
)

FORMAT = "gemini"
_STRIP = re.compile(r"<(hook_context|session_context)>.*?</\1>\s*", re.DOTALL)


def clean(text: str) -> str:
    return _STRIP.sub("", text).strip()


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    return [p for p in content or [] if isinstance(p, dict)]


def _response_text(response: Any) -> str:
    if isinstance(response, dict):
        for key in ("output", "error", "content"):
            if isinstance(response.get(key), str):
                return clean(response[key])
    return clean(str(response)) if response is not None else ""


class GeminiParser:
    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self._texts: set[str] = set()  # record ids whose text was emitted
        self._calls: set[str] = set()
        self._results: set[str] = set()

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        kind = as_str(obj.get("type")) or ("$set" if "$set" in obj else "<header>")
        self.stats.by_type[kind] += 1
        ts = parse_timestamp(obj.get("timestamp"))
        if kind == "user":
            return self._user(obj, ts)
        if kind == "gemini":
            return self._gemini(obj, ts)
        if kind not in ("$set", "<header>", "info", "error", "warning"):
            self.stats.unknown_types[kind] += 1
        self.stats.meta_lines += 1
        return []

    def _user(self, obj: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        out: list[TranscriptEvent] = []
        texts = []
        for part in _parts(obj.get("content")):
            fr = part.get("functionResponse")
            if isinstance(fr, dict):
                call_id = as_str(fr.get("id"))
                if call_id and call_id not in self._results:
                    self._results.add(call_id)
                    out.append(
                        ToolResult(call_id, _response_text(fr.get("response")), timestamp=ts)
                    )
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
        text = clean("\n".join(texts))
        if text:
            out.insert(0, UserPrompt(text, timestamp=ts))
        return out

    def _gemini(self, obj: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        out: list[TranscriptEvent] = []
        rid = as_str(obj.get("id"))
        if rid not in self._texts:
            self._texts.add(rid)
            for thought in obj.get("thoughts") or []:
                desc = thought.get("description") if isinstance(thought, dict) else thought
                if isinstance(desc, str) and desc.strip():
                    out.append(Thinking(desc.strip(), message_id=rid, timestamp=ts))
            text = "\n".join(p.get("text", "") for p in _parts(obj.get("content"))).strip()
            if text:
                out.append(
                    AssistantText(text, message_id=rid, model=obj.get("model"), timestamp=ts)
                )
        for call in obj.get("toolCalls") or []:
            if not isinstance(call, dict):
                continue
            call_id = as_str(call.get("id"))
            if call_id in self._calls:
                continue
            self._calls.add(call_id)
            args = call.get("args") if isinstance(call.get("args"), dict) else {}
            out.append(
                ToolUse(call_id, as_str(call.get("name")), args, message_id=rid, timestamp=ts)
            )
        return out


__all__ = ["FORMAT", "GeminiParser", "clean"]
