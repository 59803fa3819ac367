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


def gemini() -> list[dict[str, Any]]:
    sid = "5f0c7d2e-6a41-4c8e-9d3b-2b7f1e0a9c11"
    shell = {"command": "grep -n PROVIDER email_config.py"}
    out = '1:EMAIL_PROVIDER = "bento"'
    return [
        {"sessionId": sid, "projectHash": "9e1f", "startTime": _ts(0), "kind": "main"},
        {"$set": {"lastUpdated": _ts(0)}},
        {
            "id": "u1",
            "timestamp": _ts(1),
            "type": "user",
            "content": [
                {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"},
                {"text": "We decided to use Bento for the signup confirmation emails."},
            ],
        },
        {
            "id": "g1",
            "timestamp": _ts(2),
            "type": "gemini",
            "content": "",
            "thoughts": [],
            "model": "gemini-2.5-flash",
        },
        {
            "id": "g1",
            "timestamp": _ts(2),
            "type": "gemini",
            "content": "",
            "thoughts": [],
            "model": "gemini-2.5-flash",
            "toolCalls": [
                {
                    "id": "run_shell_command_1",
                    "name": "run_shell_command",
                    "args": shell,
                    "status": "success",
                }
            ],
        },
        {
            "id": "u2",
            "timestamp": _ts(3),
            "type": "user",
            "content": [
                {
                    "functionResponse": {
                        "id": "run_shell_command_1",
                        "name": "run_shell_command",
                        "response": {"output": out},
                    }
                }
            ],
        },
        {
            "id": "g2",
            "timestamp": _ts(4),
            "type": "gemini",
            "content": "The provider is set to Bento in email_config.py.",
            "thoughts": [],
            "model": "gemini-2.5-flash",
        },
        {
            "id": "u3",
            "timestamp": _ts(5),
            "type": "user",
            "content": [
                {
                    "text": "<hook_context>Rolling memory of this session…</hook_context>\n\n"
                    "Actually, no: switch to Resend instead of Bento, Maya from marketing "
                    "asked for it."
                }
            ],
        },
        {
            "id": "g3",
            "timestamp": _ts(6),
            "type": "gemini",
            "content": "",
            "thoughts": [],
            "model": "gemini-2.5-flash",
            "toolCalls": [
                {
                    "id": "replace_2",
                    "name": "replace",
                    "args": {
                        "file_path": "email_config.py",
                        "old_string": "bento",
                        "new_string": "resend",
                    },
                    "status": "success",
                }
            ],
        },
        {
            "id": "u4",
            "timestamp": _ts(7),
            "type": "user",
            "content": [
                {
                    "functionResponse": {
                        "id": "replace_2",
                        "name": "replace",
                        "response": {"output": "Successfully modified file: email_config.py"},
                    }
                }
            ],
        },
        {
            "id": "g4",
            "timestamp": _ts(8),
            "type": "gemini",
            "content": "Switched the signup emails to Resend.",
            "thoughts": [],
            "model": "gemini-2.5-flash",
        },
        {"$set": {"lastUpdated": _ts(8)}},
    ]


def copilot() -> list[dict[str, Any]]:
    sid = "8b3e2f10-77aa-4d21-9c5e-4e0d6f2a1b22"
    n = iter(range(1, 100))

    def ev(kind: str, data: dict[str, Any]) -> dict[str, Any]:
        i = next(n)
        return {"type": kind, "data": data, "id": f"e{i}", "timestamp": _ts(i)}

    return [
        ev(
            "session.start",
            {
                "sessionId": sid,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": "1.0.102",
                "context": {"cwd": "/work/signup"},
            },
        ),
        ev(
            "user.message",
            {
                "content": "Let's go with Postgres for the subscriber table.",
                "transformedContent": "<current_datetime>…</current_datetime>",
            },
        ),
        ev(
            "assistant.message",
            {
                "messageId": "m1",
                "model": "gpt-4.1",
                "content": "",
                "toolRequests": [
                    {"toolCallId": "c1", "name": "view", "arguments": {"path": "db/schema.sql"}}
                ],
            },
        ),
        ev(
            "tool.execution_complete",
            {
                "toolCallId": "c1",
                "success": True,
                "result": {
                    "content": 'CREATE TABLE subscribers (email text);\n\nTool "view" succeeded.',
                    "detailedContent": "CREATE TABLE subscribers (email text);",
                },
            },
        ),
        ev(
            "assistant.message",
            {
                "messageId": "m2",
                "model": "gpt-4.1",
                "content": "The schema already targets Postgres.",
                "toolRequests": [],
            },
        ),
        ev("user.message", {"content": "Wait, I meant SQLite for now; Postgres later."}),
        ev(
            "assistant.message",
            {
                "messageId": "m3",
                "model": "gpt-4.1",
                "content": "",
                "toolRequests": [
                    {"toolCallId": "c2", "name": "bash", "arguments": {"command": "pytest -q db"}}
                ],
            },
        ),
        ev(
            "tool.execution_complete",
            {
                "toolCallId": "c2",
                "success": False,
                "result": {"content": "1 failed: test_sqlite_url"},
            },
        ),
        ev(
            "assistant.message",
            {
                "messageId": "m4",
                "model": "gpt-4.1",
                "content": "One test fails on the SQLite URL; fixing it.",
                "toolRequests": [],
            },
        ),
        ev("session.shutdown", {"accountingSnapshot": {"totalUserRequests": 2}}),
    ]


def main() -> None:
    for name, lines in (("gemini-email.jsonl", gemini()), ("copilot-db.jsonl", copilot())):
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
