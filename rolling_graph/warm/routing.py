"""What is shared: which warm scope each item of a flush goes to, and what stays home.

- ``project`` and ``technical`` nodes go to the project scope, where the team reads them;
- ``personal`` nodes go to the person's own scope; ``relationship`` nodes (colleagues,
  clients; and any node of kind ``person``) too, unless ``share_relationships`` is set;
- a node marked private (``attrs["private"] == "true"``, set by the person or by
  ``<private>`` text) never leaves the machine, nor does any edge touching it;
- an edge between a shared and a personal node reveals the personal one, so it goes to the
  personal scope, with a copy of its shared endpoint (warm edges live within one scope).

Pure functions over the hot graph's JSON shape (DESIGN §2), so every flush path (live,
outbox, recovery) routes the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SHARED_DOMAINS = frozenset({"project", "technical"})
PRIVATE_ATTR = "private"
_TRUE = frozenset({"true", "yes", "1"})


def is_private(node: Mapping[str, Any]) -> bool:
    attrs = node.get("attrs") or {}
    return str(attrs.get(PRIVATE_ATTR, "")).strip().lower() in _TRUE


def node_scope(
    node: Mapping[str, Any], *, project: str, personal: str, share_relationships: bool = False
) -> str:
    domain = node.get("domain") or "project"
    if node.get("kind") == "person":
        domain = "relationship"  # a colleague is a relationship whatever the probe called it
    if domain in SHARED_DOMAINS or (domain == "relationship" and share_relationships):
        return project
    return personal


@dataclass
class Routed:
    """A flush split by scope: ``parts[scope]`` is a hot-graph document; ``private`` lists
    the nodes (and ``private_edges`` the edges) kept on the machine."""

    parts: dict[str, dict[str, Any]] = field(default_factory=dict)
    private: list[str] = field(default_factory=list)
    private_edges: list[str] = field(default_factory=list)


def route(
    doc: Mapping[str, Any], *, project: str, personal: str, share_relationships: bool = False
) -> Routed:
    """Split a flush document into one document per scope (empty ones left out)."""
    nodes: Mapping[str, Any] = doc.get("nodes") or {}
    edges: Mapping[str, Any] = doc.get("edges") or {}
    out = Routed(private=sorted(i for i, n in nodes.items() if is_private(n)))
    hidden = set(out.private)
    where = {
        i: node_scope(
            n, project=project, personal=personal, share_relationships=share_relationships
        )
        for i, n in nodes.items()
        if i not in hidden
    }

    def part(scope: str) -> dict[str, Any]:
        return out.parts.setdefault(scope, {**doc, "nodes": {}, "edges": {}})

    for i, scope in where.items():
        part(scope)["nodes"][i] = nodes[i]
    for key, e in edges.items():
        ends = (str(e.get("source")), str(e.get("target")))
        if any(end in hidden for end in ends):
            out.private_edges.append(key)
            continue
        scopes = {where[end] for end in ends if end in where} or {project}
        scope = scopes.pop() if len(scopes) == 1 else personal
        target = part(scope)
        target["edges"][key] = e
        for end in ends:
            if end in nodes:
                target["nodes"].setdefault(end, nodes[end])
    out.parts = {s: d for s, d in out.parts.items() if d["nodes"] or d["edges"]}
    return out
