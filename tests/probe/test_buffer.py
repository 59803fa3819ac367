"""The probe's buffer keeps the same turns whichever hot store holds it: the replay store
changes its value in place, the file store reads and writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.core.hotstore import HotStore, ReplayStore
from rolling_graph.probe.buffer import (
    BUFFER_STATE,
    MAX_TOOLS,
    advance_free_cursor,
    buffer_assistant,
    buffer_prompt,
    buffer_tool,
    consume_buffer,
    count_paid_call,
    peek_buffer,
)


def _session(store: object) -> dict:
    buffer_prompt(store, "s", 1, "add retries to the client")
    buffer_tool(store, "s", 1, "Edit client.py", ["client.py", "RetryPolicy"])
    buffer_tool(store, "s", 1, "Edit client.py", ["client.py"])  # the same line: kept once
    buffer_assistant(store, "s", 1, "Added RetryPolicy to client.py.")
    advance_free_cursor(store, "s", 1)
    assert count_paid_call(store, "s") == 1
    buffer_prompt(store, "s", 2, "now the tests")
    for i in range(MAX_TOOLS + 5):
        buffer_tool(store, "s", 2, f"Run pytest -k case{i}")
    consume_buffer(store, "s", 1)
    return store.read_state("s", BUFFER_STATE)


@pytest.mark.parametrize("cls", [HotStore, ReplayStore])
def test_the_buffer_is_the_same_in_either_store(cls: type, tmp_path: Path) -> None:
    got = _session(cls(tmp_path / cls.__name__))
    want = _session(HotStore(tmp_path / "reference"))
    assert got == want
    (turn,) = got["turns"]
    assert turn["turn"] == 2 and len(turn["tools"]) == MAX_TOOLS
    assert got["last_assistant"] == "Added RetryPolicy to client.py."
    assert got["free_seq"] == 1 and got["paid_calls"] == 1
    assert "RetryPolicy" in got["recent_names"]


def test_a_read_of_the_replay_stores_buffer_does_not_change_what_it_holds(tmp_path: Path) -> None:
    store = ReplayStore(tmp_path)
    buffer_prompt(store, "s", 1, "add retries")
    store.read_state("s", BUFFER_STATE)["turns"].clear()  # a copy
    assert peek_buffer(store, "s")["turns"][0]["user"] == "add retries"


def test_a_damaged_buffer_starts_again(tmp_path: Path) -> None:
    store = ReplayStore(tmp_path)
    store.write_state("s", BUFFER_STATE, {"turns": "not a list"})
    buffer_prompt(store, "s", 3, "hello")
    assert [t["user"] for t in peek_buffer(store, "s")["turns"]] == ["hello"]
