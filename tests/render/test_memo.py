"""The remembered render: given back only while nothing the render reads has changed."""

from __future__ import annotations

import random

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.render.lod import render
from rolling_graph.render.memo import RenderMemo
from tests.helpers import random_graph

SRC = PatchSource(probe="test")
ARGS = (800, "", (), 5, 4, False, (), "")


def _render(graph: object) -> str:
    return render(graph, budget=800, breadth=False).text  # type: ignore[arg-type]


def _session(n: int = 60) -> HotSession:
    s = HotSession.in_memory("memo")
    s.graph = random_graph(n, seed=3, turn=20)
    s.graph.session_id = "memo"
    return s


def _step(s: HotSession, rnd: random.Random, i: int) -> None:
    """One thing a hook event can do to the graph (or nothing, as most tool events)."""
    ids = sorted(s.graph.nodes)
    what = rnd.choice(["nothing", "nothing", "decay", "turn", "activate", "add", "summary"])
    if what == "decay":
        s.decay()
    elif what == "turn":
        s.advance_turn()
    elif what == "activate":
        s.activate([rnd.choice(ids)], strengthen=rnd.random() < 0.5, why="mention")
    elif what == "add":
        value = {"label": f"Added thing {i}", "domain": "technical", "kind": "decision"}
        assert s.apply(
            [{"op": "add", "path": f"/nodes/added-{i}", "value": value, "reason": "r"}], SRC
        ).applied
    elif what == "summary":
        nid = rnd.choice(ids)
        op = {"op": "replace", "path": f"/nodes/{nid}/summary", "value": f"Now {i}", "reason": "r"}
        assert s.apply([op], SRC).applied


def test_the_memo_answers_only_what_a_render_now_would_give() -> None:
    rnd = random.Random(11)
    s = _session()
    memo = RenderMemo()
    hits = misses = 0
    for i in range(150):
        _step(s, rnd, i)
        got = memo.get(s.graph, ARGS)
        fresh = render(s.graph, budget=800, breadth=False)
        if got is None:
            misses += 1
            memo.put(s.graph, ARGS, fresh)
        else:
            hits += 1
            assert got.text == fresh.text and got.items == fresh.items, i
    assert hits > 20 and misses > 20  # both paths ran


def test_any_change_the_render_reads_is_a_miss() -> None:
    s = _session()
    memo = RenderMemo()
    first = render(s.graph, budget=800, breadth=False)
    memo.put(s.graph, ARGS, first)
    assert memo.get(s.graph, ARGS) is first
    assert memo.get(s.graph, (*ARGS[:1], "a prompt", *ARGS[2:])) is None  # other arguments
    other = random_graph(60, seed=3, turn=20)
    assert memo.get(other, ARGS) is None  # an equal graph, but another object
    s.decay()  # weights change in place: the same node objects
    assert memo.get(s.graph, ARGS) is None
    memo.put(s.graph, ARGS, first)
    s.advance_turn()
    assert memo.get(s.graph, ARGS) is None
    memo.put(s.graph, ARGS, first)
    nid = next(iter(s.graph.nodes))
    op = {"op": "replace", "path": f"/nodes/{nid}/label", "value": "Renamed", "reason": "r"}
    assert s.apply([op], SRC).applied
    assert memo.get(s.graph, ARGS) is None
    memo.put(s.graph, ARGS, first)
    node = next(iter(s.graph.nodes.values()))
    node.__dict__["weight"] /= 2  # as decay writes it: the same node object
    assert memo.get(s.graph, ARGS) is None
    memo.put(s.graph, ARGS, first)
    edge = next(iter(s.graph.edges.values()))
    edge.__dict__["strength"] /= 2  # as decay writes it
    assert memo.get(s.graph, ARGS) is None
