"""Decay (DESIGN §4): properties and the in-graph step."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rolling_graph.core.decay import DecayParams, decay_step, decayed, focus_cluster, hop_distances
from tests.helpers import graph_of, node

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
