"""core.patch.ops against the reference library: random documents and random add, replace
and remove ops (valid and not), applied by both; the same document, or both refuse."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import jsonpointer
import pytest

from rolling_graph.core.patch.checks import PatchRejected
from rolling_graph.core.patch.ops import PatchConflict, apply_ops

KEYS = ["a", "b", "n/1", "t~x", "0", "weight", "aliases", ""]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.25:
        return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 2 and roll < 0.4:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice([0, 1.5, "x", None, True, "~1"])


def _paths(doc: Any, prefix: str = "") -> list[str]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, f"{prefix}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, f"{prefix}/{i}")
    return out


def _op(rng: random.Random, doc: Any) -> dict[str, Any]:
    kind = rng.choice(["add", "replace", "remove"])
    paths = _paths(doc) or ["/a"]
    path = rng.choice(paths)
    roll = rng.random()
    if roll < 0.2:  # a new member, an append, or an index past the end
        path = path + "/" + rng.choice(["-", "7", "01", rng.choice(KEYS)])
    elif roll < 0.3:
        path = "/" + rng.choice(KEYS) + "/" + rng.choice(KEYS)
    op: dict[str, Any] = {"op": kind, "path": path}
    if kind != "remove":
        op["value"] = _value(rng)
    return op


def _reference(doc: Any, ops: list[dict[str, Any]]) -> Any:
    try:
        return jsonpatch.JsonPatch(copy.deepcopy(ops)).apply(copy.deepcopy(doc))
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
        return PatchRejected


def _ours(doc: Any, ops: list[dict[str, Any]]) -> Any:
    mine = copy.deepcopy(doc)
    try:
        apply_ops(mine, copy.deepcopy(ops))
    except PatchConflict:
        return PatchRejected
    return mine


@pytest.mark.parametrize("seed", range(40))
def test_the_same_result_as_the_reference_library(seed: int) -> None:
    rng = random.Random(seed)
    agreed = applied = 0
    for _ in range(50):
        doc = {k: _value(rng) for k in rng.sample(KEYS, rng.randint(1, 4))}
        ops = [_op(rng, doc) for _ in range(rng.randint(1, 4))]
        want, got = _reference(doc, ops), _ours(doc, ops)
        assert got == want, (doc, ops, got, want)
        agreed += 1
        applied += want is not PatchRejected
    assert agreed == 50 and 0 < applied < 50  # both kinds of case were met


def test_a_value_added_is_a_copy_of_the_ops() -> None:
    ops = [{"op": "add", "path": "/n", "value": {"aliases": []}}]
    doc: dict[str, Any] = {}
    apply_ops(doc, ops)
    apply_ops(doc, [{"op": "add", "path": "/n/aliases/-", "value": "x"}])
    assert ops[0]["value"] == {"aliases": []}  # the audit log's ops are not changed
    assert doc == {"n": {"aliases": ["x"]}}


def test_an_op_that_cannot_apply_is_a_rejected_patch() -> None:
    with pytest.raises(PatchRejected, match="no member"):
        apply_ops({"nodes": {}}, [{"op": "replace", "path": "/nodes/x/weight", "value": 1}])
    with pytest.raises(PatchRejected, match="not one of"):
        apply_ops({}, [{"op": "move", "path": "/a", "from": "/b"}])
