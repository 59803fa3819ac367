"""The claude-cli backend against a fake ``claude`` executable written into a tmp dir on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.probe.base import PROBE_CHILD_ENV, ProbeError
from rolling_graph.probe.claude_cli import ClaudeCliBackend, extract_patch
from tests.probe.conftest import VALID_PATCH, make_request

# What `claude -p --output-format json` prints (shape recorded from Claude Code 2.1).
RECORDED = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "duration_ms": 2210,
    "num_turns": 1,
    "result": "```json\n" + json.dumps(VALID_PATCH) + "\n```",
    "session_id": "0b5c3a6e-1111-2222-3333-444455556666",
    "total_cost_usd": 0.0021,
    "usage": {
        "input_tokens": 812,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 100,
        "output_tokens": 211,
    },
}


def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """Write a ``claude`` script that records argv, env and stdin, then runs ``body``."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "call.json"
    script = bindir / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, time\n"
        "stdin = sys.stdin.read()\n"
        f"json.dump({{'argv': sys.argv[1:], 'env': {{k: v for k, v in os.environ.items() if k.startswith('ROLLING_GRAPH')}}, 'stdin': stdin, 'pid': os.getpid()}}, open({str(log)!r}, 'w'))\n"
        + body
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return log


def run(settings: Any, **kw: Any) -> Any:
    return ClaudeCliBackend(settings, **kw).run(make_request())


def test_recorded_output(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_claude(tmp_path, monkeypatch, f"print(json.dumps({RECORDED!r}))\n")
    reply = run(settings)
    assert reply.raw == VALID_PATCH
    assert (reply.tokens_in, reply.tokens_out, reply.tokens_estimated) == (912, 211, False)
    call = json.loads(log.read_text())
    argv = call["argv"]
    assert argv[:2] == ["-p", "--model"] and argv[2] == "claude-haiku-4-5"
    assert argv[argv.index("--output-format") + 1] == "json"
    assert "let's use Resend for email" in call["stdin"]  # the prompt goes on stdin, not argv
    assert "--no-session-persistence" in argv and argv[argv.index("--tools") + 1] == ""


def test_recursion_guard(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = fake_claude(tmp_path, monkeypatch, f"print(json.dumps({RECORDED!r}))\n")
    run(settings)
    call = json.loads(log.read_text())
    assert call["env"].get(PROBE_CHILD_ENV) == "1"
    argv = call["argv"]
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}


def test_hook_client_honours_the_guard(tmp_path: Path) -> None:
    """The child's hooks, if any ran, would exit 0 at once and print nothing."""
    pytest.importorskip("rolling_graph.transport.client")
    env = {**os.environ, PROBE_CHILD_ENV: "1", "ROLLING_GRAPH_HOME": str(tmp_path)}
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "x", "prompt": "hi"})
    proc = subprocess.run(
        [sys.executable, "-c", "from rolling_graph.entry import main; main()", "hook"],
        input=payload.encode(),
        capture_output=True,
        env=env,
        timeout=30,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    assert not (tmp_path / "sessions").exists()  # nothing was handled


def test_structured_output_preferred(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = {**RECORDED, "result": "", "structured_output": VALID_PATCH}
    fake_claude(tmp_path, monkeypatch, f"print(json.dumps({out!r}))\n")
    assert run(settings).raw == VALID_PATCH


def test_usage_missing_is_estimated(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = {k: v for k, v in RECORDED.items() if k != "usage"}
    fake_claude(tmp_path, monkeypatch, f"print(json.dumps({out!r}))\n")
    reply = run(settings)
    assert reply.tokens_estimated and reply.tokens_in > 100 and reply.tokens_out > 10


@pytest.mark.parametrize(
    "body, match",
    [
        ("print('this is not json')\n", "not JSON"),
        (
            f"print(json.dumps({ {**RECORDED, 'result': 'Sorry, I cannot help.'}!r}))\n",
            "no JSON patch",
        ),
        (
            f"print(json.dumps({ {**RECORDED, 'is_error': True, 'subtype': 'error_during_execution'}!r}))\n",
            "error_during_execution",
        ),
        ("sys.stderr.write('boom'); sys.exit(3)\n", "exit 3"),
    ],
    ids=["not-json", "prose-answer", "is-error", "crash"],
)
def test_malformed_output(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, match: str
) -> None:
    fake_claude(tmp_path, monkeypatch, body)
    with pytest.raises(ProbeError, match=match):
        run(settings)


def test_hang_past_timeout_kills_process_group(
    settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fake spawns a grandchild that would outlive a plain kill; the whole group must go.
    pidfile = tmp_path / "grandchild.pid"
    body = (
        "import subprocess\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    fake_claude(tmp_path, monkeypatch, body)
    s = settings.model_copy(update={"probe_timeout": 1.0})
    started = time.monotonic()
    with pytest.raises(ProbeError, match="timed out") as info:
        run(s)
    assert time.monotonic() - started < 8
    assert info.value.reply is not None and info.value.reply.tokens_estimated
    pid = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the grandchild survived the timeout")


def test_missing_binary(settings: Any) -> None:
    with pytest.raises(ProbeError, match="not found"):
        ClaudeCliBackend(settings, binary="claude-does-not-exist-xyz").run(make_request())


def test_extract_patch_variants() -> None:
    body = json.dumps(VALID_PATCH)
    assert extract_patch(body) == VALID_PATCH
    assert extract_patch("Here you go:\n```json\n" + body + "\n```\nDone.") == VALID_PATCH
    assert extract_patch("Sure! " + body + " hope it helps") == VALID_PATCH
    with pytest.raises(ProbeError):
        extract_patch('{"no": "ops"}')
