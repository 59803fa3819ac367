"""Codex CLI, Gemini CLI and Copilot CLI payloads → events, and the output each client reads.

The payloads are shaped as the real clients sent them in the end-to-end tests (Codex 0.169.0,
Gemini CLI 0.61.0, Copilot CLI 1.0.102); values are made up here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.harness.adapters import codex, copilot_cli, gemini_cli
from rolling_graph.harness.adapters import registry as adapters
from rolling_graph.harness.adapters.claude_code import PayloadError
from rolling_graph.transport import client as hookclient
from rolling_graph.transport.fallback import fallback_output

CODEX_BASE = {
    "session_id": "01a2-codex",
    "transcript_path": None,  # Codex may send null
    "cwd": "/work/p",
    "model": "gpt-5.1-codex",
    "permission_mode": "bypassPermissions",
}
GEMINI_BASE = {
    "session_id": "bed7-gemini",
    "transcript_path": "/h/.gemini/tmp/p/chats/session-x.jsonl",
    "cwd": "/work/p",
    "timestamp": "2026-11-23T23:47:32.405Z",
}
COPILOT_BASE = {"sessionId": "ee55-copilot", "timestamp": 1795477684577, "cwd": "/work/p"}


def test_codex_events_map_to_the_engines_and_null_transcript_is_fine() -> None:
    start = codex.parse_payload(
        CODEX_BASE | {"hook_event_name": "SessionStart", "source": "compact"}
    )
    assert start is not None and start.kind == "session_start" and start.source == "compact"
    assert start.transcript_path is None and start.harness == "codex"
    assert start.session_end_expected is False  # Codex sends no SessionEnd
    prompt = codex.parse_payload(
        CODEX_BASE | {"hook_event_name": "UserPromptSubmit", "turn_id": "t", "prompt": "hi"}
    )
    assert prompt is not None and prompt.kind == "prompt_submit" and prompt.prompt == "hi"
    tool = codex.parse_payload(
        CODEX_BASE
        | {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -1"},
            "tool_response": "README.md\n",
        }
    )
    assert tool is not None and (tool.kind, tool.phase, tool.tool_name) == (
        "tool_use",
        "post",
        "Bash",
    )
    assert tool.tool_input["command"] == "ls -1" and tool.tool_response == "README.md\n"
    assert codex.parse_payload(CODEX_BASE | {"hook_event_name": "Stop"}) is None
    assert codex.parse_payload(CODEX_BASE | {"hook_event_name": "PostCompact"}) is None


def test_codex_output_is_claude_style_on_context_events_only() -> None:
    out = json.loads(codex.format_output("UserPromptSubmit", "block"))
    assert out == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "block"}
    }
    assert codex.format_output("PreCompact", "block") == ""
    assert codex.format_output("SessionStart", None) == ""
    long = json.loads(codex.format_output("SessionStart", "x" * 20_000))
    assert len(long["hookSpecificOutput"]["additionalContext"]) == codex.MAX_CONTEXT_CHARS


def test_gemini_prompt_loses_the_hook_context_the_client_folded_into_it() -> None:
    ev = gemini_cli.parse_payload(
        GEMINI_BASE
        | {
            "hook_event_name": "BeforeAgent",
            "prompt": "<hook_context>Rolling memory of this session…\n- Use Bento</hook_context>"
            "\n\nActually, switch to Resend.",
        }
    )
    assert ev is not None and ev.kind == "prompt_submit"
    assert ev.prompt == "Actually, switch to Resend."


def test_gemini_tools_are_mapped_to_the_vocabulary_the_observers_know() -> None:
    ev = gemini_cli.parse_payload(
        GEMINI_BASE
        | {
            "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "pytest -q"},
            "tool_response": {"llmContent": "1 passed", "returnDisplay": "1 passed"},
        }
    )
    assert ev is not None and (ev.tool_name, ev.phase) == ("Bash", "post")
    assert ev.tool_response == "1 passed"
    read = gemini_cli.parse_payload(
        GEMINI_BASE
        | {
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": "/w/a.py"},
        }
    )
    assert (
        read is not None and read.tool_name == "Read" and read.tool_input["file_path"] == "/w/a.py"
    )
    end = gemini_cli.parse_payload(
        GEMINI_BASE | {"hook_event_name": "SessionEnd", "reason": "exit"}
    )
    assert end is not None and (end.kind, end.reason) == ("session_end", "exit")
    manual = GEMINI_BASE | {"hook_event_name": "PreCompress", "trigger": "manual"}
    squeeze = gemini_cli.parse_payload(manual)
    assert squeeze is not None and squeeze.kind == "pre_compact"
    # "auto" comes before every turn's compression check, compressing or not: not a compaction.
    assert gemini_cli.parse_payload(manual | {"trigger": "auto"}) is None
    assert gemini_cli.parse_payload(GEMINI_BASE | {"hook_event_name": "AfterAgent"}) is None


def test_gemini_output_is_json_on_context_events_and_nothing_elsewhere() -> None:
    for name in ("SessionStart", "BeforeAgent", "AfterTool"):
        assert json.loads(gemini_cli.format_output(name, "b"))["hookSpecificOutput"] == {
            "hookEventName": name,
            "additionalContext": "b",
        }
    for name in ("BeforeTool", "PreCompress", "SessionEnd"):
        assert gemini_cli.format_output(name, "b") == ""


def test_copilot_payloads_need_the_event_from_the_command_line() -> None:
    start = copilot_cli.parse_payload(
        COPILOT_BASE | {"source": "new", "initialPrompt": "x"}, "sessionStart"
    )
    assert start is not None and (start.kind, start.source) == ("session_start", "startup")
    assert start.session_id == "ee55-copilot"
    assert copilot_cli.parse_payload(COPILOT_BASE | {"prompt": "x"}) is None  # no event named
    tool = copilot_cli.parse_payload(
        COPILOT_BASE
        | {
            "toolName": "bash",
            "toolArgs": '{"command": "ls", "description": "list"}',  # a JSON string is decoded
            "toolResult": {"resultType": "success", "textResultForLlm": "README.md"},
        },
        "postToolUse",
    )
    assert tool is not None and tool.tool_name == "Bash" and tool.tool_input["command"] == "ls"
    assert tool.tool_response == "README.md"
    view = copilot_cli.parse_payload(
        COPILOT_BASE | {"toolName": "view", "toolArgs": {"path": "/w/db.sql"}}, "PreToolUse"
    )
    assert view is not None and view.phase == "pre" and view.tool_input["file_path"] == "/w/db.sql"
    assert json.loads(copilot_cli.format_output("userPromptSubmitted", "b")) == {
        "additionalContext": "b"
    }
    assert copilot_cli.format_output("sessionEnd", "b") == ""


@pytest.mark.parametrize(
    ("harness", "payload", "hint"),
    [
        ("codex", [1, 2], None),
        ("codex", CODEX_BASE | {"hook_event_name": "SessionStart", "session_id": " "}, None),
        ("gemini", GEMINI_BASE | {"hook_event_name": "BeforeAgent", "prompt": 3}, None),
        ("copilot", {"prompt": "x"}, "userPromptSubmitted"),  # no session id
    ],
)
def test_bad_payloads_are_rejected_not_crashed_on(
    harness: str, payload: object, hint: str | None
) -> None:
    with pytest.raises(PayloadError):
        adapters.get(harness).parse_payload(payload, hint)


def test_adapters_registry_knows_the_four_harnesses() -> None:
    assert {adapters.get(n).NAME for n in adapters.MODULES} == set(adapters.MODULES)
    assert adapters.get(None).NAME == "claude-code"
    with pytest.raises(KeyError):
        adapters.get("cursor")


def test_hook_command_line_names_harness_and_event() -> None:
    assert hookclient.parse_args(["--harness", "copilot", "--event", "sessionStart"]) == (
        "copilot",
        "sessionStart",
    )
    assert hookclient.parse_args([]) == ("claude-code", None)
    # An unknown harness (a newer installer, a typo) falls back instead of failing the hook.
    assert hookclient.parse_args(["--harness", "nope"]) == ("claude-code", None)


def _last_block(home: Path, sid: str, text: str) -> None:
    d = home / "sessions" / sid
    d.mkdir(parents=True)
    (d / "last_block.json").write_text(json.dumps({"text": text, "signature": "s1"}))


def test_fallback_block_comes_in_each_clients_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path))
    _last_block(tmp_path, "g1", "Rolling memory G")
    _last_block(tmp_path, "c1", "Rolling memory C")
    raw = json.dumps({"hook_event_name": "SessionStart", "session_id": "g1"}).encode()
    out = json.loads(fallback_output(raw, "gemini"))
    assert out["hookSpecificOutput"]["additionalContext"] == "Rolling memory G"
    raw = json.dumps({"sessionId": "c1", "prompt": "x"}).encode()
    first = fallback_output(raw, "copilot", "userPromptSubmitted")
    assert json.loads(first) == {"additionalContext": "Rolling memory C"}
    # On the prompt event, once per block: a hung worker must not repeat it every prompt.
    assert fallback_output(raw, "copilot", "userPromptSubmitted") == ""
    assert fallback_output(raw, "copilot", "postToolUse") == ""


def test_copilot_transcript_is_found_where_copilot_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path))
    ev = copilot_cli.parse_payload(COPILOT_BASE | {"prompt": "x"}, "userPromptSubmitted")
    assert ev is not None and ev.transcript_path is None  # no file yet: nothing to read
    events = tmp_path / "session-state" / "ee55-copilot" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text("")
    ev = copilot_cli.parse_payload(COPILOT_BASE | {"prompt": "x"}, "userPromptSubmitted")
    assert ev is not None and ev.transcript_path == str(events)
