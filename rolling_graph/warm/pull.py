"""Pulling warm branches into a hot graph: which words of a prompt can name a warm node, and
the patch operations that add the pulled nodes and edges (DESIGN §6).

Plain functions over a store and a hot graph; :meth:`rolling_graph.warm.reconcile.Reconciler.pull`
strings them together and audits the result. Nodes already in the hot graph are never
duplicated: a warm anchor only marks (and floors) its hot twin.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from rolling_graph.core.model import (
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
from rolling_graph.core.patch.history import SUPERSEDES, closes_cycle
from rolling_graph.core.slug import SEARCH_STOP_WORDS, is_slug
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.merge import (
    MergeParams,
    effective_strength,
    effective_weight,
    normalize_term,
)
from rolling_graph.warm.records import WarmBranches, WarmEdge, WarmNode

MAX_MENTION_TERMS = 600
MAX_NGRAM = 4

Ops = list[dict[str, Any]]
#: what the person's own scope never lends a project: a choice belongs to the project (or the
#: session) it was made in, and "X supersedes Y" between shared names too; a task only when it
#: is the person's own (an aside), not work of another project
PROJECT_BOUND_KINDS = frozenset({"decision", "correction"})
OWN_DOMAINS = frozenset({"personal", "relationship"})


@dataclass
class PullResult:
    """What one pull did."""

    scope: str
    nodes_added: list[str] = field(default_factory=list)
    edges_added: list[str] = field(default_factory=list)
    anchors_marked: list[str] = field(default_factory=list)
    mentioned: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ops(self) -> int:
        return len(self.nodes_added) + len(self.edges_added) + len(self.anchors_marked)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scope": self.scope,
            "nodes": len(self.nodes_added),
            "edges": len(self.edges_added),
        }
        if self.error:
            out["error"] = self.error
        return out


def mention_terms(prompt: str | None) -> list[str]:
    """Normalized word n-grams (1–4 words) of a prompt: what a warm id, label or alias can
    match exactly (``load_branches`` compares normalized terms). Lone stop words are left out."""
    if not prompt:
        return []
    words = normalize_term(prompt).split()
    terms: dict[str, None] = {}
    for n in range(1, MAX_NGRAM + 1):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if n == 1 and (gram[0] in SEARCH_STOP_WORDS or len(gram[0]) < 2):
                continue
            terms[" ".join(gram)] = None
            if len(terms) >= MAX_MENTION_TERMS:
                return list(terms)
    return list(terms)


def load_parts(
    store: WarmStore,
    *,
    scope: str,
    own_scope: str,
    terms: Sequence[str],
    top: int,
    recent: int,
    neighbors: int,
    now: datetime,
) -> list[WarmBranches]:
    """The project's branches, then (outside the own scope) half as many of the person's own."""
    parts = [
        store.load_branches(
            scope=scope, mentions=terms, top=top, recent=recent, neighbors=neighbors, now=now
        )
    ]
    if scope != own_scope:
        own = store.load_branches(
            scope=own_scope,
            mentions=terms,
            top=top // 2,
            recent=recent // 2,
            neighbors=neighbors // 2,
            now=now,
        )
        parts.append(personal_part(own))
    return parts


def personal_part(part: WarmBranches) -> WarmBranches:
    """The person's own branches as a project may see them: no decisions or corrections
    (those of another session outside this project, or copied there as the end of a personal
    edge) but the person's anchored rules, no task but the person's own, and no supersedes
    edge unless both its ends are the person's own."""
    nodes = tuple(
        n
        for n in part.nodes
        if n.anchor  # the person's own rule (seeded, or approved in review): it carries
        or (n.kind not in PROJECT_BOUND_KINDS and (n.kind != "task" or n.domain in OWN_DOMAINS))
    )
    domain = {n.id: n.domain for n in nodes}
    edges = tuple(
        e
        for e in part.edges
        if e.source in domain
        and e.target in domain
        and (
            e.relationship != SUPERSEDES
            or (domain[e.source] in OWN_DOMAINS and domain[e.target] in OWN_DOMAINS)
        )
    )
    reasons = {k: v for k, v in part.reasons.items() if k in domain}
    return WarmBranches(nodes=nodes, edges=edges, reasons=reasons)


# --------------------------------------------------------------------------- hot values


def hot_node_value(wn: WarmNode, weight: float, turn: int) -> dict[str, Any]:
    """A warm node as a hot-graph node value, clipped to the hot graph's limits."""
    aliases = [a[:MAX_ALIAS].strip() for a in wn.aliases if a and a.strip()][:MAX_ALIASES]
    value: dict[str, Any] = {
        "id": wn.id,
        "label": (wn.label or wn.id)[:MAX_LABEL].strip() or wn.id,
        "domain": wn.domain if wn.domain in DOMAINS else "project",
        "weight": round(max(weight, ANCHOR_FLOOR) if wn.anchor else weight, 6),
        "last_activated": turn,
        "aliases": aliases,
        "anchor": bool(wn.anchor),
    }
    if wn.summary:
        value["summary"] = wn.summary[:MAX_SUMMARY].strip()
    if wn.kind in KINDS:
        value["kind"] = wn.kind
    attrs = {
        k: v[:MAX_ATTR_VALUE].strip()
        for k, v in (wn.attrs or {}).items()
        if v and v.strip() and re.match(ATTR_KEY_RE, k)  # one bad key must not drop the node
    }
    if attrs:
        value["attrs"] = dict(list(attrs.items())[:MAX_ATTRS])
    return value


def _valid(model: type[Node] | type[Edge], value: dict[str, Any]) -> bool:
    try:
        model.model_validate(value)
    except ValidationError:
        return False
    return True


# --------------------------------------------------------------------------- ops


def _anchor_ops(node_id: str, weight: float) -> tuple[Ops, list[str]]:
    """Keep a warm anchor on its hot twin: flag and floor (a floor needs weight ≥ 0.2)."""
    ops: Ops = []
    reasons: list[str] = []
    if weight < ANCHOR_FLOOR:
        ops.append({"op": "replace", "path": f"/nodes/{node_id}/weight", "value": ANCHOR_FLOOR})
        reasons.append("warm: anchor floor")
    ops.append({"op": "add", "path": f"/nodes/{node_id}/anchor", "value": True})
    reasons.append("warm: anchor")
    return ops, reasons


def node_ops(
    graph: HotGraph,
    parts: Sequence[WarmBranches],
    now: datetime,
    params: MergeParams,
    result: PullResult,
    max_nodes: int,
) -> tuple[Ops, list[str], set[str]]:
    """Add operations for pulled nodes (and anchor marks); also the ids present after them."""
    ops: Ops = []
    reasons: list[str] = []
    present = set(graph.nodes)
    seen: set[str] = set()
    for part in parts:
        for wn in part.nodes:
            if wn.id in seen or not is_slug(wn.id):
                continue
            seen.add(wn.id)
            if wn.id in graph.nodes:
                hot = graph.nodes[wn.id]
                if wn.anchor and not hot.anchor:
                    more, why = _anchor_ops(wn.id, hot.weight)
                    ops += more
                    reasons += why
                    result.anchors_marked.append(wn.id)
                continue
            if len(present) >= max_nodes:
                break
            value = hot_node_value(wn, effective_weight(wn, now, params), graph.turn)
            if not _valid(Node, value):
                continue
            ops.append({"op": "add", "path": f"/nodes/{wn.id}", "value": value})
            reasons.append(f"warm: {part.reasons.get(wn.id, 'pulled')}")
            present.add(wn.id)
            result.nodes_added.append(wn.id)
            if part.reasons.get(wn.id) in ("id", "mention"):
                result.mentioned.append(wn.id)
    return ops, reasons, present


def _edge_value(we: WarmEdge, now: datetime, params: MergeParams, turn: int) -> dict[str, Any]:
    return {
        "source": we.source,
        "target": we.target,
        "relationship": we.relationship,
        "strength": round(effective_strength(we, now, params), 6),
        "last_activated": turn,
    }


def edge_ops(
    graph: HotGraph,
    parts: Sequence[WarmBranches],
    present: set[str],
    now: datetime,
    params: MergeParams,
    result: PullResult,
    limits: Any,
) -> tuple[Ops, list[str]]:
    """Add operations for pulled edges between nodes ``present`` after the node ops."""
    ops: Ops = []
    relationships = getattr(limits, "relationships", None)
    max_edges = getattr(limits, "max_edges", 100_000)
    edge_count = len(graph.edges)
    history = _history(graph, parts)
    for part in parts:
        for we in part.edges:
            key = edge_key(we.source, we.relationship, we.target)
            if key in graph.edges or key in result.edges_added:
                continue
            if we.relationship == SUPERSEDES and key not in history:
                continue  # overruled by a newer word (patch.history)
            if we.source not in present or we.target not in present:
                continue
            if relationships is not None and we.relationship not in relationships:
                continue
            if edge_count >= max_edges:
                break
            value = _edge_value(we, now, params, graph.turn)
            if not _valid(Edge, value):
                continue
            ops.append({"op": "add", "path": f"/edges/{key}", "value": value})
            result.edges_added.append(key)
            edge_count += 1
    return ops, ["warm: edge"] * len(ops)


def _history(graph: HotGraph, parts: Sequence[WarmBranches]) -> set[str]:
    """Keys of the pulled supersedes edges that close no cycle: the hot graph's own edges
    are the newest word, then the warm ones from the latest seen back."""
    pairs = {
        k: (e.source, e.target) for k, e in graph.edges.items() if e.relationship == SUPERSEDES
    }
    warm = [e for part in parts for e in part.edges if e.relationship == SUPERSEDES]
    kept: set[str] = set()
    for we in sorted(warm, key=lambda e: e.last_seen, reverse=True):
        key = edge_key(we.source, we.relationship, we.target)
        if key in pairs or closes_cycle(pairs, we.source, we.target):
            continue
        pairs[key] = (we.source, we.target)
        kept.add(key)
    return kept


def pull_ops(
    graph: HotGraph,
    parts: Sequence[WarmBranches],
    now: datetime,
    params: MergeParams,
    result: PullResult,
    limits: Any = None,
) -> tuple[Ops, list[str]]:
    """Every operation of a pull, with one reason each (``limits``: the session's patch
    limits, for the node and edge caps and the allowed relationships)."""
    max_nodes = getattr(limits, "max_nodes", 20_000)
    ops, reasons, present = node_ops(graph, parts, now, params, result, max_nodes)
    more, why = edge_ops(graph, parts, present, now, params, result, limits)
    return ops + more, reasons + why


def remember_pulled(state: dict[str, Any], graph: HotGraph, result: PullResult) -> None:
    """Note in the session's warm state what the pull brought in, at which weight: a later
    flush leaves these out unless the session touched them (see ``Reconciler.flush_doc``)."""
    pulled = state.setdefault("pulled", {})
    for nid in result.nodes_added:
        if nid not in result.mentioned:  # named by the person: seen this session
            pulled[nid] = [graph.turn, graph.nodes[nid].weight]
    pulled_edges = state.setdefault("pulled_edges", {})
    for key in result.edges_added:
        pulled_edges[key] = [graph.turn, graph.edges[key].strength]
