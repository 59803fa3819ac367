"""The patch engine: validate an RFC 6902 JSON Patch from a probe, normalize it, apply it whole.

A probe may only ``add`` or ``replace`` under ``/nodes/<id>`` and ``/edges/<source|rel|target>``.
Every op carries a short ``reason``. Weight and strength values are read as directions
(``"strengthen"``/``"weaken"``, or a number compared with the current value); the amount is
decided by :mod:`rolling_graph.weights`. The engine writes *normalized* ops (absolute values,
activation turns) and applies them with ``jsonpatch`` to copies of the touched entities only,
validates those with pydantic, and commits all of them or none: a rejected patch leaves the
graph exactly as it was.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
from pydantic import ValidationError

from rolling_graph import weights
from rolling_graph.config import DEFAULT_RELATIONSHIPS
from rolling_graph.model import (
    ANCHOR_FLOOR,
    ATTR_KEY_RE,
    DOMAINS,
    KINDS,
    MAX_ALIAS,
    MAX_ALIASES,
    MAX_ATTR_VALUE,
    MAX_ATTRS,
    MAX_LABEL,
    MAX_SUMMARY,
    Edge,
    HotGraph,
    Node,
    edge_key,
)
from rolling_graph.slug import is_slug

MAX_REASON = 300
MAX_PATCH_BYTES = 64_000
NODE_FIELDS_WRITABLE = frozenset(
    {"id", "label", "domain", "weight", "summary", "aliases", "kind", "attrs"}
)
EDGE_FIELDS_WRITABLE = frozenset({"source", "target", "relationship", "strength"})
DIRECTIONS = ("strengthen", "weaken")


class PatchRejected(ValueError):
    """The patch was refused as a whole; ``str(err)`` says which op and why."""


@dataclass(frozen=True)
class Limits:
    relationships: frozenset[str] = frozenset(DEFAULT_RELATIONSHIPS)
    max_nodes: int = 20_000
    max_edges: int = 100_000
    max_ops: int = 64
    max_bytes: int = MAX_PATCH_BYTES


@dataclass(frozen=True)
class PatchSource:
    """Who produced a patch: the probe backend and the prompt it was given."""

    probe: str
    prompt_id: str | None = None
    prompt_hash: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class PatchResult:
    applied: bool
    ops: list[dict[str, Any]] = field(default_factory=list)  # normalized ops that were applied
    reasons: list[str] = field(default_factory=list)
    rationale: str | None = None
    error: str | None = None
    touched_nodes: set[str] = field(default_factory=set)
    new_nodes: list[str] = field(default_factory=list)
    new_edges: list[str] = field(default_factory=list)

    @property
    def ops_applied(self) -> int:
        return len(self.ops) if self.applied else 0


AuditSink = Callable[[dict[str, Any]], None]


def parse_patch(raw: Any) -> tuple[list[Any], str | None]:
    """Accept a JSON string, a list of ops, or ``{"ops": [...], "rationale": "..."}``."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        if len(raw.encode()) > MAX_PATCH_BYTES:
            raise PatchRejected(f"patch is {len(raw.encode())} bytes, over {MAX_PATCH_BYTES}")
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as err:
            raise PatchRejected(
                f"malformed JSON: {err.msg} at line {err.lineno} column {err.colno}"
            ) from None
    rationale = None
    if isinstance(raw, dict):
        rationale = raw.get("rationale")
        if rationale is not None and not isinstance(rationale, str):
            raise PatchRejected("rationale must be a string")
        extra = set(raw) - {"ops", "rationale", "patch"}
        if extra:
            raise PatchRejected(f"unknown top-level keys: {sorted(extra)}")
        raw = raw.get("ops", raw.get("patch"))
    if not isinstance(raw, list):
        raise PatchRejected("a patch must be a JSON array of operations")
    return raw, rationale


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _split_path(path: Any, i: int) -> list[str]:
    if not isinstance(path, str) or not path.startswith("/"):
        raise PatchRejected(f"op {i}: path must be a JSON pointer string, got {path!r}")
    parts = [_unescape(p) for p in path[1:].split("/")]
    if parts[0] not in ("nodes", "edges") or len(parts) < 2 or not parts[1]:
        raise PatchRejected(
            f"op {i}: unknown path {path!r}; only /nodes/<id> and /edges/<key> are writable"
        )
    return parts


class _Draft:
    """Copies of the entities a patch touches; the live graph is not modified until commit."""

    def __init__(self, graph: HotGraph, limits: Limits) -> None:
        self.graph = graph
        self.limits = limits
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[str, dict[str, Any]] = {}
        self.new_nodes: list[str] = []
        self.new_edges: list[str] = []
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
        self.ops.append({"op": op, "path": path, "value": copy.deepcopy(value)})


def _check_reason(op: dict[str, Any], i: int) -> str:
    reason = op.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise PatchRejected(f"op {i}: every op needs a short 'reason' string")
    if len(reason) > MAX_REASON:
        raise PatchRejected(f"op {i}: reason is {len(reason)} chars, over {MAX_REASON}")
    return reason.strip()


def _direction(value: Any, i: int, what: str) -> str | float:
    if isinstance(value, str) and value in DIRECTIONS:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PatchRejected(
            f"op {i}: {what} must be 'strengthen', 'weaken' or a number in [0, 1], got {value!r}"
        )
    if not 0.0 <= float(value) <= 1.0:
        raise PatchRejected(f"op {i}: {what} {value!r} is outside [0, 1]")
    return float(value)


def _check_field(name: str, value: Any, i: int, draft: _Draft) -> Any:
    """Type, enum and size checks for one writable node field; returns the value to store."""
    if name == "label":
        if not isinstance(value, str) or not value.strip():
            raise PatchRejected(f"op {i}: label must be a non-empty string")
        if len(value.strip()) > MAX_LABEL:
            raise PatchRejected(f"op {i}: label is {len(value.strip())} chars, over {MAX_LABEL}")
        return value.strip()
    if name == "domain":
        if value not in DOMAINS:
            raise PatchRejected(f"op {i}: unknown domain {value!r}; one of {', '.join(DOMAINS)}")
        return value
    if name == "summary":
        if not isinstance(value, str):
            raise PatchRejected(f"op {i}: summary must be a string")
        if len(value.strip()) > MAX_SUMMARY:
            raise PatchRejected(
                f"op {i}: summary is {len(value.strip())} chars, over {MAX_SUMMARY}"
            )
        return value.strip()
    if name == "kind":
        if value not in KINDS:
            raise PatchRejected(f"op {i}: unknown kind {value!r}; one of {', '.join(KINDS)}")
        return value
    if name == "aliases":
        if not isinstance(value, list) or not all(isinstance(a, str) and a.strip() for a in value):
            raise PatchRejected(f"op {i}: aliases must be a list of non-empty strings")
        if len(value) > MAX_ALIASES or any(len(a) > MAX_ALIAS for a in value):
            raise PatchRejected(
                f"op {i}: at most {MAX_ALIASES} aliases of at most {MAX_ALIAS} chars"
            )
        return list(dict.fromkeys(a.strip() for a in value))
    if name == "attrs":
        return _check_attrs(value, i)
    raise PatchRejected(f"op {i}: field {name!r} is not writable")


def _check_attrs(value: Any, i: int) -> dict[str, str]:
    """Attributes: a small str → str map; an empty value clears that key when merged."""
    if not isinstance(value, dict):
        raise PatchRejected(f"op {i}: attrs must be an object of strings")
    out: dict[str, str] = {}
    for key, raw in value.items():
        if not isinstance(key, str) or not re.match(ATTR_KEY_RE, key):
            raise PatchRejected(f"op {i}: attribute name {key!r} must match {ATTR_KEY_RE}")
        if not isinstance(raw, str) or len(raw.strip()) > MAX_ATTR_VALUE:
            raise PatchRejected(
                f"op {i}: attribute {key!r} must be a string of at most {MAX_ATTR_VALUE} chars"
            )
        out[key] = raw.strip()
    if len(out) > MAX_ATTRS:
        raise PatchRejected(f"op {i}: at most {MAX_ATTRS} attributes")
    return out


def _merge_attrs(old: dict[str, str] | None, new: dict[str, str], i: int) -> dict[str, str] | None:
    """New keys override, empty values remove; ``None`` when nothing is left."""
    merged = dict(old or {})
    for key, val in new.items():
        if val:
            merged[key] = val
        else:
            merged.pop(key, None)
    if len(merged) > MAX_ATTRS:
        raise PatchRejected(f"op {i}: a node has at most {MAX_ATTRS} attributes")
    return merged or None


def _add_node(draft: _Draft, nid: str, value: Any, i: int) -> None:
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
        fields = {
            k: _check_field(k, v, i, draft) for k, v in value.items() if k not in ("id", "weight")
        }
        if "weight" in value:
            _direction(value["weight"], i, "weight")  # validated; the amount is the engine's
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
        attrs = _merge_attrs(None, fields.get("attrs", {}), i)
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
        new = _check_field(name, raw, i, draft)
        if name == "aliases":
            new = list(dict.fromkeys([*existing.get("aliases", []), *new]))[:MAX_ALIASES]
        if name == "attrs":
            new = _merge_attrs(existing.get("attrs"), new, i)
        _set_field(draft, existing, nid, name, new)
    _steer_node(draft, nid, value.get("weight", "strengthen"), i)


def _steer_node(draft: _Draft, nid: str, requested: Any, i: int) -> None:
    node = draft.node(nid)
    assert node is not None
    direction = _direction(requested, i, "weight")
    floor = ANCHOR_FLOOR if node.get("anchor") else 0.0
    new = weights.steer(node["weight"], direction, floor)
    if new != node["weight"]:
        node["weight"] = new
        draft.emit("replace", f"/nodes/{nid}/weight", new)


def _node_op(draft: _Draft, op: dict[str, Any], parts: list[str], i: int) -> None:
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
        alias = _check_field("aliases", [op.get("value")], i, draft)[0]
        if alias not in node["aliases"]:
            if len(node["aliases"]) >= MAX_ALIASES:
                raise PatchRejected(f"op {i}: node {nid!r} already has {MAX_ALIASES} aliases")
            node["aliases"].append(alias)
            draft.emit("add", f"/nodes/{nid}/aliases/-", alias)
        draft.activated.add(nid)
        return
    if name == "attrs" and len(parts) == 4 and kind in ("add", "replace"):
        one = _check_attrs({parts[3]: op.get("value")}, i)
        _set_field(draft, node, nid, "attrs", _merge_attrs(node.get("attrs"), one, i))
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
        new = _check_field(name, op["value"], i, draft)
        if name == "attrs":
            new = _merge_attrs(node.get("attrs"), new, i)
        _set_field(draft, node, nid, name, new)
    draft.activated.add(nid)


def _set_field(draft: _Draft, node: dict[str, Any], nid: str, name: str, new: Any) -> None:
    # Existing nodes are drafted from a full model dump, so every field's key exists: replace
    # works, and ``None`` clears an optional field.
    if node.get(name) == new:
        return
    node[name] = new
    draft.emit("replace", f"/nodes/{nid}/{name}", new)


def _edge_op(draft: _Draft, op: dict[str, Any], parts: list[str], i: int) -> None:
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
            _direction(value["strength"], i, "strength") if "strength" in value else "strengthen"
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
            draft.emit("add", f"/edges/{_escape(key)}", edge)
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
        _steer_edge(draft, key, _direction(op["value"], i, "strength"))
    draft.activated.update((source, target))


def _steer_edge(draft: _Draft, key: str, requested: str | float) -> None:
    edge = draft.edges[key]
    new = weights.steer(edge["strength"], requested)
    if new != edge["strength"]:
        edge["strength"] = new
        draft.emit("replace", f"/edges/{_escape(key)}/strength", new)


def _activate(draft: _Draft) -> None:
    turn = draft.graph.turn
    for nid in sorted(draft.activated):
        node = draft.node(nid)
        if node is not None and node["last_activated"] != turn:
            node["last_activated"] = turn
            draft.emit("replace", f"/nodes/{nid}/last_activated", turn)
    for key in sorted(draft.edges):
        edge = draft.edges[key]
        if edge["last_activated"] != turn and any(
            o["path"].startswith(f"/edges/{_escape(key)}") for o in draft.ops
        ):
            edge["last_activated"] = turn
            draft.emit("replace", f"/edges/{_escape(key)}/last_activated", turn)


def _touch_order(draft: _Draft) -> list[str]:
    """Node ids in the order the patch's ops touch them (the last touch counts)."""
    order: dict[str, None] = {}
    for op in draft.ops:
        parts = op["path"].split("/")
        if len(parts) > 2 and parts[1] == "nodes" and parts[-1] != "last_activated":
            order.pop(parts[2], None)
            order[parts[2]] = None
    return list(order)


def validate_patch(graph: HotGraph, raw: Any, limits: Limits | None = None) -> _Draft:
    """Check every op and build the normalized ops; raises :class:`PatchRejected`."""
    limits = limits or Limits()
    ops, rationale = parse_patch(raw)
    if len(ops) > limits.max_ops:
        raise PatchRejected(f"patch has {len(ops)} ops, over the limit of {limits.max_ops}")
    if len(json.dumps(ops, default=str)) > limits.max_bytes:
        raise PatchRejected(f"patch is over {limits.max_bytes} bytes")
    draft = _Draft(graph, limits)
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
        draft.reasons.append(_check_reason(op, i))
        parts = _split_path(op.get("path"), i)
        if parts[0] == "nodes":
            _node_op(draft, op, parts, i)
        else:
            _edge_op(draft, op, parts, i)
    _activate(draft)
    draft.rationale = rationale
    return draft


def _commit(graph: HotGraph, draft: _Draft) -> None:
    # Apply the normalized ops with jsonpatch to a document holding only the touched entities,
    # then validate those entities; only then swap them into the live graph.
    doc: dict[str, Any] = {
        "nodes": {k: graph.nodes[k].model_dump() for k in draft.nodes if k in graph.nodes},
        "edges": {k: graph.edges[k].model_dump() for k in draft.edges if k in graph.edges},
    }
    jsonpatch.JsonPatch(draft.ops).apply(doc, in_place=True)
    try:
        nodes = {k: Node.model_validate(v) for k, v in doc["nodes"].items()}
        edges = {k: Edge.model_validate(v) for k, v in doc["edges"].items()}
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise PatchRejected(f"invalid result at {loc}: {first['msg']}") from None
    # Touched nodes move to the end: the graph's order is then the order of last activation,
    # a clock finer than the turn counter (one long autonomous turn touches hundreds of nodes).
    for nid in _touch_order(draft):
        if nid in nodes:
            graph.nodes.pop(nid, None)
            graph.nodes[nid] = nodes[nid]
    graph.nodes.update(nodes)
    graph.edges.update(edges)
    graph.invalidate(draft.new_edges)


def apply_patch(
    graph: HotGraph,
    raw: Any,
    *,
    source: PatchSource,
    limits: Limits | None = None,
    audit: AuditSink | None = None,
    now: str | None = None,
) -> PatchResult:
    """Validate, normalize and apply ``raw`` to ``graph`` all-or-nothing, and audit the outcome.

    Never raises for a bad patch: the result says ``applied=False`` with the reason, and the
    graph is untouched.
    """
    record: dict[str, Any] = {
        "type": "patch",
        "turn": graph.turn,
        "source": source.as_dict(),
        "raw": raw if not isinstance(raw, bytes) else raw.decode("utf-8", "replace"),
    }
    if now:
        record["time"] = now
    try:
        draft = validate_patch(graph, raw, limits)
        _commit(graph, draft)
    except PatchRejected as err:
        record.update(status="rejected", error=str(err))
        if audit:
            audit(record)
        return PatchResult(applied=False, error=str(err))
    rationale = draft.rationale
    record.update(status="applied", applied=draft.ops, reasons=draft.reasons, rationale=rationale)
    if audit:
        audit(record)
    return PatchResult(
        applied=True,
        ops=draft.ops,
        reasons=draft.reasons,
        rationale=rationale,
        touched_nodes=set(draft.nodes),
        new_nodes=draft.new_nodes,
        new_edges=draft.new_edges,
    )


def apply_normalized(graph: HotGraph, ops: list[dict[str, Any]]) -> None:
    """Re-apply already normalized ops (from the audit log) during a rebuild."""
    nodes: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    for op in ops:
        parts = [_unescape(p) for p in op["path"][1:].split("/")]
        bucket, live = (nodes, graph.nodes) if parts[0] == "nodes" else (edges, graph.edges)
        if parts[1] in live and parts[1] not in bucket:
            bucket[parts[1]] = live[parts[1]].model_dump()
    doc = {"nodes": nodes, "edges": edges}
    jsonpatch.JsonPatch(ops).apply(doc, in_place=True)
    graph.nodes.update({k: Node.model_validate(v) for k, v in nodes.items()})
    graph.edges.update({k: Edge.model_validate(v) for k, v in edges.items()})
    graph.invalidate()


__all__ = [
    "Limits",
    "PatchRejected",
    "PatchResult",
    "PatchSource",
    "apply_normalized",
    "apply_patch",
    "edge_key",
    "parse_patch",
    "validate_patch",
]
