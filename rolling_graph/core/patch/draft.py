"""Normalization: a probe's ops become absolute ops on copies of the entities they touch (a
:class:`Draft`). Directions ("strengthen", "weaken") turn into values decided by
:mod:`rolling_graph.core.weights`; touched nodes and edges are activated at the current turn."""

from __future__ import annotations

import json
from typing import Any

from rolling_graph.core import weights
from rolling_graph.core.json_values import json_copy
from rolling_graph.core.model import ANCHOR_FLOOR, MAX_ALIASES, HotGraph
from rolling_graph.core.patch.checks import (
    EDGE_FIELDS_WRITABLE,
    NODE_FIELDS_WRITABLE,
    Limits,
    PatchRejected,
    check_attrs,
    check_direction,
    check_field,
    check_reason,
    escape,
    merge_attrs,
    parse_patch,
    split_path,
)
from rolling_graph.core.patch.history import retire_contradicted
from rolling_graph.core.slug import is_slug


class Draft:
    """Copies of the entities a patch touches; the live graph is not modified until commit."""

    def __init__(self, graph: HotGraph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[str, dict[str, Any]] = {}
        self.new_nodes: list[str] = []
        self.new_edges: list[str] = []
        self.removed: list[str] = []  # supersedes edges a newer one overrules (patch.history)
        self.ops: list[dict[str, Any]] = []
        self.reasons: list[str] = []
        self.activated: set[str] = set()
        self.rationale: str | None = None

    # -- lookups that see the draft first, then the live graph
    def node(self, nid: str) -> dict[str, Any] | None:
        if nid in self.nodes:
            return self.nodes[nid]
        live = self.graph.nodes.get(nid)
        if live is None:
            return None
        self.nodes[nid] = live.model_dump()
        return self.nodes[nid]

    def edge(self, key: str) -> dict[str, Any] | None:
        if key in self.edges:
            return self.edges[key]
        live = self.graph.edges.get(key)
        if live is None:
            return None
        self.edges[key] = live.model_dump()
        return self.edges[key]

    def emit(self, op: str, path: str, value: Any) -> None:
        self.ops.append({"op": op, "path": path, "value": json_copy(value)})


def _add_node(draft: Draft, nid: str, value: Any, i: int) -> None:
    if not isinstance(value, dict):
        raise PatchRejected(f"op {i}: the value of a node must be an object")
    unknown = set(value) - NODE_FIELDS_WRITABLE
    if unknown:
        raise PatchRejected(f"op {i}: unknown or engine-owned node fields {sorted(unknown)}")
    if value.get("id", nid) != nid:
        raise PatchRejected(
            f"op {i}: node id {value.get('id')!r} does not match its path id {nid!r}"
        )
    turn = draft.graph.turn
    existing = draft.node(nid)
    if existing is None:
        for required in ("label", "domain"):
            if required not in value:
                raise PatchRejected(f"op {i}: a new node needs {required!r}")
        fields = {k: check_field(k, v, i) for k, v in value.items() if k not in ("id", "weight")}
        if "weight" in value:
            check_direction(value["weight"], i, "weight")  # validated; the amount is the engine's
        if len(draft.graph.nodes) + len(draft.new_nodes) + 1 > draft.limits.max_nodes:
            raise PatchRejected(
                f"op {i}: the graph is at its limit of {draft.limits.max_nodes} nodes"
            )
        node = {
            "id": nid,
            "label": fields["label"],
            "domain": fields["domain"],
            "weight": weights.initial_node_weight(fields.get("kind")),
            "last_activated": turn,
            "aliases": fields.get("aliases", []),
            "anchor": False,
        }
        for opt in ("summary", "kind"):
            if opt in fields and fields[opt] != "":
                node[opt] = fields[opt]
        attrs = merge_attrs(None, fields.get("attrs", {}), i)
        if attrs:
            node["attrs"] = attrs
        draft.nodes[nid] = node
        draft.new_nodes.append(nid)
        draft.emit("add", f"/nodes/{nid}", node)
        return
    # Adding a node that exists updates it: the probe saw it again, which is a strengthening.
    for name, raw in value.items():
        if name in ("id", "weight"):
            continue
        new = check_field(name, raw, i)
        if name == "aliases":
            new = list(dict.fromkeys([*existing.get("aliases", []), *new]))[:MAX_ALIASES]
        if name == "attrs":
            new = merge_attrs(existing.get("attrs"), new, i)
        _set_field(draft, existing, nid, name, new)
    _steer_node(draft, nid, value.get("weight", "strengthen"), i)


def _steer_node(draft: Draft, nid: str, requested: Any, i: int) -> None:
    node = draft.node(nid)
    assert node is not None
    direction = check_direction(requested, i, "weight")
    floor = ANCHOR_FLOOR if node.get("anchor") else 0.0
    new = weights.steer(node["weight"], direction, floor)
    if new != node["weight"]:
        node["weight"] = new
        draft.emit("replace", f"/nodes/{nid}/weight", new)


def _node_op(draft: Draft, op: dict[str, Any], parts: list[str], i: int) -> None:
    nid = parts[1]
    if not is_slug(nid):
        raise PatchRejected(
            f"op {i}: node id {nid!r} is not a slug (lower-case letters, digits, hyphens)"
        )
    kind = op["op"]
    if len(parts) == 2:
        _add_node(draft, nid, op.get("value"), i)
        draft.activated.add(nid)
        return
    node = draft.node(nid)
    if node is None:
        raise PatchRejected(f"op {i}: node {nid!r} does not exist")
    name = parts[2]
    if name == "aliases" and len(parts) == 4 and parts[3] == "-" and kind == "add":
        alias = check_field("aliases", [op.get("value")], i)[0]
        if alias not in node["aliases"]:
            if len(node["aliases"]) >= MAX_ALIASES:
                raise PatchRejected(f"op {i}: node {nid!r} already has {MAX_ALIASES} aliases")
            node["aliases"].append(alias)
            draft.emit("add", f"/nodes/{nid}/aliases/-", alias)
        draft.activated.add(nid)
        return
    if name == "attrs" and len(parts) == 4 and kind in ("add", "replace"):
        one = check_attrs({parts[3]: op.get("value")}, i)
        _set_field(draft, node, nid, "attrs", merge_attrs(node.get("attrs"), one, i))
        draft.activated.add(nid)
        return
    if len(parts) != 3:
        raise PatchRejected(f"op {i}: unknown path {op['path']!r}")
    if name not in NODE_FIELDS_WRITABLE or name == "id":
        raise PatchRejected(f"op {i}: field {name!r} of a node is not writable by a probe")
    if "value" not in op:
        raise PatchRejected(f"op {i}: {kind} needs a value")
    if name == "weight":
        _steer_node(draft, nid, op["value"], i)
    else:
        new = check_field(name, op["value"], i)
        if name == "attrs":
            new = merge_attrs(node.get("attrs"), new, i)
        _set_field(draft, node, nid, name, new)
    draft.activated.add(nid)


def _set_field(draft: Draft, node: dict[str, Any], nid: str, name: str, new: Any) -> None:
    # Live nodes are drafted from a full model dump, so every field's key exists: replace
    # works, and ``None`` clears an optional field. A node added earlier in the same patch
    # holds only the fields it was given: a new one is an add.
    if node.get(name) == new:
        return
    op = "replace" if name in node else "add"
    node[name] = new
    draft.emit(op, f"/nodes/{nid}/{name}", new)


def _edge_op(draft: Draft, op: dict[str, Any], parts: list[str], i: int) -> None:
    key = parts[1]
    bits = key.split("|")
    if len(bits) != 3:
        raise PatchRejected(f"op {i}: edge key {key!r} must be 'source|relationship|target'")
    source, rel, target = bits
    if rel not in draft.limits.relationships:
        raise PatchRejected(
            f"op {i}: unknown relationship {rel!r}; one of {', '.join(sorted(draft.limits.relationships))}"
        )
    for end in (source, target):
        if not is_slug(end):
            raise PatchRejected(f"op {i}: edge end {end!r} is not a slug")
        if draft.node(end) is None:
            raise PatchRejected(f"op {i}: edge {key!r} points at missing node {end!r}")
    if source == target:
        raise PatchRejected(f"op {i}: an edge cannot join {source!r} to itself")
    turn = draft.graph.turn
    edge = draft.edge(key)
    if len(parts) == 2:
        value = op.get("value")
        if not isinstance(value, dict):
            raise PatchRejected(f"op {i}: the value of an edge must be an object")
        unknown = set(value) - EDGE_FIELDS_WRITABLE
        if unknown:
            raise PatchRejected(f"op {i}: unknown or engine-owned edge fields {sorted(unknown)}")
        for name, expected in (("source", source), ("relationship", rel), ("target", target)):
            if value.get(name, expected) != expected:
                raise PatchRejected(
                    f"op {i}: edge {name} {value.get(name)!r} does not match its key {key!r}"
                )
        requested = (
            check_direction(value["strength"], i, "strength")
            if "strength" in value
            else "strengthen"
        )
        if edge is None:
            if len(draft.graph.edges) + len(draft.new_edges) + 1 > draft.limits.max_edges:
                raise PatchRejected(
                    f"op {i}: the graph is at its limit of {draft.limits.max_edges} edges"
                )
            edge = {
                "source": source,
                "target": target,
                "relationship": rel,
                "strength": weights.initial_edge_strength(rel),
                "last_activated": turn,
            }
            draft.edges[key] = edge
            draft.new_edges.append(key)
            draft.emit("add", f"/edges/{escape(key)}", edge)
            if rel == "supersedes":
                # Retirement is by weakening: the superseded node loses weight once, deterministically.
                _steer_node(draft, target, "weaken", i)
        else:
            _steer_edge(draft, key, requested)
    else:
        if edge is None:
            raise PatchRejected(f"op {i}: edge {key!r} does not exist")
        if len(parts) != 3 or parts[2] != "strength":
            raise PatchRejected(
                f"op {i}: only /edges/<key>/strength can be replaced, not {op['path']!r}"
            )
        if "value" not in op:
            raise PatchRejected(f"op {i}: {op['op']} needs a value")
        _steer_edge(draft, key, check_direction(op["value"], i, "strength"))
    draft.activated.update((source, target))


def _steer_edge(draft: Draft, key: str, requested: str | float) -> None:
    edge = draft.edges[key]
    new = weights.steer(edge["strength"], requested)
    if new != edge["strength"]:
        edge["strength"] = new
        draft.emit("replace", f"/edges/{escape(key)}/strength", new)


def _activate(draft: Draft) -> None:
    turn = draft.graph.turn
    for nid in sorted(draft.activated):
        node = draft.node(nid)
        if node is not None and node["last_activated"] != turn:
            node["last_activated"] = turn
            draft.emit("replace", f"/nodes/{nid}/last_activated", turn)
    for key in sorted(draft.edges):
        edge = draft.edges[key]
        if edge["last_activated"] != turn and any(
            o["path"].startswith(f"/edges/{escape(key)}") for o in draft.ops
        ):
            edge["last_activated"] = turn
            draft.emit("replace", f"/edges/{escape(key)}/last_activated", turn)


def touch_order(draft: Draft) -> list[str]:
    """Node ids in the order the patch's ops touch them (the last touch counts)."""
    order: dict[str, None] = {}
    for op in draft.ops:
        parts = op["path"].split("/")
        if len(parts) > 2 and parts[1] == "nodes" and parts[-1] != "last_activated":
            order.pop(parts[2], None)
            order[parts[2]] = None
    return list(order)


def validate_patch(graph: HotGraph, raw: Any, limits: Limits | None = None) -> Draft:
    """Check every op and build the normalized ops; raises :class:`PatchRejected`."""
    limits = limits or Limits()
    ops, rationale = parse_patch(raw)
    if len(ops) > limits.max_ops:
        raise PatchRejected(f"patch has {len(ops)} ops, over the limit of {limits.max_ops}")
    if len(json.dumps(ops, default=str)) > limits.max_bytes:
        raise PatchRejected(f"patch is over {limits.max_bytes} bytes")
    draft = Draft(graph, limits)
    for i, op in enumerate(ops):
        if not isinstance(op, dict):
            raise PatchRejected(f"op {i}: an operation must be an object")
        kind = op.get("op")
        if kind == "remove":
            raise PatchRejected(
                f"op {i}: remove is not allowed; retire a node by weakening it and a supersedes edge"
            )
        if kind not in ("add", "replace"):
            raise PatchRejected(f"op {i}: op {kind!r} is not allowed; only add and replace")
        unknown = set(op) - {"op", "path", "value", "reason"}
        if unknown:
            raise PatchRejected(f"op {i}: unknown op keys {sorted(unknown)}")
        draft.reasons.append(check_reason(op, i))
        parts = split_path(op.get("path"), i)
        if parts[0] == "nodes":
            _node_op(draft, op, parts, i)
        else:
            _edge_op(draft, op, parts, i)
    _activate(draft)
    retire_contradicted(draft)
    draft.rationale = rationale
    return draft
