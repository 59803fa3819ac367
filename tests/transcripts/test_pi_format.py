"""pi session JSONL (v3): invented lines covering each entry and message shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rolling_graph.transcripts import (
    AssistantText,
    CommandOutput,
    CompactBoundary,
    CompactSummary,
    IncrementalReader,
    Interrupt,
    SessionTitle,
    SlashCommand,
    Thinking,
    ToolResult,
    ToolUse,
    UserPrompt,
    UserShellCommand,
    detect_format,
    read_transcript,
)

T = "2026-03-02T09:00:{:02d}.000Z"


def _entry(n: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "id": f"e{n:07x}",
        "parentId": f"e{n - 1:07x}",
        "timestamp": T.format(n),
        **fields,
    }


def _msg(n: int, role: str, **fields: Any) -> dict[str, Any]:
    return _entry(n, "message", message={"role": role, **fields})


def _text(s: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": s}]


SKILL = (
    '<skill name="tidy-imports" location="/home/someone/.pi/agent/skills/tidy/SKILL.md">\n'
    "References are relative to the skill folder.\n\n# Tidy imports\nSort them.\n</skill>\n\n"
    "only the parser package"
)
LINES: list[dict[str, Any] | str] = [
    {
        "type": "session",
        "version": 3,
        "id": "0000-aaaa",
        "timestamp": T.format(0),
        "cwd": "/w/kite",
    },
    _entry(1, "model_change", provider="someco", modelId="model-x"),
    _entry(2, "thinking_level_change", thinkingLevel="high"),
    _msg(3, "user", content=_text("rename the kite loader to reader"), timestamp=1),
    _entry(
        4,
        "custom_message",
        customType="enriched-prompt",
        content=_text("## Your tools"),
        display=False,
    ),
    _entry(5, "custom", customType="phase", data={"phase": "explore"}),
    _msg(
        6,
        "assistant",
        content=[
            {"type": "thinking", "thinking": "Find the loader first."},
            {"type": "text", "text": "Looking for the loader."},
            {
                "type": "toolCall",
                "id": "call_1",
                "name": "read",
                "arguments": {"path": "kite/load.py"},
            },
        ],
        model="model-x",
        stopReason="toolUse",
    ),
    _msg(
        7,
        "toolResult",
        toolCallId="call_1",
        toolName="read",
        content=_text("no such file"),
        isError=True,
    ),
    "{this line was damaged",
    _msg(9, "user", content=_text(SKILL)),
    _msg(10, "user", content=">  the loader reads kite files\n\nso why is it called load?"),
    _msg(11, "bashExecution", command="git status", output="clean\n", exitCode=0),
    _msg(
        12,
        "assistant",
        content=[
            {
                "type": "toolCall",
                "id": "call_2",
                "name": "bash",
                "arguments": {"command": "sleep 99"},
            }
        ],
        stopReason="aborted",
    ),
    _entry(
        13,
        "compaction",
        summary="## Goal\nRename the loader.",
        firstKeptEntryId="e0000009",
        tokensBefore=120000,
    ),
    _entry(14, "session_info", name="loader rename"),
    _entry(15, "label", targetId="e0000003", label="start"),
    _msg(16, "user", content=[{"type": "text", "text": "<system-reminder>tree</system-reminder>"}]),
]


def _write(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_detected_as_pi_from_content(tmp_path: Path) -> None:
    path = _write(tmp_path / "anything.log", LINES)
    assert detect_format(path) == "pi"
    # a file that starts after the header (cut from a longer session) is still pi
    assert detect_format(_write(tmp_path / "tail.jsonl", LINES[3:])) == "pi"


def test_events(tmp_path: Path) -> None:
    tr = read_transcript(_write(tmp_path / "s.jsonl", LINES))
    assert tr.format == "pi"
    kinds = [type(e) for e in tr.events]
    assert kinds == [
        UserPrompt,
        Thinking,
        AssistantText,
        ToolUse,
        ToolResult,
        SlashCommand,
        UserPrompt,
        UserShellCommand,
        CommandOutput,
        ToolUse,
        Interrupt,
        CompactBoundary,
        CompactSummary,
        SessionTitle,
    ]
    prompts = tr.user_prompts
    assert [p.text for p in prompts] == [
        "rename the kite loader to reader",
        ">  the loader reads kite files\n\nso why is it called load?",  # a quote, still typed
    ]
    assert prompts[0].uuid == "e0000003" and prompts[0].timestamp is not None
    (skill,) = tr.of_type(SlashCommand)
    assert (skill.name, skill.args) == ("skill:tidy-imports", "only the parser package")
    use = tr.tool_uses[0]
    assert (use.tool_use_id, use.name, use.input) == ("call_1", "read", {"path": "kite/load.py"})
    (result,) = tr.of_type(ToolResult)
    assert result.is_error and result.content == "no such file"
    (interrupt,) = tr.of_type(Interrupt)
    assert interrupt.during_tool_use
    (boundary,) = tr.compactions
    assert boundary.pre_tokens == 120000
    assert tr.of_type(CompactSummary)[0].text.startswith("## Goal")
    assert tr.of_type(SessionTitle)[0].text == "loader rename"
    s = tr.stats
    assert s.invalid_lines == 1
    assert s.injected_lines == 2  # the custom_message and the reminder-only user message
    assert not s.unknown_types


def test_unknown_entry_is_counted_not_fatal(tmp_path: Path) -> None:
    lines = [*LINES[:4], _entry(20, "future_thing", x=1)]
    tr = read_transcript(_write(tmp_path / "s.jsonl", lines))
    assert tr.stats.unknown_types == {"future_thing": 1}
    assert len(tr.user_prompts) == 1


def test_incremental_read_matches_full_read(tmp_path: Path) -> None:
    data = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in LINES).encode()
    full = read_transcript(_write(tmp_path / "full.jsonl", LINES)).events
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"")
    reader = IncrementalReader(live)
    got = []
    for i in range(0, len(data), 97):
        with live.open("ab") as fh:
            fh.write(data[i : i + 97])
        got.extend(reader.read().events)
    assert got == full
