"""IncrementalReader: offsets, partial last lines, truncation/rotation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    IncrementalReader,
    UserPrompt,
    read_new_events,
    read_transcript,
)

from .conftest import FIXTURES

PROMPT = b'{"type":"user","uuid":"%s","timestamp":"2026-01-01T00:00:0%dZ","message":{"role":"user","content":"%s"}}\n'


def _prompt(n: int, text: str) -> bytes:
    return PROMPT % (f"u{n}".encode(), n, text.encode())


def test_reads_only_new_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_prompt(1, "one"))
    events, offset = read_new_events(path, 0)
    assert [e.text for e in events] == ["one"]  # type: ignore[attr-defined]
    assert offset == path.stat().st_size

    # A second line arrives in two writes: the half line is left for next time.
    line = _prompt(2, "two")
    with path.open("ab") as fh:
        fh.write(line[:20])
    events, offset2 = read_new_events(path, offset)
    assert events == [] and offset2 == offset
    with path.open("ab") as fh:
        fh.write(line[20:])
    events, offset3 = read_new_events(path, offset2)
    assert [e.text for e in events] == ["two"]  # type: ignore[attr-defined]
    assert offset3 == path.stat().st_size

    # Nothing new: same offset, no events.
    assert read_new_events(path, offset3) == ([], offset3)


def test_truncated_file_resets_to_zero(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_prompt(1, "one") + _prompt(2, "two"))
    _, offset = read_new_events(path, 0)
    path.write_bytes(_prompt(3, "three"))  # shorter: truncated and rewritten
    inc = IncrementalReader(path).read(offset)
    assert inc.reset
    assert [e.text for e in inc.events] == ["three"]  # type: ignore[attr-defined]
    assert inc.offset == path.stat().st_size


def test_replaced_file_resets_when_offset_is_mid_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_prompt(1, "one"))
    _, offset = read_new_events(path, 0)
    # Replaced by a longer file whose byte before `offset` is not a newline.
    path.write_bytes(_prompt(2, "a much longer first prompt") + _prompt(3, "x"))
    inc = IncrementalReader(path).read(offset)
    assert inc.reset
    assert [e.text for e in inc.events] == ["a much longer first prompt", "x"]  # type: ignore[attr-defined]


def test_missing_file_and_undetectable_head(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    inc = IncrementalReader(path).read(0)
    assert inc.events == [] and inc.offset == 0
    path.write_bytes(b'{"type":"user","mess')  # first line still being written
    inc = IncrementalReader(path).read(0)
    assert inc.events == [] and inc.offset == 0


def test_stats_are_per_call(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_prompt(1, "one") + b"garbage\n")
    reader = IncrementalReader(path)
    first = reader.read()
    assert first.stats.lines_read == 2 and first.stats.invalid_lines == 1
    with path.open("ab") as fh:
        fh.write(_prompt(2, "two"))
    second = reader.read()  # kept-alive reader continues from its own offset
    assert second.stats.lines_read == 1 and second.stats.invalid_lines == 0
    assert [type(e) for e in second.events] == [UserPrompt]


@pytest.mark.parametrize("name", ["claude_code.jsonl", "codex.jsonl", "plain.jsonl"])
def test_chunked_growth_matches_full_read(tmp_path: Path, name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    data = data if data.endswith(b"\n") else data + b"\n"
    # The fixture may end in a truncated line: compare against the same bytes read whole.
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(data)
    full = read_transcript(whole).events
    rng = random.Random(7)
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"")
    reader = IncrementalReader(path)
    got = []
    pos = 0
    while pos < len(data):
        step = rng.randint(1, 400)
        with path.open("ab") as fh:
            fh.write(data[pos : pos + step])
        pos += step
        got.extend(reader.read().events)
    assert got == full
