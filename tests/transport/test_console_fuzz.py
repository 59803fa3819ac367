"""Fuzz the real ``rolling-graph hook`` console script against a warm worker.

Whatever arrives on stdin, the process exits 0, prints no traceback, and prints either nothing
or exactly one JSON object of the shape Claude Code expects.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from tests.transport.conftest import WorkerEnv, payload

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


# --- bad input that used to hurt: huge ids, special files, huge transcripts -----------------


def _status_ok(wenv: WorkerEnv) -> dict:
    res = wenv.cli("worker", "status", "--json")
    assert res.returncode == 0, res.stderr
    st = json.loads(res.stdout)
    assert st.get("running", True) and st.get("ready"), st
    return st


def test_huge_session_id_does_not_break_status_or_doctor(wenv: WorkerEnv) -> None:
    wenv.start()
    huge = "x" * 5_000_000
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse"):
        p = payload(event, huge, prompt="Let's go with Bento.", tool_name="Read")
        p["tool_input"] = {"file_path": "/tmp/a.py"}
        res = wenv.hook(p)
        assert res.rc == 0 and "Traceback" not in res.err
    st = _status_ok(wenv)
    assert all(len(s) <= 128 for s in st["session_ids"]), [len(s) for s in st["session_ids"]]
    assert any(s.startswith("xxxx") for s in st["session_ids"])
    doc = wenv.cli("doctor", "--no-start")
    worker_line = next(ln for ln in doc.stdout.splitlines() if " worker " in f" {ln} ")
    assert worker_line.startswith("ok"), doc.stdout
    names = [p.name for p in (wenv.home / "sessions").iterdir()]
    assert names and all(len(n) <= 128 for n in names)


def test_special_and_huge_transcript_paths_are_refused_or_bounded(
    wenv: WorkerEnv, tmp_path: Path
) -> None:
    fifo = tmp_path / "t.fifo"
    os.mkfifo(fifo)
    sparse = tmp_path / "sparse.jsonl"  # 3 GB of nothing, no newline: never read whole
    with sparse.open("wb") as fh:
        fh.truncate(3 * 1024**3)
    big = tmp_path / "big.jsonl"  # 20 MB of real lines: only the last 8 MB is read
    line = json.dumps({"type": "assistant", "message": {"role": "assistant", "content": "ok"}})
    big.write_text((line + "\n") * (20_000_000 // (len(line) + 1)))
    wenv.start()
    for i, path in enumerate([fifo, "/dev/zero", "/dev/urandom", sparse, big, tmp_path]):
        for event in ("UserPromptSubmit", "PostToolUse"):
            p = payload(event, f"t{i}", prompt="use Redis", tool_name="Read")
            p.update(transcript_path=str(path), tool_input={"file_path": "/tmp/a.py"})
            res = wenv.hook(p)
            assert res.rc == 0 and "Traceback" not in res.err
        _status_ok(wenv)  # the worker still answers at once
    log = wenv.log_text()
    assert log.count("is not a regular file; not read") >= 6, log[-2000:]
    assert "grew by" in log
    assert "Traceback" not in log
    stop = wenv.cli("worker", "stop", "--wait", "10")
    assert stop.returncode == 0 and not wenv.pids()


def test_one_log_line_per_rejected_payload(wenv: WorkerEnv) -> None:
    wenv.start()
    before = wenv.log_text().count("\n")
    bad = [b"not json", b"[1, 2]", b'{"hook_event_name": 5}', b'{"hook_event_name": "Stop"']
    for raw in bad * 3:
        assert wenv.hook(raw).rc == 0
    lines = wenv.log_text().splitlines()[before:]
    rejected = [ln for ln in lines if "hook payload" in ln]
    assert len(rejected) == len(bad) * 3, lines
    assert not any("Traceback" in ln for ln in lines)
