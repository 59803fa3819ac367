"""What changed in a work tree since a moment (rolling_graph.observe.worktree_changes), on real git."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rolling_graph.observe.worktree_changes import changes_since
from tests.git_repos import ENV, git, repo


def _commit(path: Path, name: str, message: str, when: datetime) -> None:
    (path / name).write_text(message + "\n")
    git(path, "add", name)
    stamp = when.isoformat()
    env = {**ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=path, env=env, check=True)


def test_commits_and_files_since(tmp_path: Path) -> None:
    r = repo(tmp_path / "r")
    ended = datetime.now(UTC) - timedelta(hours=2)
    _commit(r, "old.py", "before the session ended", ended - timedelta(days=1))
    _commit(r, "app.py", "Fix the signup redirect", ended + timedelta(minutes=30))
    _commit(r, "docs.md", "Document the flow", ended + timedelta(minutes=60))
    (r / "README").write_text("edited after the session\n")
    (r / "sub").mkdir()
    ch = changes_since(r / "sub", ended)  # from any folder of the work tree
    subjects = [c.split(" ", 1)[1] for c in ch.commits]
    assert subjects == ["Document the flow", "Fix the signup redirect"]  # newest first
    assert ch.more_commits == 0
    assert set(ch.files) == {"app.py", "docs.md"}
    assert ch.uncommitted == ["README"]


def test_old_uncommitted_edits_are_not_news(tmp_path: Path) -> None:
    r = repo(tmp_path / "r")
    (r / "README").write_text("edited long ago\n")
    past = time.time() - 86_400
    os.utime(r / "README", (past, past))
    # The repository's first commit is older than the session end too.
    ch = changes_since(r, datetime.now(UTC) + timedelta(seconds=2))
    assert ch.empty


def test_outside_a_repository_or_without_a_time(tmp_path: Path) -> None:
    assert changes_since(tmp_path, datetime.now(UTC)).empty
    assert changes_since(repo(tmp_path / "r"), None).empty
    assert changes_since("C:\\Users\\someone\\proj", datetime.now(UTC)).empty  # not absolute here
