"""Gemini CLI and Copilot CLI transcripts: detection, events, and what is left out.

Reads the project-written samples in ``transcripts/`` (shaped as the clients wrote them in the
end-to-end tests) plus small in-test variations."""

from __future__ import annotations

import json
from pathlib import Path

from rolling_graph.transcripts import (
    AssistantText,
    IncrementalReader,
    ToolResult,
    ToolUse,
    UserPrompt,
    detect_format,
    read_transcript,
)

SAMPLES = Path(__file__).resolve().parents[2] / "transcripts"


def test_gemini_chat_is_detected_and_read() -> None:
    path = SAMPLES / "gemini-email.jsonl"
    assert detect_format(path) == "gemini"  # its header has a sessionId, like Claude Code's
    tr = read_transcript(path)
    prompts = [e.text for e in tr.user_prompts]
    assert prompts == [
        "We decided to use Bento for the signup confirmation emails.",
        "Actually, no: switch to Resend instead of Bento, Maya from marketing asked for it.",
    ]  # the <session_context> set-up and our own <hook_context> block are cut out
    uses = tr.tool_uses
    # The record written twice (before and after its tool calls are known) counts once.
    assert [u.name for u in uses] == ["run_shell_command", "replace"]
    results = tr.of_type(ToolResult)
    assert [r.tool_use_id for r in results] == [u.tool_use_id for u in uses]
    assert results[0].content == '1:EMAIL_PROVIDER = "bento"'
    assert [e.text for e in tr.of_type(AssistantText)][
        -1
    ] == "Switched the signup emails to Resend."


def test_copilot_events_are_detected_and_read() -> None:
    path = SAMPLES / "copilot-db.jsonl"
    assert detect_format(path) == "copilot"
    tr = read_transcript(path)
    assert [e.text for e in tr.user_prompts][1] == "Wait, I meant SQLite for now; Postgres later."
    uses = tr.of_type(ToolUse)
    assert [(u.name, u.input) for u in uses] == [
        ("view", {"path": "db/schema.sql"}),
        ("bash", {"command": "pytest -q db"}),
    ]
    results = tr.of_type(ToolResult)
    # detailedContent: without the guidance that postToolUse hooks appended to the result.
    assert results[0].content == "CREATE TABLE subscribers (email text);"
    assert results[1].is_error and not results[0].is_error
    assert tr.stats.meta_lines >= 2  # session.start and session.shutdown, counted only


def test_copilot_reader_follows_a_growing_file(tmp_path: Path) -> None:
    lines = (SAMPLES / "copilot-db.jsonl").read_text().splitlines(keepends=True)
    path = tmp_path / "events.jsonl"
    path.write_text("".join(lines[:3]))
    first = IncrementalReader(path).read(0)
    assert [type(e) for e in first.events] == [UserPrompt, ToolUse]
    with path.open("a") as fh:
        fh.write("".join(lines[3:5]))
    second = IncrementalReader(path).read(first.offset)
    assert [type(e) for e in second.events] == [ToolResult, AssistantText]


def test_gemini_hook_context_is_cut_from_tool_results_too(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    rows = [
        {"sessionId": "s", "projectHash": "h", "startTime": "2026-11-20T09:00:00Z"},
        {
            "id": "g",
            "type": "gemini",
            "content": "",
            "toolCalls": [{"id": "c", "name": "x", "args": {}}],
        },
        {
            "id": "u",
            "type": "user",
            "content": [
                {
                    "functionResponse": {
                        "id": "c",
                        "response": {
                            "output": "ok\n\n<hook_context>Rolling memory…</hook_context>"
                        },
                    }
                }
            ],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (result,) = read_transcript(path).of_type(ToolResult)
    assert result.content == "ok"


def test_codex_0169_rollout_prompts_come_from_user_message_items(tmp_path: Path) -> None:
    # Codex 0.169 writes no event_msg/user_message; the prompt is an item_completed item
    # (seen in the end-to-end test), and the response_item copy carries environment context.
    def line(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-11-24T00:38:06Z", "type": kind, "payload": payload})

    item = {"type": "UserMessage", "content": [{"type": "text", "text": "Use Bento."}]}
    rows = [
        line("session_meta", {"id": "t1", "cwd": "/w"}),
        line("event_msg", {"type": "task_started"}),
        line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Use Bento."}],
            },
        ),
        line("event_msg", {"type": "item_completed", "item": item}),
        line("event_msg", {"type": "item_completed", "item": {"type": "AgentMessage"}}),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert [e.text for e in read_transcript(path).user_prompts] == ["Use Bento."]
