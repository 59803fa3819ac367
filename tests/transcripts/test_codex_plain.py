"""Codex rollout and plain role/content readers against hand-written fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    CODEX,
    PLAIN,
    AssistantText,
    CompactBoundary,
    CompactSummary,
    Interrupt,
    SlashCommand,
    Thinking,
    ToolResult,
    ToolUse,
    UnsupportedFormatError,
    UserPrompt,
    detect_format,
    read_transcript,
)

from .conftest import FIXTURES


def test_codex_events() -> None:
    tr = read_transcript(FIXTURES / "codex.jsonl")
    assert tr.format == CODEX
    # Prompts come from event_msg/user_message only: no environment context, no
    # <turn_aborted> note, no copy from the response_item user message.
    assert [p.text for p in tr.user_prompts] == [
        "fix the failing login test",
        "now run the whole suite",
        "thanks",
    ]
    # agent_message repeats the assistant response_item: emitted once.
    assert [a.text for a in tr.of_type(AssistantText)] == [
        "I'll run the login tests first.",
        "All 42 tests pass.",
    ]
    assert [t.text for t in tr.of_type(Thinking)] == ["**Locating the test**"]  # encrypted skipped
    uses = tr.tool_uses
    assert [(u.tool_use_id, u.name) for u in uses] == [
        ("call_1", "exec_command"),
        ("call_2", "apply_patch"),
    ]
    assert uses[0].input["cmd"] == "pytest tests/test_login.py"
    assert uses[1].input["input"].startswith("*** Begin Patch")
    results = tr.of_type(ToolResult)
    assert [(r.tool_use_id, r.is_error) for r in results] == [("call_1", True), ("call_2", False)]
    assert results[1].content.startswith("Success.")  # JSON wrapper unpacked
    assert len(tr.of_type(Interrupt)) == 1
    # `compacted` + `context_compacted` are one compaction; its summary is encrypted.
    assert len(tr.compactions) == 1
    assert tr.of_type(CompactSummary) == []
    assert tr.stats.invalid_lines == 1
    assert tr.stats.meta_lines == 4


def test_plain_events() -> None:
    tr = read_transcript(FIXTURES / "plain.jsonl")
    assert tr.format == PLAIN
    assert [p.text for p in tr.user_prompts] == [
        "review the last training run",
        "use a smaller learning rate",
    ]
    assert [type(e) for e in tr.events] == [
        UserPrompt,
        Thinking,
        AssistantText,
        ToolUse,
        ToolResult,
        Interrupt,
        UserPrompt,
        CompactBoundary,
        CompactSummary,
        AssistantText,  # block order kept inside one record
        ToolUse,
        ToolResult,
        SlashCommand,
    ]
    assert tr.of_type(ToolResult)[1].is_error
    assert tr.stats.invalid_lines == 1
    assert tr.stats.injected_lines == 1  # task notification
    assert tr.stats.by_type == {"user": 6, "assistant": 4, "tool": 2}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("claude_code.jsonl", "claude-code"), ("codex.jsonl", "codex"), ("plain.jsonl", "plain")],
)
def test_detection(name: str, fmt: str) -> None:
    assert detect_format(FIXTURES / name) == fmt


def test_detection_skips_leading_garbage(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"// comment line\nnot json\n" + (FIXTURES / "codex.jsonl").read_bytes())
    tr = read_transcript(path)
    assert tr.format == CODEX
    assert tr.stats.invalid_lines == 3


def test_unsupported_format(tmp_path: Path) -> None:
    other = tmp_path / "events.jsonl"
    other.write_text('{"event": "deploy", "ok": true}\n')
    with pytest.raises(UnsupportedFormatError, match="unrecognised") as err:
        read_transcript(other)
    assert err.value.format is None
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(UnsupportedFormatError):
        read_transcript(empty)


def test_explicit_format_skips_detection(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n')
    assert read_transcript(path, format="plain").user_prompts[0].text == "hi"
