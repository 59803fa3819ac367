"""Private by default: under a umask of 022, everything rolling-graph creates in its data home
(and its socket directory) is 0700 for folders and 0600 for files: graph, audit log, state
files, the warm SQLite store with its -wal/-shm, the log, pending flushes, locks."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.transport.conftest import WorkerEnv, payload


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _wide(root: Path) -> list[str]:
    bad = []
    for p in [root, *root.rglob("*")]:
        st = p.lstat()
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISDIR(st.st_mode):
            want = 0o700
        elif stat.S_ISSOCK(st.st_mode) or stat.S_ISREG(st.st_mode):
            want = 0o600
        else:
            continue
        if mode != want:
            bad.append(f"{p.relative_to(root.parent)} {mode:04o}")
    return bad


def _drive(wenv: WorkerEnv, env: dict[str, str], cwd: str) -> None:
    sid = "modes-1"
    events = [
        payload("SessionStart", sid, source="startup"),
        payload("UserPromptSubmit", sid, prompt="Let's go with PostgreSQL for the warm store."),
        payload(
            "PostToolUse",
            sid,
            tool_name="Edit",
            tool_input={
                "file_path": f"{cwd}/db.py",
                "old_string": "a",
                "new_string": "def b(): ...",
            },
            tool_response={},
        ),
        payload("UserPromptSubmit", sid, prompt="Actually, no: use SQLite with Alice's schema."),
        payload("PreCompact", sid, trigger="auto"),
        payload("SessionEnd", sid, reason="other"),
        payload("SessionStart", "modes-2", source="startup"),
    ]
    for p in events:
        p["cwd"] = cwd
        assert wenv.hook(p, env=env).rc == 0
    wenv.hook(b"not json", env=env)  # a rejected payload: one log line


@pytest.mark.usefixtures("umask_022")
def test_worker_creates_everything_private(wenv: WorkerEnv, tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    os.makedirs(cwd)
    wenv.start()
    _drive(wenv, wenv.env, cwd)
    wenv.settled()
    wenv.wait_status(lambda s: not (s.get("probes") or {}).get("in_flight"))
    assert wenv.cli("flush", "--session", "modes-1").returncode in (0, 1)
    names = {p.name for p in wenv.home.rglob("*")}
    for expected in ("graph.json", "audit.jsonl", "gate.json", "rolling-graph.log"):
        assert expected in names, sorted(names)
    assert any(n.startswith("warm") and n.endswith("-wal") for n in names), sorted(names)
    assert _wide(wenv.home) == []
    assert _wide(Path(wenv.sock_dir)) == []


@pytest.mark.usefixtures("umask_022")
def test_in_process_hook_creates_everything_private(wenv: WorkerEnv, tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    os.makedirs(cwd)
    env = wenv.with_env(ROLLING_GRAPH_WORKER="0")
    _drive(wenv, env, cwd)
    assert (wenv.home / "sessions" / "modes-1" / "graph.json").exists()
    assert _wide(wenv.home) == []


def test_existing_wide_files_are_narrowed(wenv: WorkerEnv, tmp_path: Path) -> None:
    """A data home left 0755/0644 by an older version is narrowed when it is next used."""
    sess = wenv.home / "sessions" / "old-1"
    sess.mkdir(parents=True)
    for d in (wenv.home, wenv.home / "sessions", sess):
        d.chmod(0o755)
    log = wenv.home / "rolling-graph.log"
    log.write_text("old line\n")
    log.chmod(0o644)
    audit = sess / "audit.jsonl"
    audit.write_text("")
    audit.chmod(0o644)
    env = wenv.with_env(ROLLING_GRAPH_WORKER="0")
    p = payload("UserPromptSubmit", "old-1", prompt="We decided to use Redis.")
    p["cwd"] = str(tmp_path)
    assert wenv.hook(p, env=env).rc == 0
    assert _wide(wenv.home) == []
