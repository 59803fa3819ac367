"""Reader for Claude Code session JSONL (``~/.claude/projects/<cwd>/<session>.jsonl``).

Rules (see research/harness-hooks.md §2 and the real files in shared/data):

- ``isSidechain`` lines (subagent conversations) are set aside and counted.
- An assistant API message may span several lines sharing ``message.id``, one block per
  line; blocks are emitted in file order and a block already seen for that id (streaming
  repeat, or history copied into the file by ``--resume``/fork) is dropped and counted.
- ``tool_result`` blocks in user lines are ``ToolResult`` events, never prompts.
- A real prompt is a non-meta user line whose text, after stripping IDE and
  ``<system-reminder>`` tags, is what a person typed. Harness wrappers become their own
  events: ``<command-name>`` -> ``SlashCommand``, ``<bash-input>`` -> ``UserShellCommand``,
  ``<local-command-stdout>``/``<bash-stdout>`` -> ``CommandOutput``,
  ``[Request interrupted by user…]`` -> ``Interrupt``; ``<task-notification>`` and
  tag-only lines are counted as injected.
- Prompts typed while the agent is busy are queued: ``queue-operation`` ``enqueue`` then
  ``dequeue`` (delivered later as a normal user line), ``popAll`` (pulled back into the
  editor) or ``remove`` (consumed mid-turn; in 2.1.39 it leaves no user line, in newer
  versions an ``attachment`` of type ``queued_command`` follows). A ``remove`` emits
  ``UserPrompt(queued=True)``; a ``queued_command`` attachment emits one only if its text
  was not emitted by the ``remove`` just before.
- ``system`` ``compact_boundary`` -> ``CompactBoundary``; the ``isCompactSummary`` user
  line after it -> ``CompactSummary``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from typing import Any

from ._common import as_int, as_str, parse_timestamp, run_parser
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

FORMAT = "claude-code"

#: line types Claude Code writes that carry nothing for the event stream (counted only)
KNOWN_QUIET_TYPES = frozenset(
    {
        "file-history-snapshot",
        "progress",
        "permission-mode",
        "mode",
        "last-prompt",
        "agent-name",
        "tag",
        "pr-link",  # the pull request a session opened (newer Claude Code)
    }
)

# Tags the harness wraps around context it adds to a typed prompt; stripped before deciding.
_CONTEXT_TAGS = re.compile(
    r"<(ide_opened_file|ide_selection|ide_diagnostics|system-reminder)>.*?</\1>\s*",
    re.DOTALL,
)
_TAG = re.compile(r"<([a-z-]+)>(.*?)</\1>", re.DOTALL)
# A background task's notification recorded as a user line: a JSON object naming the task.
_TASK_JSON = re.compile(r'^\s*\{\s*"task_id"\s*:\s*"[^"]*".*"task_type"\s*:', re.S)
_INTERRUPT = "[Request interrupted by user"
_OUTPUT_TAGS = {
    "local-command-stdout": "stdout",
    "local-command-stderr": "stderr",
    "bash-stdout": "stdout",
    "bash-stderr": "stderr",
}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Events with their own dedupe key (message.id block, tool_use_id).
_SELF_KEYED = (AssistantText, Thinking, ToolUse, ToolResult)


def _tags(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _TAG.finditer(text)}


def _flatten_tool_content(content: object) -> str:
    """tool_result content is a string or a list of text/image/tool_reference blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(as_str(block.get("text")))
        elif kind == "image":
            parts.append("[image]")
        elif kind == "tool_reference":
            parts.append(f"[tool {as_str(block.get('tool_name'))}]")
    return "\n".join(p for p in parts if p)


class ClaudeCodeParser:
    """Stateful line parser; see the module docstring for the rules."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self._blocks_seen: dict[str, set[object]] = {}
        self._results_seen: set[str] = set()
        self._events_seen: set[TranscriptEvent] = set()
        self._queued: list[str] = []
        self._queued_emitted: list[str] = []
        self._last_title: str | None = None

    # -- dispatch ---------------------------------------------------------------------------

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]:
        kind = as_str(obj.get("type")) or "<none>"
        self.stats.by_type[kind] += 1
        ts = parse_timestamp(obj.get("timestamp"))
        self.stats.saw_time(ts)
        if obj.get("isSidechain") is True:
            self.stats.sidechain_lines += 1
            return []
        return self._drop_copies(self._dispatch(kind, obj, ts))

    def _drop_copies(self, events: list[TranscriptEvent]) -> list[TranscriptEvent]:
        """Drop person-side/compaction events already emitted with the same time and payload.

        ``--resume``/fork copies earlier lines into the file with new uuids but the original
        timestamps; the assistant side is deduplicated by ``message.id`` and tool results by
        ``tool_use_id``, everything else here.
        """
        kept: list[TranscriptEvent] = []
        for event in events:
            if not isinstance(event, _SELF_KEYED):
                key = replace(event, uuid=None)
                if key in self._events_seen:
                    self.stats.duplicates_dropped += 1
                    continue
                self._events_seen.add(key)
            kept.append(event)
        return kept

    def _dispatch(
        self, kind: str, obj: dict[str, Any], ts: datetime | None
    ) -> list[TranscriptEvent]:
        uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        if kind == "user":
            return self._user(obj, ts, uuid)
        if kind == "assistant":
            return self._assistant(obj, ts, uuid)
        if kind == "system":
            return self._system(obj, ts, uuid)
        if kind == "queue-operation":
            return self._queue(obj, ts)
        if kind == "attachment":
            return self._attachment(obj, ts, uuid)
        if kind == "summary":
            return self._title(as_str(obj.get("summary")), "summary", ts)
        if kind == "custom-title":
            return self._title(as_str(obj.get("customTitle")), "custom-title", ts)
        if kind == "ai-title":
            return self._title(as_str(obj.get("aiTitle")), "ai-title", ts)
        if kind not in KNOWN_QUIET_TYPES:
            self.stats.unknown_types[kind] += 1
        return []

    # -- user lines -------------------------------------------------------------------------

    def _user(self, obj: dict[str, Any], ts: Any, uuid: str | None) -> list[TranscriptEvent]:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        texts: list[str] = []
        events: list[TranscriptEvent] = []
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    tool_id = as_str(block.get("tool_use_id"))
                    if tool_id in self._results_seen:
                        self.stats.duplicates_dropped += 1
                        continue
                    self._results_seen.add(tool_id)
                    events.append(
                        ToolResult(
                            tool_id,
                            _flatten_tool_content(block.get("content")),
                            block.get("is_error") is True,
                            timestamp=ts,
                            uuid=uuid,
                        )
                    )
                elif block.get("type") == "text":
                    texts.append(as_str(block.get("text")))
        if not texts:
            return events
        text = "\n".join(texts)
        if obj.get("isCompactSummary") is True:
            return [*events, CompactSummary(text, timestamp=ts, uuid=uuid)]
        if obj.get("isMeta") is True:
            self.stats.meta_lines += 1
            return events
        return events + self.classify_user_text(texts, ts, uuid)

    def classify_user_text(
        self, texts: list[str], ts: Any, uuid: str | None
    ) -> list[TranscriptEvent]:
        """Decide what a person-side text is: prompt, command, output, interrupt, injected."""
        raw = "\n".join(texts).strip()
        tags = _tags(raw)
        if "command-name" in tags:
            name = tags["command-name"].strip().lstrip("/")
            return [
                SlashCommand(name, tags.get("command-args", "").strip(), timestamp=ts, uuid=uuid)
            ]
        if "bash-input" in tags:
            return [UserShellCommand(tags["bash-input"].strip(), timestamp=ts, uuid=uuid)]
        out_tags = [t for t in _OUTPUT_TAGS if t in tags]
        if out_tags and raw.startswith("<"):
            events: list[TranscriptEvent] = []
            for tag in out_tags:
                body = _ANSI.sub("", tags[tag]).strip()
                if body:
                    events.append(CommandOutput(body, _OUTPUT_TAGS[tag], timestamp=ts, uuid=uuid))
            return events
        if raw.startswith("<local-command-caveat>"):
            self.stats.meta_lines += 1
            return []
        if raw.startswith("<task-notification>") or _TASK_JSON.match(raw):
            self.stats.injected_lines += 1
            return []
        # Strip context tags block by block: an IDE tag often sits in its own block.
        kept = [_CONTEXT_TAGS.sub("", t).strip() for t in texts]
        interrupts = [t for t in kept if t.startswith(_INTERRUPT)]
        kept = [t for t in kept if t and not t.startswith(_INTERRUPT)]
        events = [Interrupt("for tool use" in t, timestamp=ts, uuid=uuid) for t in interrupts[:1]]
        if not kept:
            if not events:
                self.stats.injected_lines += 1
            return events
        text = "\n".join(kept)
        return events + self._prompt(text, ts, uuid, queued=False)

    def _prompt(
        self, text: str, ts: Any, uuid: str | None, *, queued: bool
    ) -> list[TranscriptEvent]:
        if not queued and text in self._queued_emitted:
            # A queued prompt taken out of the queue (``remove``) was already emitted; when
            # the person then sends it as a normal line it is the same prompt, not a second.
            self._queued_emitted.remove(text)
            self.stats.duplicates_dropped += 1
            return []
        return [UserPrompt(text, queued, timestamp=ts, uuid=uuid)]

    # -- queued prompts ---------------------------------------------------------------------

    @staticmethod
    def _is_human_queue_text(text: str) -> bool:
        # Task notifications ride the same queue (as ``<task-notification>`` or as a bare
        # ``{"task_id": …, "task_type": …}`` object); a queued "/cmd" shows up as a command line.
        return (
            bool(text.strip())
            and not text.lstrip().startswith(("<", "/"))
            and not _TASK_JSON.match(text)
        )

    def _queue(self, obj: dict[str, Any], ts: Any) -> list[TranscriptEvent]:
        op = obj.get("operation")
        content = as_str(obj.get("content"))
        if op == "enqueue":
            self._queued.append(content)
        elif op == "dequeue":
            if self._queued:
                self._queued.pop(0)
        elif op == "popAll":
            self._queued.clear()
        elif op == "remove" and self._queued:
            # ``remove`` names no item; task notifications sit in the same queue, so take
            # the latest human-typed one (the person acts on what they just typed).
            human = [i for i, t in enumerate(self._queued) if self._is_human_queue_text(t)]
            text = self._queued.pop(human[-1] if human else 0)
            if self._is_human_queue_text(text):
                self._queued_emitted.append(text.strip())
                return self._prompt(text.strip(), ts, None, queued=True)
        return []

    def _attachment(self, obj: dict[str, Any], ts: Any, uuid: str | None) -> list[TranscriptEvent]:
        att = obj.get("attachment")
        if not isinstance(att, dict) or att.get("type") != "queued_command":
            return []
        text = as_str(att.get("prompt")).strip()
        if att.get("commandMode", "prompt") != "prompt" or not self._is_human_queue_text(text):
            return []
        if text in self._queued_emitted:
            self._queued_emitted.remove(text)
            return []
        return self._prompt(text, ts, uuid, queued=True)

    # -- assistant lines --------------------------------------------------------------------

    def _assistant(self, obj: dict[str, Any], ts: Any, uuid: str | None) -> list[TranscriptEvent]:
        message = obj.get("message")
        if not isinstance(message, dict):
            return []
        model = message.get("model") if isinstance(message.get("model"), str) else None
        if model == "<synthetic>" or obj.get("isApiErrorMessage") is True:
            self.stats.synthetic_lines += 1
            return []
        mid = message.get("id") if isinstance(message.get("id"), str) else None
        content = message.get("content")
        blocks: list[Any] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        )
        seen = self._blocks_seen.setdefault(mid, set()) if mid else set()
        events: list[TranscriptEvent] = []
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind in ("tool_use", "server_tool_use"):
                key: object = ("tool", as_str(block.get("id")))
            elif kind == "text":
                key = ("text", as_str(block.get("text")))
            elif kind == "thinking":
                key = ("thinking", as_str(block.get("thinking")))
            else:
                continue  # redacted_thinking, web_search_tool_result…: nothing readable
            if key in seen:
                self.stats.duplicates_dropped += 1
                continue
            seen.add(key)
            if kind == "text":
                if as_str(block.get("text")).strip():
                    events.append(AssistantText(block["text"], mid, model, timestamp=ts, uuid=uuid))
            elif kind == "thinking":
                if as_str(block.get("thinking")).strip():
                    events.append(Thinking(block["thinking"], mid, timestamp=ts, uuid=uuid))
            else:
                raw_input = block.get("input")
                events.append(
                    ToolUse(
                        as_str(block.get("id")),
                        as_str(block.get("name")),
                        raw_input if isinstance(raw_input, dict) else {"input": raw_input},
                        mid,
                        timestamp=ts,
                        uuid=uuid,
                    )
                )
        return events

    # -- system and title lines -------------------------------------------------------------

    def _system(self, obj: dict[str, Any], ts: Any, uuid: str | None) -> list[TranscriptEvent]:
        subtype = obj.get("subtype")
        if subtype == "compact_boundary":
            meta = obj.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            trigger = meta.get("trigger") if isinstance(meta.get("trigger"), str) else None
            return [
                CompactBoundary(
                    trigger,
                    as_int(meta.get("preTokens")),
                    as_int(meta.get("postTokens")),
                    timestamp=ts,
                    uuid=uuid,
                )
            ]
        if subtype == "local_command":
            # Older versions log slash commands and their output as system lines.
            text = as_str(obj.get("content"))
            return self.classify_user_text([text], ts, uuid) if text.strip() else []
        return []

    def _title(self, text: str, source: str, ts: Any) -> list[TranscriptEvent]:
        text = text.strip()
        if not text or text == self._last_title:  # ai-title is re-written every turn
            return []
        self._last_title = text
        return [SessionTitle(text, source, timestamp=ts)]


def parse_lines(
    raw_lines: Iterable[bytes], stats: ReadStats | None = None
) -> list[TranscriptEvent]:
    """Parse Claude Code JSONL lines (bytes, one JSON object each) into events."""
    parser = ClaudeCodeParser(stats)
    return run_parser(parser, raw_lines)


__all__ = ["FORMAT", "ClaudeCodeParser", "parse_lines"]
