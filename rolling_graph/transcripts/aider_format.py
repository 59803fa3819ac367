"""Reader for aider's chat history (``.aider.chat.history.md``, appended to by every run).

Replay only: aider has no hooks. The file is Markdown written by aider's terminal I/O:

- ``# aider chat started at 2025-07-15 11:38:37``: a run begins; its time (aider writes local
  time without a zone: read as UTC, like other naive stamps) stamps the events that follow.
- ``#### text`` lines: what the person typed, one line each; consecutive ``####`` lines are one
  input. ``/cmd args`` -> ``SlashCommand``, ``!cmd`` -> ``UserShellCommand``, otherwise
  ``UserPrompt``. An answer to aider's own question (``Add file to the chat? (Y)es/… : y``)
  that was logged as input is counted as injected, not a prompt.
- ``> text`` lines: aider's own output (startup banner, token costs, confirmations). Of these
  ``Applied edit to FILE`` -> ``ToolUse(Edit)`` + ``ToolResult``, ``Running CMD`` ->
  ``ToolUse(Bash)`` + ``ToolResult`` (the lines up to the next such note, less aider's own
  questions and "Added … to the chat"); the rest is counted.
- Every other line is the model's reply -> ``AssistantText`` (one per reply; inside a fenced
  code block, ``>`` and ``####`` lines are the reply's text).

No compaction is recorded in this file, and no interrupt the reader could tell from ``^C`` at
the input prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ._common import parse_timestamp
from .events import (
    AssistantText,
    ReadStats,
    SlashCommand,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
    UserShellCommand,
)

FORMAT = "aider"

_STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)\s*$")
_INPUT = re.compile(r"^####(?: |$)")
_NOTE = re.compile(r"^>(?: |$)")
_CONFIRM = re.compile(r"\? \(Y\)es/.*\]: ?\S*$")
_SLASH = re.compile(r"^/([\w:.-]+)(?:\s+(.*))?$", re.DOTALL)
_APPLIED = re.compile(r"^Applied edit to (.+)$")
_RUNNING = re.compile(r"^Running (.+)$")


def looks_like_aider(text: str) -> bool:
    """Aider's history: a ``# aider chat started at`` line near the top."""
    return any(_STARTED.match(line.rstrip()) for line in text.splitlines()[:50])


@dataclass(slots=True)
class _State:
    ts: datetime | None = None
    kind: str = ""  # start | input | note | reply | gap
    lines: list[str] = field(default_factory=list)
    fence: bool = False


class AiderParser:
    """Turns a whole history file into events; see the module docstring for the rules."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self._calls = 0

    def parse(self, text: str) -> list[TranscriptEvent]:
        st = _State()
        events: list[TranscriptEvent] = []
        for raw in text.splitlines():
            line = raw.rstrip()
            if line.strip():
                self.stats.lines_read += 1
            kind = self._kind(line, st)
            if kind != st.kind:
                events += self._flush(st)
                st.kind = kind
            if kind == "start":
                self.stats.by_type["session"] += 1
                if (started := _STARTED.match(line)) is not None:
                    st.ts = parse_timestamp(started.group(1))
                continue
            if kind == "reply" and line.lstrip().startswith("```"):
                st.fence = not st.fence
            st.lines.append(line)
        events += self._flush(st)
        return events

    @staticmethod
    def _kind(line: str, st: _State) -> str:
        if st.kind == "reply" and st.fence:
            return "reply"
        if _STARTED.match(line):
            return "start"
        if _INPUT.match(line):
            return "input"
        if _NOTE.match(line):
            return "note"
        if st.kind != "reply" and not line.strip():
            return "gap"  # blank lines between blocks belong to none; they end an input
        return "reply"

    def _flush(self, st: _State) -> list[TranscriptEvent]:
        lines, kind = st.lines, st.kind
        st.lines = []
        st.fence = False
        if not lines or kind == "gap":
            return []
        self.stats.by_type[kind] += 1
        if kind == "input":
            return self._input([_INPUT.sub("", x, count=1) for x in lines], st.ts)
        if kind == "note":
            return self._notes([_NOTE.sub("", x, count=1) for x in lines], st.ts)
        text = "\n".join(lines).strip()
        return [AssistantText(text, timestamp=st.ts)] if text else []

    def _input(self, lines: list[str], ts: Any) -> list[TranscriptEvent]:
        typed = "\n".join(x.rstrip() for x in lines).strip()
        if not typed:
            return []
        if len(lines) == 1 and _CONFIRM.search(typed):
            self.stats.injected_lines += 1  # an answer to aider's question, logged as input
            return []
        if (slash := _SLASH.match(typed)) is not None:
            return [SlashCommand(slash.group(1), (slash.group(2) or "").strip(), timestamp=ts)]
        if typed.startswith("!"):
            return [UserShellCommand(typed[1:].strip(), timestamp=ts)]
        return [UserPrompt(typed, timestamp=ts)]

    def _notes(self, lines: list[str], ts: Any) -> list[TranscriptEvent]:
        events: list[TranscriptEvent] = []
        use: ToolUse | None = None
        output: list[str] = []
        for line in [x.strip() for x in lines]:
            applied, running = _APPLIED.match(line), _RUNNING.match(line)
            if applied is not None or running is not None:
                events += _finish(use, output, ts)
                self._calls += 1
                call_id = f"aider-{self._calls}"
                if applied is not None:
                    use = ToolUse(call_id, "Edit", {"file_path": applied.group(1)}, timestamp=ts)
                    output = [line]
                elif running is not None:
                    use = ToolUse(call_id, "Bash", {"command": running.group(1)}, timestamp=ts)
                    output = []
            elif use is not None and use.name == "Bash" and line and not _aider_says(line):
                output.append(line)
            elif line:
                self.stats.meta_lines += 1
        return events + _finish(use, output, ts)


def _aider_says(line: str) -> bool:
    """aider's own words after a command: its question and what it did with the output."""
    return bool(_CONFIRM.search(line)) or line.startswith(("Added ", "Tokens: "))


def _finish(use: ToolUse | None, output: list[str], ts: Any) -> list[TranscriptEvent]:
    if use is None:
        return []
    return [use, ToolResult(use.tool_use_id, "\n".join(output), timestamp=ts)]


def parse_aider(text: str, stats: ReadStats | None = None) -> list[TranscriptEvent]:
    """All events of an aider history's text (``stats`` collects the counts)."""
    return AiderParser(stats).parse(text)


__all__ = ["FORMAT", "AiderParser", "looks_like_aider", "parse_aider"]
