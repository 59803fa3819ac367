"""Shared pieces of the readers: JSON line decoding, timestamps, the parser protocol."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

from .events import ReadStats, TranscriptEvent


class LineParser(Protocol):
    """A stateful per-format parser: one decoded JSON object in, zero or more events out.

    State (deduplication sets, pending queued prompts) lives in the parser so that an
    ``IncrementalReader`` that is kept alive across calls carries it over.
    """

    stats: ReadStats

    def feed(self, obj: dict[str, Any]) -> list[TranscriptEvent]: ...


def parse_timestamp(value: object) -> datetime | None:
    """ISO 8601 (``Z`` or offset) or epoch seconds/milliseconds -> aware UTC datetime."""
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            return None
        # Naive stamps are assumed UTC: every harness seen writes UTC.
        return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value  # ms since epoch vs s
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def decode_lines(raw_lines: Iterable[bytes], stats: ReadStats) -> Iterator[dict[str, Any]]:
    """Decode JSON lines, counting (never raising on) lines that are not a JSON object."""
    for raw in raw_lines:
        if not raw.strip():
            continue
        stats.lines_read += 1
        try:
            obj = json.loads(raw)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError both subclass it
            stats.invalid_lines += 1
            continue
        if not isinstance(obj, dict):
            stats.invalid_lines += 1
            continue
        yield obj


def run_parser(parser: LineParser, raw_lines: Iterable[bytes]) -> list[TranscriptEvent]:
    events: list[TranscriptEvent] = []
    for obj in decode_lines(raw_lines, parser.stats):
        events.extend(parser.feed(obj))
    return events


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
