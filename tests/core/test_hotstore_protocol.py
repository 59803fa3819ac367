"""Both hot stores offer one protocol, and the replay store's flushed directory is an ordinary
hot store."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from rolling_graph.core.hotstore import HotStore, HotStoreProtocol, ReplayStore
from rolling_graph.core.model import HotGraph


def _protocol_methods() -> list[str]:
    return [
        name
        for name, member in vars(HotStoreProtocol).items()
        if callable(member) and not name.startswith("_")
    ]


@pytest.mark.parametrize("cls", [HotStore, ReplayStore])
def test_store_offers_the_protocol_with_the_same_signatures(cls: type, tmp_path: Path) -> None:
    store = cls(tmp_path)
    assert isinstance(store, HotStoreProtocol)
    for name in _protocol_methods():
        want = list(inspect.signature(getattr(HotStoreProtocol, name)).parameters)
        got = list(inspect.signature(getattr(cls, name)).parameters)
        assert got == want, f"{cls.__name__}.{name}{got} != protocol {want}"


def _use(store: HotStoreProtocol) -> None:
    graph = HotGraph(session_id="s1")
    graph.turn = 3
    with store.lock("s1"):
        store.save(graph)
        store.write_state("s1", "counters", {"step": 2})


def test_replay_store_flushes_into_an_ordinary_hot_store(tmp_path: Path) -> None:
    replay = ReplayStore(tmp_path / "r")
    _use(replay)
    assert replay.read_state("s1", "counters") == {"step": 2}
    disk = HotStore(tmp_path / "r")
    assert disk.read_state("s1", "counters") is None  # write-back: nothing on disk yet
    replay.flush("s1")
    assert disk.read_state("s1", "counters") == {"step": 2}
    assert disk.load("s1").graph.turn == 3
    direct = HotStore(tmp_path / "d")
    _use(direct)
    assert direct.load("s1").graph.turn == disk.load("s1").graph.turn


def test_replay_store_lets_go_of_a_flushed_session(tmp_path: Path) -> None:
    replay = ReplayStore(tmp_path / "r")
    _use(replay)
    replay.flush("s1")
    # What another writer leaves on disk is what the replay store reads now: it holds nothing.
    disk = HotStore(tmp_path / "r")
    graph = disk.load("s1").graph
    graph.turn = 9
    disk.save(graph)
    disk.write_state("s1", "counters", {"step": 5})
    assert replay.load("s1").graph.turn == 9
    assert replay.read_state("s1", "counters") == {"step": 5}


def test_replay_store_writes_a_sessions_audit_log_at_flush_or_when_read(tmp_path: Path) -> None:
    replay = ReplayStore(tmp_path / "r")
    replay.audit("s1").append({"type": "turn", "turn": 1})
    replay.audit("s1").append({"type": "turn", "turn": 2})
    disk = HotStore(tmp_path / "r")
    assert list(disk.audit("s1").records()) == []  # held: nothing written yet
    assert [r["turn"] for r in replay.audit("s1").records()] == [1, 2]  # a reader sees them
    assert [r["turn"] for r in disk.audit("s1").records()] == [1, 2]  # written, once
    replay.audit("s1").append({"type": "turn", "turn": 3})
    graph = replay.load("s1").graph
    graph.turn = 3
    replay.save(graph)
    replay.flush("s1")
    assert [r["turn"] for r in disk.audit("s1").records()] == [1, 2, 3]
    # The graph file holds the whole log: loading it replays no tail of records.
    assert disk.load("s1").tail == []


def test_hook_store_fsyncs_the_graph_and_the_replay_store_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    _use(HotStore(tmp_path / "d"))
    assert len(calls) == 2  # the graph file and its directory; the small state file none
    calls.clear()
    replay = ReplayStore(tmp_path / "r")
    _use(replay)
    replay.write_state("s1", "warm", {"flushed": 1}, durable=True)
    replay.flush("s1")
    assert calls == []  # a replay is run again, not recovered
    assert HotStore(tmp_path / "r").load("s1").graph.turn == 3
    assert HotStore(tmp_path / "r").read_state("s1", "warm") == {"flushed": 1}


@pytest.mark.parametrize("cls", [HotStore, ReplayStore])
def test_update_state_changes_in_place_or_takes_a_new_value(cls: type, tmp_path: Path) -> None:
    store = cls(tmp_path)
    default = {"turns": []}
    out = store.update_state("s1", "buf", lambda v: v["turns"].append(1), default)
    assert out == {"turns": [1]} and default == {"turns": []}  # the default is not changed
    store.update_state("s1", "buf", lambda v: v["turns"].append(2))
    assert store.read_state("s1", "buf") == {"turns": [1, 2]}
    # A value returned instead is stored as JSON gives it back (a tuple is a list)
    assert store.update_state("s1", "buf", lambda v: {"turns": (3,)}) == {"turns": [3]}
    assert store.peek_state("s1", "buf") == {"turns": [3]}
    assert store.peek_state("s1", "none", {"x": 1}) == {"x": 1}


def test_the_replay_stores_reads_are_copies_and_its_peeks_are_not(tmp_path: Path) -> None:
    store = ReplayStore(tmp_path)
    store.write_state("s1", "buf", {"turns": [1]})
    store.read_state("s1", "buf")["turns"].append(2)  # a copy: the held value stays
    assert store.peek_state("s1", "buf") == {"turns": [1]}
    assert store.peek_state("s1", "buf") is store.peek_state("s1", "buf")
    store.flush("s1")
    assert HotStore(tmp_path).read_state("s1", "buf") == {"turns": [1]}
