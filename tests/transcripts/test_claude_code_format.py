"""Claude Code reader against the hand-written fixture tests/fixtures/transcripts/claude_code.jsonl."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    CLAUDE_CODE,
    AssistantText,
    CommandOutput,
    CompactSummary,
    Interrupt,
    SessionTitle,
    SlashCommand,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    UserPrompt,
    UserShellCommand,
    read_transcript,
)
from rolling_graph.transcripts.claude_code_format import parse_lines

from .conftest import FIXTURES


@pytest.fixture(scope="module")
def tr() -> Transcript:
    return read_transcript(FIXTURES / "claude_code.jsonl")


def test_detected_format(tr: Transcript) -> None:
    assert tr.format == CLAUDE_CODE


def test_real_prompts_only(tr: Transcript) -> None:
    # Excluded: tool results, interrupt, task notification, reminder-only, meta caveat,
    # skill body, command wrappers/outputs, compact summary, sidechain, the queued copy.
    assert [(p.text, p.queued) for p in tr.user_prompts] == [
        ("Add a --verbose flag to the CLI in src/cli.py", False),
        ("also update the README", True),
        ("make the flag default to off", False),  # IDE tag block stripped
        ("thanks, commit it", False),
    ]


def test_multi_line_message_merged_without_repeats(tr: Transcript) -> None:
    msg_a = [e for e in tr.events if getattr(e, "message_id", None) == "msg_A"]
    assert [type(e) for e in msg_a] == [Thinking, AssistantText, ToolUse]
    assert msg_a[1].text == "I'll read the CLI module."
    assert tr.stats.duplicates_dropped >= 1


def test_tool_pairs(tr: Transcript) -> None:
    uses = {u.tool_use_id: u for u in tr.tool_uses}
    results = tr.of_type(ToolResult)
    assert [r.tool_use_id for r in results] == ["toolu_1", "toolu_2"]
    assert set(uses) == {"toolu_1", "toolu_2"}
    assert uses["toolu_2"].input == {"command": "pytest -q", "description": "Run tests"}
    assert results[1].is_error and results[1].content == "1 failed\n[image]"
    assert not results[0].is_error


def test_slash_commands_shell_and_outputs(tr: Transcript) -> None:
    assert [(c.name, c.args) for c in tr.of_type(SlashCommand)] == [
        ("model", "claude-opus-4-6"),
        ("review", "focus on the flag parsing"),
        ("compact", ""),
    ]
    assert [c.command for c in tr.of_type(UserShellCommand)] == ["git status"]
    outputs = [o.text for o in tr.of_type(CommandOutput)]
    assert "Set model to claude-opus-4-6" in outputs  # ANSI codes removed
    assert "On branch main" in outputs


def test_interrupt(tr: Transcript) -> None:
    assert [i.during_tool_use for i in tr.of_type(Interrupt)] == [True]


def test_compaction(tr: Transcript) -> None:
    (boundary,) = tr.compactions
    assert (boundary.trigger, boundary.pre_tokens, boundary.post_tokens) == ("manual", 150123, 4200)
    (summary,) = tr.of_type(CompactSummary)
    assert summary.text.startswith("This session is being continued")
    assert tr.events.index(boundary) + 1 == tr.events.index(summary)


def test_titles_deduplicated(tr: Transcript) -> None:
    assert [(t.source, t.text) for t in tr.of_type(SessionTitle)] == [
        ("summary", "Add verbose flag to CLI"),
        ("ai-title", "Add verbose flag"),
        ("custom-title", "verbose-flag"),
    ]


def test_stats(tr: Transcript) -> None:
    s = tr.stats
    assert s.invalid_lines == 2  # redaction-damaged line + truncated last line
    assert s.sidechain_lines == 2
    assert s.meta_lines == 2  # caveat + skill body
    assert s.synthetic_lines == 1
    assert s.injected_lines == 2  # task notification + reminder-only line
    assert s.unknown_types == {"brand-new-line-type": 1}
    assert s.by_type["user"] == 20
    assert s.lines_read == 44


def test_sidechain_text_not_emitted(tr: Transcript) -> None:
    texts = [getattr(e, "text", "") for e in tr.events]
    assert "Found 3 TODOs." not in texts
    assert "Search the repo for TODOs" not in texts


def test_timestamps_are_aware(tr: Transcript) -> None:
    stamps = [e.timestamp for e in tr.events if e.timestamp is not None]
    assert stamps and all(t.tzinfo is not None for t in stamps)
    assert tr.user_prompts[0].timestamp == datetime(2026, 2, 1, 10, 0, tzinfo=UTC)


def test_events_are_frozen(tr: Transcript) -> None:
    with pytest.raises(AttributeError):
        tr.user_prompts[0].text = "x"  # type: ignore[misc]


def test_string_content_and_garbage_never_fatal() -> None:
    lines = [
        b"",
        b"[1, 2]",
        b'"just a string"',
        b"\xff\xfe not utf-8",
        b'{"type": "user", "message": {"role": "user", "content": "hello"}}',
        b'{"type": "assistant", "message": {"id": "m", "content": "plain string reply"}}',
        b'{"type": "user", "message": null}',
        b'{"type": "assistant", "message": {"content": [null, 3, {"type": "image"}]}}',
    ]
    events = parse_lines(lines)
    assert [type(e) for e in events] == [UserPrompt, AssistantText]


def test_resume_copy_is_not_double_counted(tmp_path: Path) -> None:
    # --resume/fork copies earlier lines with new uuids but the same stamps and message ids.
    src = (FIXTURES / "claude_code.jsonl").read_bytes()
    head = b"".join(src.splitlines(keepends=True)[:12])
    copy = head.replace(b'"uuid": "', b'"uuid": "copy-')
    path = tmp_path / "resumed.jsonl"
    path.write_bytes(head + copy)
    once = read_transcript(path)
    path.write_bytes(head)
    single = read_transcript(path)
    assert [type(e) for e in once.events] == [type(e) for e in single.events]
