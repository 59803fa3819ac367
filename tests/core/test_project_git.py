"""The git calls made in the person's work tree take no lock: ``git status`` run by a hook (or
killed at its deadline) must not leave ``index.lock`` behind for the person's next commit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rolling_graph.core.project import git_env, git_output

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    (tmp_path / "a.txt").write_text("same content\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "a"], check=True, env=env)
    return tmp_path / ".git" / "index", tmp_path / "a.txt"


def _stale(path: Path) -> None:
    """The file's stat no longer matches the index (same content): a refresh would rewrite it."""
    st = path.stat()
    os.utime(path, (st.st_atime - 100, st.st_mtime - 100))


def test_git_status_through_the_package_leaves_the_index_alone(tmp_path: Path) -> None:
    index, tracked = _repo(tmp_path)
    _stale(tracked)
    before = index.read_bytes()
    assert git_output(str(tmp_path), "status", "--porcelain") == ""
    assert git_env()["GIT_OPTIONAL_LOCKS"] == "0"
    assert index.read_bytes() == before  # not refreshed: no index.lock was taken
    # the same call with git's default optional locks refreshes (and so locks) the index
    env = {k: v for k, v in git_env().items() if k != "GIT_OPTIONAL_LOCKS"}
    subprocess.run(
        ["git", "-C", str(tmp_path), "status", "--porcelain"],
        check=True,
        env=env,
        capture_output=True,
    )
    assert index.read_bytes() != before
