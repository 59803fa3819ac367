"""Pure properties of the merge rules and warm decay (no store)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rolling_graph.warm.merge import (
    MergeParams,
    days_to_floor,
    make_batch,
    merge_edge,
    merge_node,
    prepare_batch,
    staleness,
    warm_decay,
)
from rolling_graph.warm.records import HotEdge, HotNode

T0 = datetime(2025, 1, 1, tzinfo=UTC)
unit = st.floats(0.0, 1.0)
days = st.floats(0.0, 3650.0)
floors = st.sampled_from([0.0, 0.2])
modes = st.sampled_from(["max", "recency"])


@given(unit, days, floors)
def test_warm_decay_in_range_and_floored(w: float, d: float, floor: float) -> None:
    out = warm_decay(w, d, floor=floor)
    assert 0.0 <= out <= 1.0
    assert out >= floor
    assert out <= max(w, floor)


@given(unit, days, days, floors)
def test_warm_decay_monotone_in_time(w: float, d1: float, d2: float, floor: float) -> None:
    lo, hi = sorted((d1, d2))
    assert warm_decay(w, hi, floor=floor) <= warm_decay(w, lo, floor=floor)


@given(unit, unit, days)
def test_warm_decay_monotone_in_weight(w1: float, w2: float, d: float) -> None:
    lo, hi = sorted((w1, w2))
    assert warm_decay(lo, d) <= warm_decay(hi, d)


@given(unit)
def test_no_decay_at_zero_time(w: float) -> None:
    assert warm_decay(w, 0.0) == w
    assert staleness(0.0) == 0.0
    assert staleness(-5.0) == 0.0


@given(st.floats(0.21, 1.0))
def test_days_to_floor_consistent(w: float) -> None:
    d = days_to_floor(w, 0.2)
    assert d is not None and d > 0
    assert warm_decay(w, d, floor=0.0) == pytest.approx(0.2)
    assert days_to_floor(w, 0.0) is None


def hot_node(w: float, anchor: bool = False) -> HotNode:
    return HotNode("a", "A", "project", w, anchor=anchor)


@given(unit, st.booleans(), modes)
def test_new_node_penalty(w: float, anchor: bool, mode: str) -> None:
    params = MergeParams(mode=mode)  # type: ignore[arg-type]
    n = merge_node(None, hot_node(w, anchor), scope="", new_session=True, now=T0, params=params)
    assert n.weight == pytest.approx(max(w * 0.8, 0.2 if anchor else 0.0))
    assert n.sessions_seen == 1


@given(unit, unit, days, modes, st.booleans(), st.booleans())
def test_merge_in_range_and_floor(
    w1: float, w2: float, d: float, mode: str, anchor: bool, new_session: bool
) -> None:
    params = MergeParams(mode=mode)  # type: ignore[arg-type]
    first = merge_node(
        None, hot_node(w1, anchor), scope="", new_session=True, now=T0, params=params
    )
    later = T0 + timedelta(days=d)
    second = merge_node(
        first, hot_node(w2), scope="", new_session=new_session, now=later, params=params
    )
    assert 0.0 <= second.weight <= 1.0
    if anchor:
        assert second.weight >= 0.2 and second.anchor
    assert second.sessions_seen == (2 if new_session else 1)


@given(unit, unit, days)
def test_max_mode_never_below_either(w1: float, w2: float, d: float) -> None:
    first = merge_node(None, hot_node(w1), scope="", new_session=True, now=T0)
    later = T0 + timedelta(days=d)
    second = merge_node(first, hot_node(w2), scope="", new_session=True, now=later)
    assert second.weight >= max(w2, warm_decay(first.weight, d)) - 1e-12
    # the cross-session bonus
    base = max(w2, warm_decay(first.weight, d))
    assert second.weight == pytest.approx(base + 0.1 * (1 - base))


@given(unit, unit, days)
def test_recency_mean_between(w1: float, w2: float, d: float) -> None:
    params = MergeParams(mode="recency")
    first = merge_node(None, hot_node(w1), scope="", new_session=True, now=T0, params=params)
    # another session saw it, so no penalty; same-session merge so no bonus
    seen_twice = merge_node(first, hot_node(w1), scope="", new_session=True, now=T0, params=params)
    later = T0 + timedelta(days=d)
    out = merge_node(
        seen_twice, hot_node(w2), scope="", new_session=False, now=later, params=params
    )
    warm_now = warm_decay(seen_twice.weight, d)
    assert min(w2, warm_now) - 1e-12 <= out.weight <= max(w2, warm_now) + 1e-12


@given(unit, modes)
def test_same_session_reflush_counts_once(w: float, mode: str) -> None:
    params = MergeParams(mode=mode)  # type: ignore[arg-type]
    first = merge_node(None, hot_node(w), scope="", new_session=True, now=T0, params=params)
    again = merge_node(first, hot_node(w), scope="", new_session=False, now=T0, params=params)
    assert again.sessions_seen == 1
    assert again.weight == pytest.approx(first.weight)


@given(unit, unit, days, modes)
def test_supersedes_never_weakened(s1: float, s2: float, d: float, mode: str) -> None:
    params = MergeParams(mode=mode)  # type: ignore[arg-type]
    e = HotEdge("new", "supersedes", "old", s1)
    first = merge_edge(None, e, scope="", new_session=True, now=T0, params=params)
    later = T0 + timedelta(days=d)
    weak = HotEdge("new", "supersedes", "old", s2)
    second = merge_edge(first, weak, scope="", new_session=False, now=later, params=params)
    assert second.strength >= first.strength - 1e-12


def test_prepare_batch_sorts_and_normalizes() -> None:
    doc = {
        "session_id": "s",
        "turn": 3,
        "nodes": {
            "b": {
                "id": "b",
                "label": "B",
                "domain": "technical",
                "weight": 1.7,
                "aliases": ["y", "x", "x"],
            },
            "a": {"id": "a", "label": "A", "domain": "project", "weight": -1, "summary": "  "},
        },
        "edges": {
            "b|uses|a": {"source": "b", "target": "a", "relationship": "uses", "strength": 0.5}
        },
    }
    batch = prepare_batch(doc, flush_seq=2, now=T0)
    assert [n.id for n in batch.nodes] == ["a", "b"]
    assert (batch.nodes[0].weight, batch.nodes[0].summary) == (0.0, None)
    assert (batch.nodes[1].weight, batch.nodes[1].aliases) == (1.0, ("x", "y"))
    assert (batch.session_id, batch.flush_seq, batch.hot_turn) == ("s", 2, 3)
    with pytest.raises(ValueError):
        make_batch([], session_id="s", flush_seq=1, now=datetime(2025, 1, 1))
    with pytest.raises(ValueError):
        prepare_batch({"nodes": {}}, flush_seq=1, now=T0)
    with pytest.raises(ValueError):
        MergeParams(mode="mean")  # type: ignore[arg-type]
