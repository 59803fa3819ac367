"""Claude Code ``/export`` text: an invented export covering each block shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    AssistantText,
    CommandOutput,
    IncrementalReader,
    Interrupt,
    SlashCommand,
    ToolResult,
    UnsupportedFormatError,
    UserPrompt,
    detect_format,
    read_transcript,
)

EXPORT = """
╭─── Claude Code v2.0.50 ─────────────────────────────────╮
│        Welcome back!        │ Tips for getting started   │
│   /…/work/kite              │                            │
╰─────────────────────────────────────────────────────────╯
══════════════════ Conversation compacted · ctrl+o for history ═════════════════
  ⎿  Read kite/reader.py (40 lines)
  ⎿  Todo list read (2 items)

> /compact keep the reader rename
  Done so far:
    - renamed load.py

> please check the tests still pass after the rename, and
 look at the fixtures too
> like this one: fixtures/a.kite
that was my only worry

● I'll run the tests first.

● Bash(cd kite && python -m pytest -q
      tests/)
  ⎿  3 passed in 0.2s

● Update(kite/reader.py)
  ⎿  Updated kite/reader.py with 1 addition
       1 +  import os

● Search(pattern: "load\\(", path: "kite")
  ⎿  Found 2 files (ctrl+o to expand)

● kite - lint (MCP)(path: "kite/reader.py")
  ⎿  no findings

● Bash(sleep 100)
  ⎿  Interrupted · What should Claude do instead?

> don't wait on that, we use the fake clock
  ⎿ API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}

● User answered Claude's questions:
  ⎿  · Keep the old name as an alias? → No

● Done. Pytest shows (among others) this summary:
  3 passed

  and the alias is gone.

> /context
  ⎿
      Context Usage
     ⛁ ⛁ ⛀   model · 50k/200k tokens (25%)

> !git status
  ⎿  clean
"""


@pytest.fixture
def export(tmp_path: Path) -> Path:
    path = tmp_path / "2026-03-02-a.txt"
    path.write_text(EXPORT, encoding="utf-8")
    return path


def test_detected_from_content(export: Path, tmp_path: Path) -> None:
    assert detect_format(export) == "claude-code-export"
    # no welcome box (an export that opens mid-conversation): the ● items with results tell
    body = EXPORT.split("╰", 1)[1].split("\n", 1)[1]
    cut = tmp_path / "notes.md"
    cut.write_text(body.split("> /compact", 1)[1].split("● I'll", 1)[1], encoding="utf-8")
    assert detect_format(cut) == "claude-code-export"


def test_prompts_and_commands(export: Path) -> None:
    tr = read_transcript(export)
    assert tr.format == "claude-code-export"
    assert [p.text for p in tr.user_prompts] == [
        # the wrap at " look" is undone; the quote is a quote, not a new prompt
        "please check the tests still pass after the rename, and look at the fixtures too\n"
        "> like this one: fixtures/a.kite\nthat was my only worry",
        "don't wait on that, we use the fake clock",
    ]
    compact, context = tr.of_type(SlashCommand)
    assert compact.name == "compact"
    assert compact.args == "keep the reader rename\n  Done so far:\n    - renamed load.py"
    assert (context.name, context.args) == ("context", "")
    outputs = [o.text for o in tr.of_type(CommandOutput)]
    assert outputs[0].startswith("Context Usage") and outputs[1] == "clean"
    (shell,) = [e for e in tr.events if type(e).__name__ == "UserShellCommand"]
    assert shell.command == "git status"  # type: ignore[attr-defined]
    assert tr.stats.synthetic_lines == 1  # the API error under the second prompt


def test_compaction_is_manual_when_compact_follows(export: Path) -> None:
    tr = read_transcript(export)
    (boundary,) = tr.compactions
    assert boundary.trigger == "manual"
    assert tr.events[0] == boundary
    assert tr.stats.meta_lines >= 2  # the re-attached files are not tool calls


def test_tool_calls(export: Path) -> None:
    tr = read_transcript(export)
    uses = tr.tool_uses
    assert [(u.name, u.input) for u in uses] == [
        ("Bash", {"command": "cd kite && python -m pytest -q tests/"}),
        ("Edit", {"file_path": "kite/reader.py"}),
        ("Grep", {"pattern": "load\\(", "path": "kite"}),
        ("mcp__kite__lint", {"path": "kite/reader.py"}),
        ("Bash", {"command": "sleep 100"}),
        ("AskUserQuestion", {}),
    ]
    results = {r.tool_use_id: r for r in tr.of_type(ToolResult)}
    assert len(results) == len(uses) == len({u.tool_use_id for u in uses})
    assert results[uses[0].tool_use_id].content == "3 passed in 0.2s"
    assert results[uses[1].tool_use_id].content.endswith("1 +  import os")
    assert results[uses[4].tool_use_id].is_error
    assert "→ No" in results[uses[5].tool_use_id].content
    (interrupt,) = tr.of_type(Interrupt)
    assert interrupt.during_tool_use


def test_assistant_text_keeps_its_lines(export: Path) -> None:
    texts = [t.text for t in read_transcript(export).of_type(AssistantText)]
    assert texts == [
        "I'll run the tests first.",
        "Done. Pytest shows (among others) this summary:\n3 passed\n\nand the alias is gone.",
    ]


def test_nothing_typed_and_no_timestamps(export: Path) -> None:
    tr = read_transcript(export)
    assert all(e.timestamp is None for e in tr.events)
    assert not any(isinstance(e, UserPrompt) and not e.text.strip() for e in tr.events)


def test_replay_only(export: Path) -> None:
    with pytest.raises(UnsupportedFormatError, match="replay-only format"):
        IncrementalReader(export).read(0)


def test_a_json_line_inside_an_export_does_not_make_it_jsonl(tmp_path: Path) -> None:
    quoted = EXPORT.replace(
        "  ⎿  3 passed in 0.2s",
        '  ⎿  {"type": "user", "sessionId": "x", "message": {"role": "user"}}',
    )
    path = tmp_path / "e.txt"
    path.write_text(quoted, encoding="utf-8")
    assert detect_format(path) == "claude-code-export"


def test_markdown_with_bullets_is_not_an_export(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n● first point\n● second point\n\n> a quote\n", encoding="utf-8")
    assert detect_format(path) is None
    with pytest.raises(UnsupportedFormatError, match="unrecognised"):
        read_transcript(path)


def test_windows_line_ends_and_the_other_glyphs_read_the_same(export: Path, tmp_path: Path) -> None:
    """CRLF files, and ``⏺`` / ``❯`` (the glyphs some terminals and versions print)."""
    want = read_transcript(export).events
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(EXPORT.replace("\n", "\r\n").encode())
    glyphs = tmp_path / "glyphs.txt"
    glyphs.write_text(EXPORT.replace("\n● ", "\n⏺ ").replace("\n\n> ", "\n\n❯ "), encoding="utf-8")
    for path in (crlf, glyphs):
        assert detect_format(path) == "claude-code-export"
        assert read_transcript(path).events == want


def test_an_interruption_after_output_or_text_is_not_during_a_tool(tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text(
        "\n> read the notes\n\n● Read(notes.md)\n  ⎿  Read 40 lines\n"
        "  ⎿  Interrupted · What should Claude do instead?\n\n"
        "> stop there and explain\n\n● I was going to\n  summarise them.\n"
        "  ⎿  Interrupted · What should Claude do instead?\n\n"
        "> /export notes.txt\n  ⎿  Interrupted · What should Claude do instead?\n\n"
        "═════ Conversation compacted · ctrl+o for history ═════\n  ⎿  Read notes.md (4 lines)\n"
        "  ⎿  Interrupted · What should Claude do instead?\n",
        encoding="utf-8",
    )
    tr = read_transcript(path)
    (result,) = tr.of_type(ToolResult)
    assert (result.content, result.is_error) == ("Read 40 lines", False)
    assert [i.during_tool_use for i in tr.of_type(Interrupt)] == [False] * 4
    assert not tr.of_type(CommandOutput) and tr.stats.meta_lines == 1  # the re-attached file
    assert [t.text for t in tr.of_type(AssistantText)] == ["I was going to\nsummarise them."]


WRAPPED = (
    "> could you provide the five most likely \n"  # the wrap's space at the line's end
    "candidates? and bump the ones from the same\n"
    " team, then write them to review.csv\\\n"  # ... at the next line's start; "\\" breaks
    "\\\n"
    "the list:\n"
    "- first name \n"
    "- second name\n"
    "thanks\n"  # a break with no space at it: the person's own
    "\n"
    "● Sure.\n"
)


def test_soft_wraps_are_undone_and_the_persons_breaks_kept(tmp_path: Path) -> None:
    path = tmp_path / "2026-03-03-a.txt"
    path.write_text(EXPORT.split("> please check", 1)[0] + WRAPPED, encoding="utf-8")
    (prompt,) = read_transcript(path).user_prompts
    assert prompt.text == (
        "could you provide the five most likely candidates? and bump the ones from the same "
        "team, then write them to review.csv\\\n\\\nthe list:\n- first name\n- second name\n"
        "thanks"
    )


# The terminal wrapped the agent's text at 76 columns (80 less its margin: the Bash line below
# reaches 80); the agent broke its own lines before "Next:", the table and the command.
REPLY_WRAPPED = """
> why did the import stop after the first batch?

● Bash(python -m kite.load --source fixtures/batches --limit 500 --verbose --dry)
  ⎿  loaded 500 rows

● The loader stopped because the batch size was capped at 500 and the retry
  budget ran out, so the second batch was never read. It is not a bug in the
  parser.
  1. The cap came from the old settings file, which nobody has updated since
     the move to pyproject.
  2. I should have run:
  python -m kite.load --all
  | batch | rows |
  |-------|------|
  Next: raise the cap.
"""


def test_the_agents_wrapped_lines_are_joined_and_its_own_breaks_kept(tmp_path: Path) -> None:
    path = tmp_path / "2026-03-04-a.txt"
    path.write_text(REPLY_WRAPPED, encoding="utf-8")
    (text,) = [t.text for t in read_transcript(path).of_type(AssistantText)]
    assert text.split("\n") == [
        "The loader stopped because the batch size was capped at 500 and the retry budget ran "
        "out, so the second batch was never read. It is not a bug in the parser.",
        "1. The cap came from the old settings file, which nobody has updated since the move "
        "to pyproject.",
        "2. I should have run:",
        "python -m kite.load --all",
        "| batch | rows |",
        "|-------|------|",
        "Next: raise the cap.",
    ]


def test_an_export_without_item_lines_to_measure_keeps_the_agents_lines(tmp_path: Path) -> None:
    path = tmp_path / "2026-03-04-b.txt"
    body = REPLY_WRAPPED.replace("● Bash(", "⎿ Bash(")
    path.write_text(body, encoding="utf-8")
    texts = [t.text for t in read_transcript(path).of_type(AssistantText)]
    assert all("\n" in t for t in texts)
