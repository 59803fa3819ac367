"""Writes the Gemini CLI and Copilot CLI sample transcripts in this directory.

Ours, written for rolling-graph's readers and replay: the shapes are those the real clients
wrote in the end-to-end tests (Gemini CLI 0.61.0 chat JSONL with its header, ``$set`` updates
and a record written twice; Copilot CLI 1.0.102 ``events.jsonl``), the content a small session
with a decision, a correction, a person and tool use. Deterministic.

    .venv/bin/python transcripts/make_client_samples.py
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
START = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def _ts(n: int) -> str:
    return (START + timedelta(seconds=20 * n)).isoformat().replace("+00:00", "Z")


def _user(rid: str, n: int, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "timestamp": _ts(n), "type": "user", "content": list(parts)}


def _model(rid: str, n: int, text: str, calls: list[dict[str, Any]] | None = None) -> dict:
    rec: dict[str, Any] = {"id": rid, "timestamp": _ts(n), "type": "gemini", "content": text}
    rec |= {"thoughts": [], "model": "gemini-2.5-flash"}
    return rec | ({"toolCalls": calls} if calls is not None else {})


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": cid, "name": name, "args": args, "status": "success"}


def _result(cid: str, name: str, output: str) -> dict[str, Any]:
    return {"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}


def gemini() -> list[dict[str, Any]]:
    sid = "5f0c7d2e-6a41-4c8e-9d3b-2b7f1e0a9c11"
    grep = {"command": "grep -n PROVIDER email_config.py"}
    edit = {"file_path": "email_config.py", "old_string": "bento", "new_string": "resend"}
    correction = (
        "<hook_context>Rolling memory of this session…</hook_context>\n\nActually, no: switch "
        "to Resend instead of Bento, Maya from marketing asked for it."
    )
    return [
        {"sessionId": sid, "projectHash": "9e1f", "startTime": _ts(0), "kind": "main"},
        {"$set": {"lastUpdated": _ts(0)}},
        _user(
            "u1",
            1,
            {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"},
            {"text": "We decided to use Bento for the signup confirmation emails."},
        ),
        _model("g1", 2, ""),  # written again below once its tool call is known
        _model("g1", 2, "", [_call("run_shell_command_1", "run_shell_command", grep)]),
        _user(
            "u2",
            3,
            _result("run_shell_command_1", "run_shell_command", '1:EMAIL_PROVIDER = "bento"'),
        ),
        _model("g2", 4, "The provider is set to Bento in email_config.py."),
        _user("u3", 5, {"text": correction}),
        _model("g3", 6, "", [_call("replace_2", "replace", edit)]),
        _user(
            "u4", 7, _result("replace_2", "replace", "Successfully modified file: email_config.py")
        ),
        _model("g4", 8, "Switched the signup emails to Resend."),
        {"$set": {"lastUpdated": _ts(8)}},
    ]


def _ev(n: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": _ts(n)}


def _assistant(n: int, mid: str, text: str, calls: list[tuple[str, str, dict]]) -> dict:
    reqs = [{"toolCallId": c, "name": name, "arguments": args} for c, name, args in calls]
    data = {"messageId": mid, "model": "gpt-4.1", "content": text, "toolRequests": reqs}
    return _ev(n, "assistant.message", data)


def copilot() -> list[dict[str, Any]]:
    start = {
        "sessionId": "8b3e2f10-77aa-4d21-9c5e-4e0d6f2a1b22",
        "version": 1,
        "producer": "copilot-agent",
        "copilotVersion": "1.0.102",
        "context": {"cwd": "/work/signup"},
    }
    schema = "CREATE TABLE subscribers (email text);"
    return [
        _ev(1, "session.start", start),
        _ev(
            2,
            "user.message",
            {
                "content": "Let's go with Postgres for the subscriber table.",
                "transformedContent": "<current_datetime>…</current_datetime>",
            },
        ),
        _assistant(3, "m1", "", [("c1", "view", {"path": "db/schema.sql"})]),
        _ev(
            4,
            "tool.execution_complete",
            {
                "toolCallId": "c1",
                "success": True,
                "result": {
                    "content": f'{schema}\n\nTool "view" succeeded.',
                    "detailedContent": schema,
                },
            },
        ),
        _assistant(5, "m2", "The schema already targets Postgres.", []),
        _ev(6, "user.message", {"content": "Wait, I meant SQLite for now; Postgres later."}),
        _assistant(7, "m3", "", [("c2", "bash", {"command": "pytest -q db"})]),
        _ev(
            8,
            "tool.execution_complete",
            {
                "toolCallId": "c2",
                "success": False,
                "result": {"content": "1 failed: test_sqlite_url"},
            },
        ),
        _assistant(9, "m4", "One test fails on the SQLite URL; fixing it.", []),
        _ev(10, "session.shutdown", {"accountingSnapshot": {"totalUserRequests": 2}}),
    ]


def main() -> None:
    for name, lines in (("gemini-email.jsonl", gemini()), ("copilot-db.jsonl", copilot())):
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
