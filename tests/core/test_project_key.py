"""Project identity follows the repository, not the folder (rolling_graph.core.project)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.core.project import (
    legacy_project_key,
    normalize_remote,
    project_key,
    work_tree,
)
from tests.git_repos import git, repo


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("git@github.com:Owner/Repo.git", "github.com/Owner/Repo"),
        ("https://github.com/Owner/Repo", "github.com/Owner/Repo"),
        ("https://GitHub.com/Owner/Repo.git/", "github.com/Owner/Repo"),
        ("https://user:s3cr3t-token@github.com/Owner/Repo.git", "github.com/Owner/Repo"),
        (
            "ssh://git@gitlab.example.org:2222/group/sub/repo.git",
            "gitlab.example.org/group/sub/repo",
        ),
        ("file:///srv/git/repo.git", "file:/srv/git/repo"),
        ("/srv/git/repo.git", "file:/srv/git/repo"),
    ],
)
def test_normalize_remote(url: str, key: str) -> None:
    assert normalize_remote(url) == key
    assert "s3cr3t" not in normalize_remote(url)


def test_same_folder_name_different_repositories(tmp_path: Path) -> None:
    a = repo(tmp_path / "a" / "proj", remote="git@github.com:alice/proj.git")
    b = repo(tmp_path / "b" / "proj", remote="git@github.com:bob/proj.git")
    assert legacy_project_key(a) == legacy_project_key(b) == "proj"  # the old leak
    assert project_key(a) == "github.com/alice/proj"
    assert project_key(b) == "github.com/bob/proj"


def test_clones_share_a_key_from_any_folder(tmp_path: Path) -> None:
    origin = repo(tmp_path / "origin" / "proj")
    one = tmp_path / "work" / "proj"
    two = tmp_path / "elsewhere" / "renamed"
    for dest in (one, two):
        dest.parent.mkdir(parents=True, exist_ok=True)
        git(dest.parent, "clone", "-q", str(origin), dest.name)
    assert project_key(one) == project_key(two) == f"file:{origin}"
    (one / "src" / "pkg").mkdir(parents=True)
    assert project_key(one / "src" / "pkg") == project_key(one)  # any folder inside


def test_root_commit_without_remote(tmp_path: Path) -> None:
    a = repo(tmp_path / "a")
    root = git(a, "rev-list", "--max-parents=0", "HEAD")
    assert project_key(a) == f"git:{root}"
    # A local copy (no remote) of the same history: the same root commit, the same project.
    git(tmp_path, "clone", "-q", "--no-local", str(a), "copy")
    git(tmp_path / "copy", "remote", "remove", "origin")
    assert project_key(tmp_path / "copy") == f"git:{root}"


def test_path_for_a_repository_without_commits(tmp_path: Path) -> None:
    a = repo(tmp_path / "fresh", commit=False)
    assert project_key(a) == f"path:{a}"


def test_outside_any_repository_is_the_personal_scope(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    assert work_tree(loose) is None  # pytest's tmp folders are not inside a repository
    assert project_key(loose) == ""
    assert project_key(None) == ""
    assert legacy_project_key(loose) == "loose"


def test_override_wins(tmp_path: Path) -> None:
    a = repo(tmp_path / "a", remote="https://github.com/o/a")
    assert project_key(a, "team-x") == "team-x"
    assert project_key(None, "team-x") == "team-x"
    assert project_key(a, "  ") == "github.com/o/a"
