"""Issue 30's secrets (passwords in prose, chat-platform bot and webhook tokens; generated at test
time, ``trust_corpus``) through every carrier: the prompt, a tool's input and output, a file
read, the transcript's assistant text, user lines, tool calls, tool results (what feeds
``probe_buffer.json``) and compaction summary, and the log, by the real ``rolling-graph hook``
and worker; then by ``rolling-graph replay`` of a transcript. Afterwards no raw value is found
under the data home, in the log, in the replay's output or in any block.

Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.security.test_secrets_e2e import _assistant_line, _leaks, _wait_idle
from tests.security.trust_corpus import trust_corpus
from tests.transport.conftest import RG, WorkerEnv, payload

SESSION = "trust-0001"
CHUNK = 6  # secret lines per event: every secret goes through every carrier
CARRIERS = (
    "prompt",
    "bash-input",
    "bash-output",
    "file-read",
    "transcript-assistant",
    "transcript-user",
    "transcript-tool-use",
    "transcript-tool-result",
    "transcript-compact-summary",
)  # and the log, by a transcript path that names a token


def _line(kind: str, i: int, content: Any, session: str = SESSION) -> str:
    role = "assistant" if kind == "assistant" else "user"
    msg: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        msg.update(id=f"msg_{i}", type="message")
    return json.dumps(
        {
            "type": role,
            "uuid": f"{kind[0]}{i}",
            "sessionId": session,
            "timestamp": f"2026-02-01T10:{i // 60:02d}:{i % 60:02d}.000Z",
            "message": msg,
        }
    )


def _transcript_lines(carrier: str, i: int, text: str) -> list[str]:
    if carrier == "transcript-assistant":
        return [_assistant_line(i, f"I found this in the logs: {text}")]
    if carrier == "transcript-user":
        return [_line("user", i, f"here you go:\n{text}")]
    if carrier == "transcript-compact-summary":  # the harness's summary after a compaction
        obj = json.loads(_line("user", i, f"This session is continued. Summary:\n{text}"))
        return [json.dumps({**obj, "isCompactSummary": True})]
    call = {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": text}}
    if carrier == "transcript-tool-use":
        return [_line("assistant", i, [call])]
    result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text}
    return [_line("assistant", i, [{**call, "input": {"command": "cat notes.txt"}}]),
            _line("user", i + 1, [result])]  # fmt: skip


def _event(carrier: str, text: str, cwd: str) -> dict[str, Any]:
    if carrier == "prompt":
        return payload("UserPromptSubmit", SESSION, prompt=f"Let's go with this setup: {text}")
    if carrier == "bash-input":
        return payload("PreToolUse", SESSION, tool_name="Bash", tool_input={"command": text})
    if carrier == "bash-output":
        out = {"stdout": text, "stderr": "", "interrupted": False}
        return payload(
            "PostToolUse",
            SESSION,
            tool_name="Bash",
            tool_input={"command": "cat notes.txt"},
            tool_response=out,
        )
    if carrier == "file-read":
        f = f"{cwd}/notes.md"
        resp = {"type": "text", "file": {"filePath": f, "content": text}}
        inp = {"file_path": f}
        return payload("PostToolUse", SESSION, tool_name="Read", tool_input=inp, tool_response=resp)
    # Transcript carriers: the lines are read by the next event, a prompt with no secret.
    return payload("UserPromptSubmit", SESSION, prompt="ok, carry on")


def test_trust_shapes_in_every_carrier(wenv: WorkerEnv, tmp_path: Path) -> None:
    seed = int.from_bytes(os.urandom(4), "big")
    secrets = trust_corpus(seed)
    kinds = {k for k, _, _ in secrets}
    assert len(kinds) >= 20 and len(secrets) >= 40
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
    lines = [line for _, _, line in secrets]
    chunks = ["\n".join(lines[i : i + CHUNK]) for i in range(0, len(lines), CHUNK)]
    n = 0
    for carrier in CARRIERS:
        for text in chunks:
            if carrier.startswith("transcript"):
                with transcript.open("a") as fh:
                    for ln in _transcript_lines(carrier, n, text):
                        fh.write(ln + "\n")
                n += 2
            send(_event(carrier, text, cwd))
    # The log: a transcript path that is a directory is logged, and its name holds a token.
    tokens = [v for k, v, _ in secrets if k in ("slack-bot", "telegram-bot", "discord-bot")]
    for token in tokens:
        odd = tmp_path / token
        odd.mkdir(exist_ok=True)
        p = payload("UserPromptSubmit", SESSION, prompt="and now?")
        p.update(cwd=cwd, transcript_path=str(odd))
        assert wenv.hook(p, env=env).rc == 0
    send(payload("PreCompact", SESSION, trigger="auto"))
    send(payload("SessionStart", SESSION, source="compact"))
    _wait_idle(wenv)
    send(payload("SessionEnd", SESSION, reason="other"))
    _wait_idle(wenv)
    send(payload("SessionStart", "trust-0002", source="startup"))
    _wait_idle(wenv)

    assert "not a regular file" in wenv.log_text()  # the log carrier was exercised
    buffer = wenv.home / "sessions" / SESSION / "probe_buffer.json"
    assert buffer.exists() and "REDACTED" in buffer.read_text()
    leaks = _leaks(wenv.home, outputs, secrets)
    files = sum(1 for p in wenv.home.rglob("*") if p.is_file())
    print(
        f"\ntrust corpus (seed {seed}): {len(secrets)} secrets of {len(kinds)} kinds x "
        f"{len(CARRIERS)} carriers, {len(outputs)} hook calls, {files} files checked: "
        f"{len(leaks)} raw values found"
    )
    assert leaks == [], f"seed {seed}: " + "; ".join(leaks[:20])


def test_trust_shapes_through_transcript_replay(tmp_path: Path) -> None:
    """``rolling-graph replay`` of a transcript holding every shape in its user lines,
    assistant text, tool calls and tool results: its output (graphs, trace, store) and what
    it prints carry no raw value."""
    seed = int.from_bytes(os.urandom(4), "big")
    secrets = trust_corpus(seed)
    t = tmp_path / "replayed.jsonl"
    lines: list[str] = []
    carriers = [c for c in CARRIERS if c.startswith("transcript")]
    for i, (_, _, line) in enumerate(secrets):
        lines.append(_line("user", 4 * i, f"Let's use this: {line}", session="trust-r1"))
        for ln in _transcript_lines(carriers[i % len(carriers)], 4 * i + 1, line):
            lines.append(ln.replace(SESSION, "trust-r1"))
    t.write_text("\n".join(lines) + "\n")
    out = tmp_path / "replay-out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROLLING_GRAPH_")}
    env.update(ROLLING_GRAPH_HOME=str(tmp_path / "home"), ROLLING_GRAPH_LOAD_PLUGINS="0")
    res = subprocess.run(
        [RG, "replay", str(t), "--out", str(out), "--probe", "offline"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    written = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "trace.jsonl" for p in written), written
    leaks = _leaks(out, [res.stdout, res.stderr], secrets)
    home = tmp_path / "home"
    if home.exists():
        leaks += _leaks(home, [], secrets)
    print(
        f"\ntrust replay (seed {seed}): {len(secrets)} secrets, {len(lines)} transcript lines,"
        f" {len(written)} files checked: {len(leaks)} raw values found"
    )
    assert leaks == [], f"seed {seed}: " + "; ".join(leaks[:20])
