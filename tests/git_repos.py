"""Real git repositories for project-identity tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def repo(path: Path, *, remote: str | None = None, commit: bool = True) -> Path:
    """A git repository at ``path`` with one commit (``README``) and optionally a remote."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if commit:
        (path / "README").write_text(f"{path.name}\n")
        git(path, "add", "README")
        git(path, "commit", "-q", "-m", "first")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path
