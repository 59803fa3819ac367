"""Application: commit a validated draft to the live graph all-or-nothing (the JSON Patch ops
on a document of the touched entities, :mod:`.ops`, then pydantic), audit the outcome, and re-apply normalized
ops from the audit log during a rebuild."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from rolling_graph.core.model import Edge, HotGraph, Node
from rolling_graph.core.patch.checks import Limits, PatchRejected, unescape
from rolling_graph.core.patch.draft import Draft, touch_order, validate_patch
from rolling_graph.core.patch.ops import apply_ops


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


def commit(graph: HotGraph, draft: Draft) -> None:
    # Apply the normalized ops (RFC 6902) to a document holding only the touched entities,
    # then validate those entities; only then swap them into the live graph.
    doc: dict[str, Any] = {
        "nodes": {k: graph.nodes[k].model_dump() for k in draft.nodes if k in graph.nodes},
        "edges": {k: graph.edges[k].model_dump() for k in draft.edges if k in graph.edges},
    }
    apply_ops(doc, draft.ops)
    try:
        nodes = {k: Node.model_validate(v) for k, v in doc["nodes"].items()}
        edges = {k: Edge.model_validate(v) for k, v in doc["edges"].items()}
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise PatchRejected(f"invalid result at {loc}: {first['msg']}") from None
    # Touched nodes move to the end: the graph's order is then the order of last activation,
    # a clock finer than the turn counter (one long autonomous turn touches hundreds of nodes).
    for nid in touch_order(draft):
        if nid in nodes:
            graph.nodes.pop(nid, None)
            graph.nodes[nid] = nodes[nid]
    graph.nodes.update(nodes)
    graph.edges.update(edges)
    graph.drop_edges(draft.removed)
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
        commit(graph, draft)
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
        parts = [unescape(p) for p in op["path"][1:].split("/")]
        bucket, live = (nodes, graph.nodes) if parts[0] == "nodes" else (edges, graph.edges)
        if parts[1] in live and parts[1] not in bucket:
            bucket[parts[1]] = live[parts[1]].model_dump()
    doc = {"nodes": nodes, "edges": edges}
    loaded = list(edges)
    apply_ops(doc, ops)
    graph.nodes.update({k: Node.model_validate(v) for k, v in nodes.items()})
    graph.edges.update({k: Edge.model_validate(v) for k, v in edges.items()})
    graph.drop_edges([k for k in loaded if k not in edges])  # an overruled supersedes edge
    graph.invalidate()
