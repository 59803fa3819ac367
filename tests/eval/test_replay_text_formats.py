"""``rolling-graph replay`` of the replay-only formats (pi, Claude Code export, aider), on
invented files: they replay, and a secret in a prompt, a reply or a tool's output is redacted
at the privacy boundary like in every other format: no raw value anywhere under ``--out``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rolling_graph.cli import cli
from tests.security.secret_corpus import CARRIERS, corpus, fragments


def _secrets() -> list[tuple[str, str]]:
    """Three (secret, line carrying it) of shapes the redaction rules know (fixed seed)."""
    picked = {kind: (secret, line) for kind, secret, line in corpus(7103, CARRIERS, per_kind=1)}
    return [picked[k] for k in ("aws-key-id", "github-pat", "anthropic")]


def _pi(path: Path, lines: list[str]) -> Path:
    t = "2026-03-02T09:00:{:02d}.000Z"
    entries = [
        {"type": "session", "version": 3, "id": "pi-1", "timestamp": t.format(0), "cwd": "/w"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": t.format(1),
         "message": {"role": "user", "content": [{"type": "text", "text": f"Let's use Postgres for the kite store instead of SQLite. {lines[0]}"}]}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": t.format(2),
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": f"Noted {lines[1]}"},
             {"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "kite/store.py", "oldText": "a", "newText": "b"}}]}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": t.format(3),
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "edit",
                     "content": [{"type": "text", "text": lines[2]}], "isError": False}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def _export(path: Path, lines: list[str]) -> Path:
    path.write_text(
        f"\n> Let's use Postgres for the kite store instead of SQLite. {lines[0]}\n\n● Noted {lines[1]}\n\n"
        f"● Update(kite/store.py)\n  ⎿  {lines[2]}\n",
        encoding="utf-8",
    )
    return path


def _aider(path: Path, lines: list[str]) -> Path:
    path.write_text(
        "\n# aider chat started at 2026-03-02 09:00:00\n\n"
        f"#### Let's use Postgres for the kite store instead of SQLite. {lines[0]}  \n\nNoted {lines[1]}\n\n"
        f"> Applied edit to kite/store.py  \n> Running cat .env  \n> {lines[2]}  \n",
        encoding="utf-8",
    )
    return path


def test_replay_only_formats_replay_and_redact(tmp_path: Path) -> None:
    secrets = _secrets()
    lines = [line for _, line in secrets]
    files = [
        _pi(tmp_path / "pi.jsonl", lines),
        _export(tmp_path / "export.txt", lines),
        _aider(tmp_path / "history.md", lines),
    ]
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["replay", *map(str, files), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    sessions = summary["sessions"]
    assert [s["format"] for s in sessions] == ["pi", "claude-code-export", "aider"]
    assert all(s["user_turns"] == 1 and s["tool_steps"] >= 1 for s in sessions)
    assert all(s["nodes"] > 0 for s in sessions)
    raw = [f for secret, _ in secrets for f in fragments(secret)]
    kept = False  # the texts around the secrets were stored: their absence means something
    for written in (p for p in out.rglob("*") if p.is_file()):
        data = written.read_bytes()
        kept = kept or b"kite/store.py" in data
        leaked = [f for f in raw if f.encode() in data]
        assert not leaked, (written.relative_to(out), leaked)
    assert kept
