"""Secrets generated at test time go through every hook event type, via the real ``rolling-graph
hook`` console script and a real worker; afterwards no raw value is found anywhere under the
data home (graph, audit log, state files, warm SQLite with its -wal/-shm, the log), nor in any
block the hooks injected. The held-out corpus uses other carrier lines and another seed.

Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.security.secret_corpus import CARRIERS, HELD_OUT, corpus, fragments
from tests.transport.conftest import WorkerEnv, payload

SESSION = "sec-0001"


def _assistant_line(i: int, text: str) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": f"a{i}",
            "sessionId": SESSION,
            "timestamp": "2026-02-01T10:00:02.000Z",
            "message": {
                "id": f"msg_{i}",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        }
    )


def _events(line: str, i: int, cwd: str) -> list[dict[str, Any]]:
    """One secret-bearing line through the event type that ``i`` selects."""
    f = f"{cwd}/config.yml"
    kind = i % 8
    if kind == 0:
        return [payload("UserPromptSubmit", SESSION, prompt=line)]
    if kind == 1:
        return [payload("PreToolUse", SESSION, tool_name="Bash", tool_input={"command": line})]
    if kind == 2:
        out = {"stdout": line, "stderr": "", "interrupted": False}
        return [
            payload(
                "PostToolUse",
                SESSION,
                tool_name="Bash",
                tool_input={"command": line},
                tool_response=out,
            )
        ]
    if kind == 3:
        resp = {"type": "text", "file": {"filePath": f, "content": line}}
        return [
            payload(
                "PostToolUse",
                SESSION,
                tool_name="Read",
                tool_input={"file_path": f},
                tool_response=resp,
            )
        ]
    if kind == 4:
        inp = {"file_path": f, "old_string": "token: TODO", "new_string": line}
        return [payload("PostToolUse", SESSION, tool_name="Edit", tool_input=inp, tool_response={})]
    if kind == 5:
        inp = {"file_path": f, "content": f"# settings\n{line}\n"}
        return [
            payload("PostToolUse", SESSION, tool_name="Write", tool_input=inp, tool_response={})
        ]
    if kind == 6:
        todo = {"todos": [{"content": f"rotate {line}", "status": "in_progress"}]}
        return [payload("PostToolUse", SESSION, tool_name="TodoWrite", tool_input=todo)]
    # Prompt with the decision language the gate fires on, plus the secret in prose.
    return [payload("UserPromptSubmit", SESSION, prompt=f"Let's go with Vault for this: {line}")]


def _wait_idle(wenv: WorkerEnv) -> None:
    # Events first (a prompt's hook is answered before its event is handled), then probes.
    wenv.wait_status(lambda s: s.get("behind") == 0, timeout=60)
    wenv.wait_status(
        lambda s: (
            not (s.get("probes") or {}).get("queued")
            and not (s.get("probes") or {}).get("in_flight")
        ),
        timeout=60,
    )


def _leaks(home: Path, outputs: list[str], secrets: list[tuple[str, str, str]]) -> list[str]:
    blobs: list[tuple[str, bytes]] = [
        (str(p.relative_to(home)), p.read_bytes()) for p in home.rglob("*") if p.is_file()
    ]
    blobs += [(f"hook output {n}", o.encode()) for n, o in enumerate(outputs)]
    found = []
    for kind, secret, _ in secrets:
        for frag in fragments(secret):
            forms = {frag.encode(), json.dumps(frag)[1:-1].encode()}
            for name, data in blobs:
                if any(f in data for f in forms):
                    found.append(f"{kind} in {name}")
    return found


@pytest.mark.parametrize("name,carriers", [("dev", CARRIERS), ("held-out", HELD_OUT)])
def test_no_secret_reaches_disk_or_a_block(
    wenv: WorkerEnv, tmp_path: Path, name: str, carriers: list[str]
) -> None:
    seed = int.from_bytes(os.urandom(4), "big")
    secrets = corpus(seed, carriers)
    assert len(secrets) >= 100 and len({k for k, _, _ in secrets}) >= 40
    cwd = str(tmp_path / "proj")
    os.makedirs(cwd)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    env = wenv.with_env(ROLLING_GRAPH_PROBE="offline")
    wenv.start(env=env)
    outputs: list[str] = []

    def send(p: dict[str, Any]) -> None:
        p.update(cwd=cwd, transcript_path=str(transcript))
        res = wenv.hook(p, env=env)
        assert res.rc == 0 and "Traceback" not in res.err
        outputs.append(res.out)

    send(payload("SessionStart", SESSION, source="startup"))
    for i, (_, _, line) in enumerate(secrets):
        if i % 5 == 4:  # assistant text, read from the transcript by the next event
            with transcript.open("a") as fh:
                fh.write(_assistant_line(i, f"I found this in the logs: {line}") + "\n")
        for p in _events(line, i, cwd):
            send(p)
    send(payload("PreCompact", SESSION, trigger="auto"))
    send(payload("SessionStart", SESSION, source="compact"))
    _wait_idle(wenv)
    send(payload("SessionEnd", SESSION, reason="other"))
    time.sleep(0.5)
    _wait_idle(wenv)
    # A new session pulls from the warm store: its block must be clean too.
    send(payload("SessionStart", "sec-0002", source="startup"))
    send(payload("UserPromptSubmit", "sec-0002", prompt="where were we with Vault?"))
    _wait_idle(wenv)

    files = [p for p in wenv.home.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".sqlite3") or ".sqlite" in p.name for p in files), files
    assert (wenv.home / "sessions" / SESSION / "audit.jsonl").exists()
    leaks = _leaks(wenv.home, outputs, secrets)
    kinds = len({k for k, _, _ in secrets})
    print(
        f"\n{name} corpus (seed {seed}): {len(secrets)} secrets of {kinds} kinds, "
        f"{len(outputs)} hook calls, {len(files)} files checked: {len(leaks)} raw values found"
    )
    assert leaks == [], f"seed {seed}: " + "; ".join(leaks[:20])


def test_private_spans_and_opted_out_projects(wenv: WorkerEnv, tmp_path: Path) -> None:
    """Through the real hook and worker: text in <private> never lands anywhere, and a project
    with a .rolling-graph-ignore file (or under IGNORE_PATHS) leaves no trace at all."""
    word = "zq" + os.urandom(6).hex()
    env = wenv.with_env(ROLLING_GRAPH_IGNORE_PATHS=str(tmp_path / "listed"))
    wenv.start(env=env)
    open_repo = tmp_path / "open"
    open_repo.mkdir()
    p = payload(
        "UserPromptSubmit",
        "open-1",
        prompt=f"Let's go with Redis. <private>my doctor {word} said so</private> Thanks.",
    )
    p["cwd"] = str(open_repo)
    assert wenv.hook(p, env=env).rc == 0
    wenv.settled()
    assert (wenv.home / "sessions" / "open-1").is_dir()
    ignored = tmp_path / "ignored"
    (ignored / "src").mkdir(parents=True)
    (ignored / ".rolling-graph-ignore").write_text("")
    listed = tmp_path / "listed" / "app"
    listed.mkdir(parents=True)
    for sid, cwd in (("ign-1", ignored / "src"), ("ign-2", listed)):
        for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"):
            q = payload(event, sid, prompt=f"use Kafka {word}", tool_name="Read")
            q.update(cwd=str(cwd), tool_input={"file_path": f"{cwd}/a.py"})
            res = wenv.hook(q, env=env)
            assert res.rc == 0 and res.out == ""
        assert not (wenv.home / "sessions" / sid).exists()
    _wait_idle(wenv)
    hits = [str(p) for p in wenv.home.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]
    assert hits == []
