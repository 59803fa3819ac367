"""Fuzz the real ``rolling-graph hook`` console script against a warm worker.

Whatever arrives on stdin, the process exits 0, prints no traceback, and prints either nothing
or exactly one JSON object of the shape Claude Code expects.
"""

from __future__ import annotations

import json
import random

from tests.worker.conftest import WorkerEnv, payload

EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "SessionEnd",
    "Stop",
    "Bogus",
]


def _inputs(n: int, seed: int = 11) -> list[bytes]:
    rnd = random.Random(seed)
    out: list[bytes] = []
    for i in range(n):
        kind = i % 8
        if kind == 0:
            out.append(rnd.randbytes(rnd.randrange(0, 400)))  # binary garbage
        elif kind == 1:
            good = json.dumps(payload(rnd.choice(EVENTS), f"s{i % 5}", prompt="use Bento")).encode()
            out.append(good[: rnd.randrange(0, len(good))])  # truncated JSON
        elif kind == 2:
            out.append(json.dumps(rnd.choice([[], 1, "x", None, True, {"a": 1}])).encode())
        elif kind == 3:  # right keys, wrong types
            p = payload(rnd.choice(EVENTS), f"s{i % 5}")
            p[rnd.choice(["session_id", "hook_event_name", "prompt", "tool_input", "cwd"])] = (
                rnd.choice([1, [], {}, None, 2.5])
            )
            out.append(json.dumps(p).encode())
        elif kind == 4:  # valid events with odd content
            p = payload(
                rnd.choice(EVENTS),
                f"s{i % 5}",
                prompt="".join(chr(rnd.randrange(1, 0x2FFF)) for _ in range(60)),
                tool_name="Bash",
                tool_input={"command": "ls"},
                source="startup",
            )
            out.append(json.dumps(p, ensure_ascii=False).encode())
        elif kind == 5:
            out.append(b"\xff\xfe" + "{}".encode("utf-16-le"))
        elif kind == 6:
            out.append(
                b'{"hook_event_name": "UserPromptSubmit", "session_id": "../../etc", "prompt": "'
                + b"a" * 5000
                + b'"}'
            )
        else:
            out.append(
                json.dumps(
                    payload("UserPromptSubmit", f"s{i % 5}", prompt=f"let's go with option {i}")
                ).encode()
            )
    return out


def test_console_script_fuzz(wenv: WorkerEnv) -> None:
    wenv.start()
    for raw in _inputs(160):
        res = wenv.hook(raw)
        assert res.rc == 0, raw[:80]
        assert "Traceback" not in res.out and "Traceback" not in res.err, raw[:80]
        if res.out.strip():
            doc = json.loads(res.out)
            spec = doc["hookSpecificOutput"]
            assert spec["hookEventName"] in (
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
            )
            assert isinstance(spec["additionalContext"], str) and spec["additionalContext"]
