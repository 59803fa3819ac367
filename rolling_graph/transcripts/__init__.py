"""Transcript readers: Claude Code, Codex CLI, Gemini CLI, Copilot CLI, pi and plain role/content
JSONL, and two text formats (Claude Code's ``/export`` and aider's chat history) -> one event
stream.

Stdlib only: the thin hook path imports this.

- ``read_transcript(path)`` reads a whole file (format auto-detected) into a ``Transcript``.
- ``IncrementalReader(path).read(offset)`` returns the complete events written since a
  saved byte offset and the offset to save next; the hook keeps one offset per session.
  The text formats are replay only (``TEXT_FORMATS``): no live hook reads them, and the
  incremental reader refuses them.
- Detection sniffs content, never the file name: JSON lines by their keys; a file whose head
  is mostly not JSON by the text formats' own marks (aider's ``# aider chat started at``,
  the export's welcome box or its ``>`` prompts and ``●`` items).

Events are defined in ``rolling_graph.transcripts.events``.

May import: nothing.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._common import LineParser, decode_lines, run_parser
from .aider_format import looks_like_aider, parse_aider
from .claude_code_export_format import looks_like_export, parse_export
from .claude_code_format import ClaudeCodeParser
from .codex_format import LINE_TYPES as _CODEX_TYPES
from .codex_format import CodexParser
from .copilot_cli_format import CopilotParser
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
    Transcript,
    TranscriptEvent,
    UserPrompt,
    UserShellCommand,
)
from .gemini_cli_format import GeminiParser
from .pi_format import PiParser
from .plain import PlainParser

CLAUDE_CODE = "claude-code"
CODEX = "codex"
GEMINI = "gemini"
COPILOT = "copilot"
PLAIN = "plain"
PI = "pi"
CLAUDE_CODE_EXPORT = "claude-code-export"
AIDER = "aider"

#: text formats: read whole, for replay only (no live hook writes or reads them)
TEXT_FORMATS = (CLAUDE_CODE_EXPORT, AIDER)
SUPPORTED_FORMATS = (CLAUDE_CODE, CODEX, GEMINI, COPILOT, PI, PLAIN, *TEXT_FORMATS)

_PARSERS: dict[str, type[LineParser]] = {
    CLAUDE_CODE: ClaudeCodeParser,
    CODEX: CodexParser,
    GEMINI: GeminiParser,
    COPILOT: CopilotParser,
    PI: PiParser,
    PLAIN: PlainParser,
}
_TEXT_PARSERS: dict[str, Callable[[str, ReadStats], list[TranscriptEvent]]] = {
    CLAUDE_CODE_EXPORT: parse_export,
    AIDER: parse_aider,
}

_CLAUDE_CODE_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "ai-title",
        "last-prompt",
        "permission-mode",
        "progress",
        "attachment",
        "mode",
        "agent-name",
    }
)
_PI_TYPES = frozenset({"session", "model_change", "thinking_level_change", "custom_message"})

#: how many valid lines (and bytes) detection looks at
_DETECT_LINES = 50
_DETECT_BYTES = 256 * 1024


class UnsupportedFormatError(ValueError):
    """The file is not in a format these readers know (``format`` says what was seen)."""

    def __init__(
        self, path: Path, fmt: str | None, why: str = "unsupported transcript format"
    ) -> None:
        super().__init__(f"{path}: {why} ({fmt or 'unrecognised'})")
        self.path = path
        self.format = fmt


def detect_format_from_objects(objs: Iterable[dict[str, Any]]) -> str | None:
    """Decide the format from the first decoded lines; ``None`` if they do not tell."""
    for n, obj in enumerate(objs):
        if n >= _DETECT_LINES:
            break
        kind = obj.get("type")
        if kind in _CODEX_TYPES and "payload" in obj:
            return CODEX
        if "projectHash" in obj or "$set" in obj or (kind == "gemini" and "content" in obj):
            return GEMINI  # before Claude Code: Gemini's header also has a sessionId
        if isinstance(kind, str) and "." in kind and isinstance(obj.get("data"), dict):
            return COPILOT
        if kind in _PI_TYPES or (kind == "message" and "parentId" in obj):
            return PI
        if kind in _CLAUDE_CODE_TYPES or "sessionId" in obj or "parentUuid" in obj:
            return CLAUDE_CODE
        if kind is None and "role" in obj and "content" in obj:
            return PLAIN
    return None


def detect_text_format(text: str) -> str | None:
    """The text format whose marks ``text`` (a file's head) carries, or ``None``."""
    if looks_like_aider(text):
        return AIDER
    if looks_like_export(text):
        return CLAUDE_CODE_EXPORT
    return None


def detect_format(path: str | Path) -> str | None:
    """Detect a file's format from its head: the first valid JSON lines (invalid lines are
    skipped), or, when most non-blank lines are not JSON objects, the text formats' marks
    first (a JSON line quoted in an export must not make it look like a JSONL transcript)."""
    with Path(path).open("rb") as fh:
        head = fh.read(_DETECT_BYTES)
    lines = head.split(b"\n")
    if len(head) == _DETECT_BYTES:
        lines = lines[:-1]  # the last piece may be cut mid-line
    stats = ReadStats()
    first = _DETECT_LINES * 4
    objects = list(decode_lines(lines[:first], stats))
    if stats.lines_read and len(objects) * 2 < stats.lines_read:
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
        fmt = detect_text_format(text)
        if fmt is not None:
            return fmt
    # The lines decoded above are not decoded again (a replay reads every file's head).
    return detect_format_from_objects(
        itertools.chain(objects, decode_lines(lines[first:], ReadStats()))
    )


def make_parser(fmt: str) -> LineParser:
    try:
        return _PARSERS[fmt]()
    except KeyError:
        raise ValueError(f"no reader for format {fmt!r}") from None


def read_transcript(path: str | Path, format: str | None = None) -> Transcript:
    """Read a whole transcript; ``format`` (claude-code, codex, plain) skips detection.

    Never raises on damaged lines (they are counted in ``stats.invalid_lines``); raises
    ``UnsupportedFormatError`` when the format is not one we read.
    """
    path = Path(path)
    fmt = format or detect_format(path)
    if fmt in _TEXT_PARSERS:
        stats = ReadStats()
        text = path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
        return Transcript(path, fmt, _TEXT_PARSERS[fmt](text, stats), stats)
    if fmt not in _PARSERS:
        raise UnsupportedFormatError(path, fmt)
    parser = make_parser(fmt)
    with path.open("rb") as fh:
        events = run_parser(parser, fh)
    return Transcript(path, fmt, events, parser.stats)


@dataclass(slots=True)
class Increment:
    """What one ``IncrementalReader.read`` call found."""

    events: list[TranscriptEvent]
    #: byte offset to save and pass next time (always just after a newline, or 0)
    offset: int
    #: counts for the lines read by this call only
    stats: ReadStats = field(default_factory=ReadStats)
    #: the saved offset no longer fitted the file (truncated or replaced): read from 0
    reset: bool = False
    format: str | None = None


class IncrementalReader:
    """Reads only what was appended to a transcript since a saved byte offset.

    Only complete lines (ending in ``\\n``) are consumed, so a line being written is read
    next time. If the file is now shorter than the offset, or the byte before the offset is
    not a newline (the file was rewritten), reading restarts at 0 and ``reset`` is set.
    Parser state (deduplication, queued prompts) is kept while this object lives; a hook
    process that lives for one event simply makes a new reader with the saved offset.
    """

    def __init__(self, path: str | Path, format: str | None = None) -> None:
        self.path = Path(path)
        self.format = format
        self.offset = 0
        self._parser: LineParser | None = None

    def read(self, offset: int | None = None) -> Increment:
        start = self.offset if offset is None else max(0, offset)
        try:
            size = os.stat(self.path).st_size
        except OSError:  # not written yet, or rotated away: nothing to read now
            return Increment([], start, format=self.format)
        with self.path.open("rb") as fh:
            reset = start > size or (start > 0 and self._byte_before(fh, start) != b"\n")
            if reset:
                start = 0
                self._parser = None
            if self.format is None:
                self.format = detect_format(self.path)
                if self.format is None:  # too little written yet to tell
                    return Increment([], start, reset=reset)
            if self.format in _TEXT_PARSERS:
                raise UnsupportedFormatError(self.path, self.format, "replay-only format")
            if self.format not in _PARSERS:
                raise UnsupportedFormatError(self.path, self.format)
            if self._parser is None:
                self._parser = make_parser(self.format)
            fh.seek(start)
            data = fh.read(size - start)
        end = data.rfind(b"\n") + 1  # 0 when no complete line yet
        stats = ReadStats()
        self._parser.stats = stats
        events = run_parser(self._parser, data[:end].split(b"\n"))
        self.offset = start + end
        return Increment(events, self.offset, stats, reset, self.format)

    @staticmethod
    def _byte_before(fh: Any, offset: int) -> bytes:
        fh.seek(offset - 1)
        return fh.read(1)


def read_new_events(
    path: str | Path, offset: int, format: str | None = None
) -> tuple[list[TranscriptEvent], int]:
    """One-shot form for the hook: (events since ``offset``, offset to save)."""
    inc = IncrementalReader(path, format).read(offset)
    return inc.events, inc.offset


__all__ = [
    "AIDER",
    "CLAUDE_CODE",
    "CLAUDE_CODE_EXPORT",
    "CODEX",
    "PI",
    "PLAIN",
    "SUPPORTED_FORMATS",
    "TEXT_FORMATS",
    "AssistantText",
    "CommandOutput",
    "CompactBoundary",
    "CompactSummary",
    "TranscriptEvent",
    "Increment",
    "IncrementalReader",
    "Interrupt",
    "ReadStats",
    "SessionTitle",
    "SlashCommand",
    "Thinking",
    "ToolResult",
    "ToolUse",
    "Transcript",
    "UnsupportedFormatError",
    "UserPrompt",
    "UserShellCommand",
    "detect_format",
    "detect_format_from_objects",
    "detect_text_format",
    "make_parser",
    "read_new_events",
    "read_transcript",
]
