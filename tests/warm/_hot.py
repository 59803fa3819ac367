"""Helpers for the reconciliation tests: hot sessions built through the patch engine."""

from __future__ import annotations

from typing import Any

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource, apply_normalized
from rolling_graph.core.session import HotSession

SRC = PatchSource("test")


def node_op(nid: str, weight: float = 0.9, **extra: Any) -> dict[str, Any]:
    value = {
        "id": nid,
        "label": extra.pop("label", nid.replace("-", " ").title()),
        "domain": extra.pop("domain", "project"),
        "weight": weight,
        **extra,
    }
    return {"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": "test"}


def edge_op(s: str, rel: str, t: str, strength: float = 0.8) -> dict[str, Any]:
    return {
        "op": "add",
        "path": f"/edges/{s}|{rel}|{t}",
        "value": {"source": s, "target": t, "relationship": rel, "strength": strength},
        "reason": "test",
    }


def add(sess: HotSession, ops: list[dict[str, Any]]) -> None:
    result = sess.apply({"ops": ops}, SRC)
    assert result.applied, result.error


def hot_session(store: HotStore, sid: str, ops: list[dict[str, Any]]) -> HotSession:
    """A saved hot session with these ops applied, then its weights and strengths set to the
    values the ops name (the patch engine gives every new node 0.5; a real session gets other
    weights by strengthening over several turns)."""
    with store.lock(sid):
        sess = HotSession.open(store, sid)
        if ops:
            add(sess, ops)
            exact = [
                {"op": "replace", "path": f"{op['path']}/{key}", "value": op["value"][key]}
                for op in ops
                for key in ("weight", "strength")
                if key in op["value"]
            ]
            apply_normalized(sess.graph, exact)
            sess.log_event(
                {
                    "type": "patch",
                    "status": "applied",
                    "turn": 0,
                    "source": {"probe": "test"},
                    "applied": exact,
                }
            )
        sess.save()
    return sess


def triangle(prefix: str = "") -> list[dict[str, Any]]:
    """Three linked nodes: a node with two neighbours (graduation needs ≥ 2 edges)."""
    a, b, c = f"{prefix}alpha", f"{prefix}beta", f"{prefix}gamma"
    return [
        node_op(a, 0.9, summary="The alpha service"),
        node_op(b, 0.9),
        node_op(c, 0.9),
        edge_op(a, "uses", b),
        edge_op(a, "depends-on", c),
    ]
