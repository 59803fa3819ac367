"""Read every real pi session, Claude Code export and aider history in ../shared/data.

Skipped with a reason where the shared data is absent (see tests/shared_data.py).

What MANIFEST's ``human_prompts`` counts for these kinds (checked against the files): every
input the person typed, commands included: for ``pi`` each ``user`` message (skill
invocations too: mode89/welpy, "9 user turns incl. skill invocations"); for
``claude-code-export`` each ``>`` line at column 0 after a blank line (``/export``,
``/compact``, ``/context`` too); for ``aider`` each run of ``####`` lines except aider's own
questions answered there ("Add file to the chat? … skip"). So the check is exact, on
prompts + slash commands + shell commands. ``tool_calls`` is only counted for ``pi`` (the
column is 0 for the exports and aider: not counted there). ``compactions`` is exact.
"""

from __future__ import annotations

import re

import pytest

from rolling_graph.transcripts import (
    CompactBoundary,
    Interrupt,
    SlashCommand,
    ToolResult,
    ToolUse,
    UserPrompt,
    UserShellCommand,
    read_transcript,
)
from tests.shared_data import ManifestRow, manifest_rows, require_shared_data

pytestmark = pytest.mark.shared_data

KINDS = ("pi", "claude-code-export", "aider")
INVALID_NOTE = re.compile(r"(\d+) (?:non-JSON|malformed)")


def _rows() -> list[ManifestRow]:
    return manifest_rows(kinds=KINDS)


@pytest.fixture(scope="module", autouse=True)
def _data() -> None:
    require_shared_data()


def test_manifest_lists_each_kind() -> None:
    rows = _rows()
    assert {r.kind for r in rows} == set(KINDS)
    assert len(rows) >= 76


@pytest.mark.parametrize("row", _rows() or [None], ids=[r.name for r in _rows()] or ["no-data"])
def test_real_transcript(row: ManifestRow | None) -> None:
    assert row is not None
    tr = read_transcript(row.path)
    assert tr.format == row.kind
    typed = sum(isinstance(e, UserPrompt | SlashCommand | UserShellCommand) for e in tr.events)
    assert typed == row.human_prompts
    assert all(e.text.strip() for e in tr.user_prompts)
    assert sum(isinstance(e, CompactBoundary) for e in tr.events) == row.compactions
    uses = [e for e in tr.events if isinstance(e, ToolUse)]
    if row.kind == "pi":
        assert len(uses) == row.tool_calls
    if row.kind == "claude-code-export":  # every note of the terminal's is one interrupt
        notes = row.path.read_text(encoding="utf-8").count("Interrupted · What should Claude do")
        assert sum(isinstance(e, Interrupt) for e in tr.events) == notes
    m = INVALID_NOTE.search(row.notes)
    assert tr.stats.invalid_lines == (int(m.group(1)) if m else 0)
    # Every result answers a call in the file, except the calls on a damaged line (one line
    # may hold several parallel calls).
    ids = {u.tool_use_id for u in uses}
    orphans = [e for e in tr.events if isinstance(e, ToolResult) and e.tool_use_id not in ids]
    assert not orphans or tr.stats.invalid_lines
    assert len(ids) == len(uses)
    assert not tr.stats.unknown_types, tr.stats.unknown_types


def test_no_harness_text_becomes_a_prompt() -> None:
    """pi's skill bodies, extension messages and reminders; the exports' tool output."""
    for row in _rows():
        for p in read_transcript(row.path).user_prompts:
            head = p.text.lstrip()[:40]
            assert not head.startswith(("<skill", "<system-reminder>", "⎿", "● ")), row.name
            assert not re.match(r"^(## Your Capabilities|Add file to the chat\?)", head), row.name
