"""Warm memory follows the project key: two repositories with one folder name never share it,
two clones of one repository do, and memory keyed the old way (folder name) is adopted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.project import project_key
from rolling_graph.pipeline.engine import Engine
from rolling_graph.warm import open_store, prepare_batch
from rolling_graph.warm.reconcile import Reconciler
from tests.git_repos import git, repo
from tests.warm._hot import hot_session, node_op

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SECRET = [node_op("use-bento", 0.9, label="Use Bento", kind="decision", summary="email via Bento")]


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from rolling_graph.config import load_settings

    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_WARM", f"sqlite:///{tmp_path}/warm.sqlite3")
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("ROLLING_GRAPH_PROJECT", raising=False)
    return load_settings()


def _flush_in(settings: Any, sid: str, cwd: Path) -> None:
    rec = Reconciler(settings)
    rec.remember(sid, cwd=str(cwd))
    rec.flush(hot_session(rec.hot, sid, SECRET), final=True, now=T0, cwd=str(cwd))
    rec.close()


def _start(settings: Any, sid: str, cwd: Path) -> tuple[str, set[str]]:
    engine = Engine(settings)
    try:
        out = engine.handle(HookEvent("session_start", sid, cwd=str(cwd), source="startup"))
        return out.injected or "", set(engine.sessions[sid].graph.nodes)
    finally:
        engine.close()


def test_two_repositories_with_one_folder_name_share_nothing(settings: Any, tmp_path: Path) -> None:
    alice = repo(tmp_path / "alice" / "proj", remote="git@github.com:alice/proj.git")
    bob = repo(tmp_path / "bob" / "proj", remote="git@github.com:bob/proj.git")
    _flush_in(settings, "a1", alice)
    text, nodes = _start(settings, "b1", bob)
    assert "use-bento" not in nodes and "Bento" not in text
    (alice / "sub").mkdir()
    text, nodes = _start(settings, "a2", alice / "sub")  # any folder of the same repository
    assert "use-bento" in nodes and "Use Bento" in text


def test_two_clones_of_one_repository_share_memory(settings: Any, tmp_path: Path) -> None:
    origin = repo(tmp_path / "origin" / "proj")
    for parent, name in (("work", "proj"), ("laptop", "other-name")):
        (tmp_path / parent).mkdir()
        git(tmp_path / parent, "clone", "-q", str(origin), name)
    _flush_in(settings, "w1", tmp_path / "work" / "proj")
    text, nodes = _start(settings, "l1", tmp_path / "laptop" / "other-name")
    assert "use-bento" in nodes and "Use Bento" in text


def _legacy_flush(settings: Any, sid: str, cwd: Path) -> None:
    """A session flushed before project identity: scope = folder name, cwd in its state."""
    hot = HotStore(Path(settings.home))
    sess = hot_session(hot, sid, SECRET)
    rec = Reconciler(settings)
    rec.write_state(sid, {"cwd": str(cwd), "scope": "proj"})
    batch = prepare_batch(sess.graph.to_json_dict(), flush_seq=1, now=T0, scope="proj")
    with open_store(settings.warm, Path(settings.home)) as store:
        assert store.merge(batch).applied
    rec.close()


def test_memory_keyed_by_folder_name_is_adopted(settings: Any, tmp_path: Path) -> None:
    alice = repo(tmp_path / "alice" / "proj", remote="git@github.com:alice/proj.git")
    _legacy_flush(settings, "old", alice)
    text, nodes = _start(settings, "new", alice)
    assert "use-bento" in nodes and "Use Bento" in text
    with open_store(settings.warm, Path(settings.home)) as store:
        assert store.counts(scope="proj").nodes == 0
        assert store.node_sessions("use-bento", scope=project_key(alice)) == ["old"]


def test_folder_name_memory_of_two_projects_is_not_adopted(settings: Any, tmp_path: Path) -> None:
    alice = repo(tmp_path / "alice" / "proj", remote="git@github.com:alice/proj.git")
    bob = repo(tmp_path / "bob" / "proj", remote="git@github.com:bob/proj.git")
    _legacy_flush(settings, "old-alice", alice)
    _legacy_flush(settings, "old-bob", bob)  # the old key mixed both
    text, nodes = _start(settings, "new", alice)
    assert "use-bento" not in nodes and "Bento" not in text
    with open_store(settings.warm, Path(settings.home)) as store:
        assert store.counts(scope="proj").nodes == 1  # left where it was
