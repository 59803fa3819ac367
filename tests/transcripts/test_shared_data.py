"""Read every real transcript in ../shared/data of the kinds we support and check sane facts.

Skipped with a reason where the shared data is absent (see tests/shared_data.py).

Tolerance for real user prompts: |ours - MANIFEST.human_prompts| <= max(2, 15 %). The
MANIFEST counts were made by hand/heuristics and disagree with its own notes (e.g. "26
human prompts" in notes vs 23 in the column; "2-4 human prompts incl. 'continue'" for
marot/spotter). We deliberately differ in small ways: queued prompts consumed mid-turn
count (marot 258c7280: +2), interrupts and task notifications do not (sjonas50/diffusion:
33 vs 37). Files where we differ on purpose by more are listed in KNOWN with the reason.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    CompactBoundary,
    IncrementalReader,
    ToolResult,
    ToolUse,
    UserPrompt,
    read_transcript,
)
from tests.shared_data import ManifestRow, manifest_rows, require_shared_data

pytestmark = pytest.mark.shared_data

KINDS = ("claude-code", "claude-code-simplified", "codex")
EXPECTED_FORMAT = {
    "claude-code": "claude-code",
    "claude-code-simplified": "plain",
    "codex": "codex",
}

#: name -> (field, our value, why we differ from MANIFEST)
KNOWN: dict[str, dict[str, tuple[int, str]]] = {
    "moredip__session-share/session-viewer__test__INTEGRATION__fixtures__general-tool-calls.jsonl": {
        "human_prompts": (6, "second half re-plays the first (resume copy, same stamps/ids)"),
        "tool_calls": (65, "MANIFEST counts the re-played copies: 110"),
    },
    "swarnasn29__soulpass/codex-session.jsonl": {
        "compactions": (1, "MANIFEST counts `compacted` + `context_compacted` of one compaction"),
    },
    "entireio__cli/5c__5cb639eac4__0__full.jsonl": {
        "human_prompts": (33, "MANIFEST counts 5 slash commands, 2 `!` inputs, 5 outputs: 45"),
    },
    "ElixirTrials__medgemma-hackathon/05__85b4e73973__2__full.jsonl": {
        "human_prompts": (5, "9 queued {task_id} notifications are not typed prompts: MANIFEST 9"),
    },
    "SWORDIntel__claude-backups/claude-home__.config__claude__projects__-home-ubuntu-Documents-Claude__0c45b0a6-b564-4223-9f39-bc05598a4122.jsonl": {
        "human_prompts": (50, "MANIFEST counts its 20 interrupts too: 70"),
    },
    "JanDeDobbeleer__oh-my-posh/f6_538eff5fb9_1_full.jsonl": {
        "human_prompts": (27, "8 prompts queued while the agent worked count; MANIFEST: 20"),
    },
    "sjonas50__diffusion/transcript.jsonl": {
        "tool_calls": (400, "MANIFEST has 0: it did not count tool_use records in this format"),
    },
}
# Compaction subagent files are all sidechain lines: set aside by design, so 0 prompts.
SIDECHAIN_ONLY = re.compile(r"agent-acompact-[0-9a-f]+\.jsonl$")
INVALID_NOTE = re.compile(r"(\d+) (?:non-JSON|malformed)")


def _rows() -> list[ManifestRow]:
    return manifest_rows(kinds=KINDS)


def _ids() -> list[str]:
    return [r.name for r in _rows()]


@pytest.fixture(scope="module", autouse=True)
def _data() -> Path:
    return require_shared_data()


def _expected(row: ManifestRow, field: str) -> int | None:
    known = KNOWN.get(row.name, {})
    if field in known:
        return known[field][0]
    return getattr(row, field)


def test_manifest_lists_supported_files() -> None:
    rows = _rows()
    assert len(rows) >= 20
    assert {r.kind for r in rows} == set(KINDS)


@pytest.mark.parametrize("row", _rows() or [None], ids=_ids() or ["no-data"])
def test_real_transcript(row: ManifestRow | None) -> None:
    assert row is not None
    tr = read_transcript(row.path)
    assert tr.format == EXPECTED_FORMAT[row.kind]
    stats = tr.stats
    assert stats.lines_read > 0

    prompts = sum(isinstance(e, UserPrompt) for e in tr.events)
    if SIDECHAIN_ONLY.search(row.name):
        assert prompts == 0 and stats.sidechain_lines == stats.lines_read
    else:
        want = _expected(row, "human_prompts")
        assert want is not None
        assert abs(prompts - want) <= max(2, round(0.15 * want)), (prompts, want)

    assert sum(isinstance(e, CompactBoundary) for e in tr.events) == _expected(row, "compactions")
    assert sum(isinstance(e, ToolUse) for e in tr.events) == _expected(row, "tool_calls")

    # Invalid lines: exactly what the MANIFEST notes say, none where they say nothing.
    m = INVALID_NOTE.search(row.notes)
    assert stats.invalid_lines == (int(m.group(1)) if m else 0)

    # Every tool result answers a tool call seen in the same file, except where the call's
    # line was among the damaged ones; timestamps are timezone-aware.
    use_ids = {e.tool_use_id for e in tr.events if isinstance(e, ToolUse)}
    orphans = [e for e in tr.events if isinstance(e, ToolResult) and e.tool_use_id not in use_ids]
    assert len(orphans) <= stats.invalid_lines
    assert all(e.timestamp is None or e.timestamp.tzinfo is not None for e in tr.events)
    assert not stats.unknown_types, stats.unknown_types


@pytest.mark.parametrize(
    "name",
    [
        "AlexandreVassard__will-it-rain/claude.jsonl",
        "Aley3567__cutesticky/session-transcript.jsonl",
        "swarnasn29__soulpass/codex-session.jsonl",
    ],
)
def test_incremental_growth_matches_full_read(tmp_path: Path, name: str, _data: Path) -> None:
    src = _data / "raw" / name
    data = src.read_bytes()
    full = read_transcript(src).events
    rng = random.Random(11)
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"")
    reader = IncrementalReader(path)
    got = []
    pos = 0
    while pos < len(data):
        step = rng.randint(1, 64 * 1024)
        with path.open("ab") as fh:
            fh.write(data[pos : pos + step])
        pos += step
        got.extend(reader.read().events)
    assert got == full
