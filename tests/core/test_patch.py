"""Patch engine: validation, normalization, all-or-nothing application, audit."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolling_graph.core.audit import AuditLog
from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import Limits, PatchSource, apply_patch
from rolling_graph.core.weights import strengthen, weaken
from tests.helpers import graph_of, node

SRC = PatchSource(probe="test", prompt_id="probe.v1", prompt_hash="abc")


def base_graph() -> HotGraph:
    return graph_of(
        [node("redis", turn=1), node("cache-layer", "project", 0.6, turn=1)],
        [("cache-layer", "uses", "redis")],
        turn=2,
    )


def snapshot(g: HotGraph) -> bytes:
    return json.dumps(g.to_json_dict(), sort_keys=True).encode()


BAD_PATCHES = {
    "unknown path": (
        [{"op": "add", "path": "/settings/x", "value": 1, "reason": "r"}],
        "unknown path",
    ),
    "top-level path": (
        [{"op": "replace", "path": "/turn", "value": 9, "reason": "r"}],
        "unknown path",
    ),
    "remove of a node": (
        [{"op": "remove", "path": "/nodes/redis", "reason": "r"}],
        "remove is not allowed",
    ),
    "wrong type": (
        [{"op": "replace", "path": "/nodes/redis/label", "value": 42, "reason": "r"}],
        "label must be a non-empty string",
    ),
    "weight outside [0,1]": (
        [{"op": "replace", "path": "/nodes/redis/weight", "value": 1.5, "reason": "r"}],
        "outside [0, 1]",
    ),
    "unknown domain": (
        [
            {
                "op": "add",
                "path": "/nodes/x",
                "value": {"label": "X", "domain": "finance"},
                "reason": "r",
            }
        ],
        "unknown domain",
    ),
    "unknown relationship": (
        [
            {
                "op": "add",
                "path": "/edges/redis|loves|cache-layer",
                "value": {"source": "redis", "target": "cache-layer", "relationship": "loves"},
                "reason": "r",
            }
        ],
        "unknown relationship",
    ),
    "edge to a missing node": (
        [
            {
                "op": "add",
                "path": "/edges/redis|uses|ghost",
                "value": {"source": "redis", "target": "ghost", "relationship": "uses"},
                "reason": "r",
            }
        ],
        "missing node 'ghost'",
    ),
    "oversized patch": (
        [{"op": "replace", "path": "/nodes/redis/weight", "value": "strengthen", "reason": "r"}]
        * 65,
        "over the limit of 64",
    ),
    "malformed JSON": ('[{"op": "add", "path": "/nodes/x", ', "malformed JSON"),
    "not a slug": (
        [
            {
                "op": "add",
                "path": "/nodes/Bad Id",
                "value": {"label": "B", "domain": "project"},
                "reason": "r",
            }
        ],
        "not a slug",
    ),
    "missing reason": (
        [{"op": "replace", "path": "/nodes/redis/weight", "value": "weaken"}],
        "reason",
    ),
    "engine-owned field": (
        [{"op": "replace", "path": "/nodes/redis/last_activated", "value": 9, "reason": "r"}],
        "not writable",
    ),
    "oversized label": (
        [{"op": "replace", "path": "/nodes/redis/label", "value": "x" * 81, "reason": "r"}],
        "over 80",
    ),
    "oversized summary": (
        [{"op": "replace", "path": "/nodes/redis/summary", "value": "y" * 201, "reason": "r"}],
        "over 200",
    ),
    "move op": (
        [{"op": "move", "from": "/nodes/redis", "path": "/nodes/x", "reason": "r"}],
        "not allowed",
    ),
    "edge key mismatch": (
        [
            {
                "op": "add",
                "path": "/edges/redis|uses|cache-layer",
                "value": {"source": "cache-layer", "target": "redis", "relationship": "uses"},
                "reason": "r",
            }
        ],
        "does not match its key",
    ),
    "not an array": ('{"op": "add"}', "unknown top-level keys"),
}


@pytest.mark.parametrize("name", sorted(BAD_PATCHES))
def test_bad_patch_is_rejected_whole_and_graph_is_byte_identical(name: str, tmp_path) -> None:
    raw, message = BAD_PATCHES[name]
    g = base_graph()
    # A valid op first: the later bad op must undo it too (all-or-nothing).
    if isinstance(raw, list):
        raw = [
            {"op": "replace", "path": "/nodes/redis/summary", "value": "changed", "reason": "r"},
            *raw,
        ]
    before = snapshot(g)
    audit = AuditLog(tmp_path / "audit.jsonl")
    result = apply_patch(g, raw, source=SRC, audit=audit)
    assert not result.applied
    assert message in (result.error or ""), result.error
    assert snapshot(g) == before
    [record] = list(audit.records())
    assert record["status"] == "rejected" and message in record["error"]
    assert record["source"] == {"probe": "test", "prompt_id": "probe.v1", "prompt_hash": "abc"}


def test_valid_patch_is_normalized_applied_and_audited(tmp_path) -> None:
    g = base_graph()
    audit = AuditLog(tmp_path / "audit.jsonl")
    raw = {
        "rationale": "the person chose Postgres for sessions",
        "ops": [
            {
                "op": "add",
                "path": "/nodes/postgres",
                "value": {
                    "label": "Postgres",
                    "domain": "technical",
                    "weight": 0.99,
                    "aliases": ["pg"],
                },
                "reason": "new store",
            },
            {
                "op": "add",
                "path": "/edges/cache-layer|uses|postgres",
                "value": {
                    "source": "cache-layer",
                    "target": "postgres",
                    "relationship": "uses",
                    "strength": 0.1,
                },
                "reason": "co-mention",
            },
            {
                "op": "replace",
                "path": "/nodes/redis/weight",
                "value": "weaken",
                "reason": "dropped",
            },
        ],
    }
    result = apply_patch(g, raw, source=SRC, audit=audit)
    assert result.applied, result.error
    # The engine decides amounts: a new node starts at the default, whatever the probe asked.
    assert g.nodes["postgres"].weight == 0.5
    assert g.nodes["redis"].weight == weaken(0.5)
    assert g.edges["cache-layer|uses|postgres"].strength == 0.5
    assert g.nodes["postgres"].last_activated == 2 and g.nodes["cache-layer"].last_activated == 2
    [record] = list(audit.records())
    assert record["status"] == "applied"
    assert record["raw"] == raw
    assert record["reasons"] == ["new store", "co-mention", "dropped"]
    assert record["rationale"] == "the person chose Postgres for sessions"
    assert {"op": "replace", "path": "/nodes/redis/weight", "value": weaken(0.5)} in record[
        "applied"
    ]


def test_numbers_are_directions_not_amounts() -> None:
    g = base_graph()
    apply_patch(
        g,
        [{"op": "replace", "path": "/nodes/redis/weight", "value": 1.0, "reason": "important"}],
        source=SRC,
    )
    assert g.nodes["redis"].weight == strengthen(0.5)
    apply_patch(
        g,
        [
            {
                "op": "replace",
                "path": "/nodes/redis/weight",
                "value": g.nodes["redis"].weight,
                "reason": "same",
            }
        ],
        source=SRC,
    )
    assert g.nodes["redis"].weight == strengthen(0.5)


def test_add_of_existing_node_updates_and_strengthens() -> None:
    g = base_graph()
    r = apply_patch(
        g,
        [
            {
                "op": "add",
                "path": "/nodes/redis",
                "value": {"label": "Redis", "domain": "technical", "aliases": ["redis-server"]},
                "reason": "again",
            }
        ],
        source=SRC,
    )
    assert r.applied, r.error
    assert g.nodes["redis"].weight == strengthen(0.5)
    assert g.nodes["redis"].aliases == ["redis-server"]


def test_a_node_added_twice_in_one_patch_takes_the_second_adds_new_fields() -> None:
    """A probe may name a new node twice, the second time with more (a summary, a kind, attrs):
    that is one node with both, not an exception (the fields were written as replace ops on
    a node that did not have them yet)."""
    g = HotGraph(session_id="s")
    first = {"label": "Retry budget", "domain": "technical"}
    second = {**first, "summary": "three tries", "kind": "decision", "attrs": {"owner": "Ana"}}
    ops = [
        {"op": "add", "path": "/nodes/retry-budget", "value": v, "reason": r}
        for v, r in ((first, "named"), (second, "named again, with more"))
    ]
    r = apply_patch(g, ops, source=SRC)
    assert r.applied, r.error
    n = g.nodes["retry-budget"]
    assert (n.summary, n.kind, n.attrs) == ("three tries", "decision", {"owner": "Ana"})
    assert n.weight == strengthen(0.5)  # seen again: strengthened once


def test_anchor_never_weakened_below_floor() -> None:
    g = graph_of([node("style-guide", "project", 0.21, anchor=True)])
    for _ in range(5):
        apply_patch(
            g,
            [
                {
                    "op": "replace",
                    "path": "/nodes/style-guide/weight",
                    "value": "weaken",
                    "reason": "r",
                }
            ],
            source=SRC,
        )
    assert g.nodes["style-guide"].weight == 0.2


def test_node_limit_is_enforced() -> None:
    g = graph_of([node("a"), node("b")])
    r = apply_patch(
        g,
        [
            {
                "op": "add",
                "path": "/nodes/c",
                "value": {"label": "C", "domain": "project"},
                "reason": "r",
            }
        ],
        source=SRC,
        limits=Limits(max_nodes=2),
    )
    assert not r.applied and "limit of 2 nodes" in (r.error or "")


def test_configured_relationship_is_accepted() -> None:
    g = base_graph()
    op = [
        {
            "op": "add",
            "path": "/edges/redis|owns|cache-layer",
            "value": {"source": "redis", "target": "cache-layer", "relationship": "owns"},
            "reason": "r",
        }
    ]
    assert not apply_patch(g, op, source=SRC).applied
    limits = Limits(relationships=Limits().relationships | {"owns"})
    assert apply_patch(g, op, source=SRC, limits=limits).applied


# -- property test: random patches leave the graph validly changed or unchanged ---------------

_ids = st.sampled_from(["redis", "cache-layer", "new-node", "Bad", "x", "ghost"])
_vals = st.one_of(
    st.none(),
    st.integers(-2, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["strengthen", "weaken", "project", "technical", "uses", "supersedes"]),
    st.fixed_dictionaries(
        {"label": st.text(max_size=90), "domain": st.sampled_from(["project", "technical", "nope"])}
    ),
    st.lists(st.text(max_size=5), max_size=3),
)
_fields = st.sampled_from(
    [
        "",
        "/weight",
        "/label",
        "/domain",
        "/summary",
        "/aliases",
        "/aliases/-",
        "/kind",
        "/last_activated",
        "/id",
        "/strength",
    ]
)


@st.composite
def _op(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["add", "replace", "remove", "test", "copy"]))
    if draw(st.booleans()):
        path = f"/nodes/{draw(_ids)}{draw(_fields)}"
    else:
        rel = draw(st.sampled_from(["uses", "supersedes", "bogus"]))
        path = f"/edges/{draw(_ids)}|{rel}|{draw(_ids)}{draw(st.sampled_from(['', '/strength', '/relationship']))}"
    op = {"op": kind, "path": path, "reason": draw(st.sampled_from(["r", "", None]))}
    if draw(st.booleans()):
        op["value"] = draw(_vals)
    return {k: v for k, v in op.items() if v is not None}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_op(), max_size=6))
def test_random_patches_change_validly_or_not_at_all(ops: list[dict]) -> None:
    g = base_graph()
    before = snapshot(g)
    result = apply_patch(g, ops, source=SRC)
    if result.applied:
        # The result is a valid graph document: it round-trips through the model.
        HotGraph.model_validate(json.loads(snapshot(g)))
    else:
        assert snapshot(g) == before
