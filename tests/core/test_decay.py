"""Decay (DESIGN §4): properties and the in-graph step."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.core.decay import (
    DecayParams,
    decay_step,
    decayed,
    focus_cluster,
    hop_distances,
    staleness,
)
from rolling_graph.core.model import ANCHOR_FLOOR, HotGraph
from tests.helpers import graph_of, node, random_graph

P = DecayParams(rate=0.5, tau=8.0, d_max=4, focus_size=3)
w_ = st.floats(0.0, 1.0)
d_ = st.integers(0, 10)
dt_ = st.floats(0.0, 1000.0)


@given(w_, dt_)
def test_no_decay_in_focus(w: float, dt: float) -> None:
    assert decayed(w, 0, dt, P) == w


@given(w_, d_)
def test_no_decay_at_zero_staleness(w: float, d: int) -> None:
    assert decayed(w, d, 0.0, P) == w


@given(w_, d_, d_, dt_)
def test_monotone_in_distance(w: float, d1: int, d2: int, dt: float) -> None:
    near, far = sorted((d1, d2))
    assert decayed(w, far, dt, P) <= decayed(w, near, dt, P)


@given(w_, d_, dt_, dt_)
def test_monotone_in_staleness(w: float, d: int, t1: float, t2: float) -> None:
    fresh, stale = sorted((t1, t2))
    assert decayed(w, d, stale, P) <= decayed(w, d, fresh, P)


@given(st.floats(0.2, 1.0), d_, dt_, st.integers(1, 50))
def test_anchor_never_below_floor(w: float, d: int, dt: float, steps: int) -> None:
    for _ in range(steps):
        w = decayed(w, d, dt, P, floor=0.2)
    assert w >= 0.2


@given(w_, d_, dt_, st.floats(0.0, 1.0), st.floats(0.1, 100.0))
def test_weights_stay_in_unit_interval(
    w: float, d: int, dt: float, rate: float, tau: float
) -> None:
    out = decayed(w, d, dt, DecayParams(rate=rate, tau=tau))
    assert 0.0 <= out <= 1.0


def test_step_uses_graph_distance_and_spares_focus() -> None:
    # chain a - b - c - d - e, plus an isolated node z; a, b, c are the focus (active at turn 10)
    nodes = [
        node("a", turn=10),
        node("b", turn=10),
        node("c", turn=10),
        node("d", turn=2),
        node("e", turn=2),
        node("z", turn=2, anchor=True, weight=0.21),
    ]
    g = graph_of(
        nodes,
        [("a", "uses", "b"), ("b", "uses", "c"), ("c", "uses", "d"), ("d", "uses", "e")],
        turn=10,
    )
    assert focus_cluster(g, 3) == ["a", "b", "c"]
    assert hop_distances(g, ["a", "b", "c"], 4) == {"a": 0, "b": 0, "c": 0, "d": 1, "e": 2}
    decay_step(g, P)
    assert [g.nodes[x].weight for x in "abc"] == [0.5, 0.5, 0.5]
    assert g.nodes["e"].weight < g.nodes["d"].weight < 0.5
    assert g.nodes["z"].weight == 0.2  # unreachable counts as d_max, floored as an anchor


def test_superseded_nodes_are_not_focus() -> None:
    g = graph_of(
        [node("use-bento", turn=5), node("use-resend", turn=5), node("other", turn=1)],
        [("use-bento", "supersedes", "use-resend")],
        turn=5,
    )
    assert "use-resend" not in focus_cluster(g, 5)


def _plain_decay(g, params: DecayParams) -> tuple[int, int]:
    """The per-node, per-edge loop decay_step replaced, as the reference."""
    dist = hop_distances(g, focus_cluster(g, params.focus_size), params.d_max)
    now, d_max, nodes_changed, edges_changed = g.turn, params.d_max, 0, 0
    for nid, n in g.nodes.items():
        d = dist.get(nid, d_max)
        if n.last_activated >= now or n.weight == 0.0 or d == 0:
            continue
        new = n.weight * (
            1.0
            - params.rate * (min(d, d_max) / d_max) * staleness(now - n.last_activated, params.tau)
        )
        if n.anchor and new < ANCHOR_FLOOR:
            new = ANCHOR_FLOOR
        if new != n.weight:
            n.__dict__["weight"], nodes_changed = new, nodes_changed + 1
    for e in g.edges.values():
        d = min(dist.get(e.source, d_max), dist.get(e.target, d_max))
        if e.strength == 0.0 or e.last_activated >= now or d == 0:
            continue
        new = e.strength * (
            1.0
            - params.rate * (min(d, d_max) / d_max) * staleness(now - e.last_activated, params.tau)
        )
        if new != e.strength:
            e.__dict__["strength"], edges_changed = new, edges_changed + 1
    return nodes_changed, edges_changed


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 40),
    st.integers(0, 10_000),
    st.floats(0.0, 1.0),
    st.sampled_from([0.0, 0.2, 0.5]),
    st.integers(1, 5),
)
def test_decay_step_equals_the_plain_loop(
    n: int, seed: int, rate: float, zero_share: float, d_max: int
) -> None:
    g = random_graph(n, seed=seed, turn=20)
    rnd = random.Random(seed)
    for i, nd in enumerate(g.nodes.values()):
        if i % 4 == 0:
            nd.__dict__.update(anchor=True, weight=max(nd.weight, ANCHOR_FLOOR))
        elif rnd.random() < zero_share:
            nd.__dict__["weight"] = 0.0
        if rnd.random() < 0.1:
            nd.__dict__["last_activated"] = 25  # activated after "now"
    g.turn = 21
    plain = HotGraph.model_validate(g.to_json_dict())
    params = DecayParams(rate=rate, d_max=d_max)
    report = decay_step(g, params)
    assert (report.changed_nodes, report.changed_edges) == _plain_decay(plain, params)
    # Byte for byte, as the hot store writes it (-0.0 and 0.0 differ there).
    assert json.dumps(g.to_json_dict()) == json.dumps(plain.to_json_dict())
