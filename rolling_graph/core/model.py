"""The hot graph document (DESIGN §2), as pydantic v2 models.

The JSON shape is what probes patch: ``/nodes/<id>`` and ``/edges/<source|relationship|target>``.
"""

from __future__ import annotations

from itertools import islice
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StringConstraints, model_validator

from rolling_graph.core.slug import SLUG_RE

SCHEMA_VERSION = 1
Domain = Literal["relationship", "project", "technical", "personal"]
Kind = Literal[
    "entity",
    "concept",
    "decision",
    "correction",
    "file",
    "person",
    "task",
    "tool",
    "preference",
    "question",
]
DOMAINS: tuple[str, ...] = get_args(Domain)
KINDS: tuple[str, ...] = get_args(Kind)
ANCHOR_FLOOR = 0.2
#: the label prefix of a node that holds what the agent said, for a correction to supersede
AGENT_CLAIM = "Agent: "

# Size limits: the graph must stay cheap to render, patch and store.
MAX_LABEL = 80
#: a choice's label as a reader takes it in at a glance (the label rules' limit)
CHOICE_LABEL = 60
MAX_SUMMARY = 200
MAX_ALIASES = 8
MAX_ALIAS = 80
# Attributes carry small facts that belong to a node rather than being nodes themselves: a task's
# status, a person's role, a deadline ("due": "Fri 14 March"), a constraint.
MAX_ATTRS = 8
MAX_ATTR_VALUE = 80
ATTR_KEY_RE = r"^[a-z][a-z0-9_]{0,23}$"

Slug = Annotated[str, StringConstraints(pattern=SLUG_RE.pattern)]
RelSlug = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LABEL)]
Alias = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ALIAS)]
Summary = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_SUMMARY)]
Turn = Annotated[int, Field(ge=0)]
AttrKey = Annotated[str, StringConstraints(pattern=ATTR_KEY_RE)]
AttrValue = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ATTR_VALUE)
]


class Node(BaseModel):
    """A concept, decision, correction, person, file… that the session is about."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: Slug
    label: Label
    domain: Domain
    weight: Unit
    last_activated: Turn
    summary: Summary | None = None
    aliases: Annotated[list[Alias], Field(max_length=MAX_ALIASES)] = Field(default_factory=list)
    anchor: bool = False
    kind: Kind | None = None
    attrs: Annotated[dict[AttrKey, AttrValue], Field(max_length=MAX_ATTRS)] | None = None

    @model_validator(mode="after")
    def _anchor_floor(self) -> Node:
        if self.anchor and self.weight < ANCHOR_FLOOR:
            raise ValueError(f"anchor node weight must be >= {ANCHOR_FLOOR}")
        return self

    @property
    def floor(self) -> float:
        return ANCHOR_FLOOR if self.anchor else 0.0


def edge_key(source: str, relationship: str, target: str) -> str:
    return f"{source}|{relationship}|{target}"


class Edge(BaseModel):
    """A typed, weighted relationship; ``relationship`` comes from a controlled vocabulary."""

    model_config = ConfigDict(extra="forbid", strict=True)

    source: Slug
    target: Slug
    relationship: RelSlug
    strength: Unit
    last_activated: Turn = 0

    @model_validator(mode="after")
    def _no_self_loop(self) -> Edge:
        if self.source == self.target:
            raise ValueError("an edge cannot join a node to itself")
        return self

    @property
    def key(self) -> str:
        return edge_key(self.source, self.relationship, self.target)


class HotGraph(BaseModel):
    """One session's graph. ``turn`` is the session's user-turn counter (hot time)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: int = Field(SCHEMA_VERSION, alias="schema")
    session_id: str
    turn: Turn = 0
    nodes: dict[str, Node] = Field(default_factory=dict)
    edges: dict[str, Edge] = Field(default_factory=dict)

    # networkx view for hop distances, extended when edges are added, rebuilt when one is dropped
    # (only an overruled supersedes edge is ever dropped: rolling_graph.core.patch.history).
    _nx: Any = PrivateAttr(default=None)
    _nx_edges: int = PrivateAttr(default=-1)
    # Per-node text features for mention/overlap matching, keyed by the text they came from.
    _terms: dict[str, tuple[tuple[str, tuple[str, ...], str], Any]] = PrivateAttr(
        default_factory=dict
    )
    # Views the renderer keeps in step with the nodes (rolling_graph.core.graph_index).
    _index: Any = PrivateAttr(default=None)
    # superseded_by() as of (edges dict, edge count): edges are never removed, and an edge's
    # key names its relationship and ends.
    _sup: Any = PrivateAttr(default=None)
    # known_terms() per node id, with the node object, label and aliases they were read from
    _known: dict[str, tuple[Node, str, list[str], tuple[str, ...]]] = PrivateAttr(
        default_factory=dict
    )

    @model_validator(mode="after")
    def _integrity(self) -> HotGraph:
        for nid, node in self.nodes.items():
            if nid != node.id:
                raise ValueError(f"node key {nid!r} does not match its id {node.id!r}")
        for key, edge in self.edges.items():
            if key != edge.key:
                raise ValueError(f"edge key {key!r} does not match {edge.key!r}")
            if edge.source not in self.nodes or edge.target not in self.nodes:
                raise ValueError(f"edge {key!r} points at a missing node")
        return self

    def drop_edges(self, keys: list[str]) -> None:
        """Remove edges (supersedes edges a newer one overrules); the networkx view is rebuilt."""
        dropped = [k for k in keys if self.edges.pop(k, None) is not None]
        if dropped:
            self._nx = None

    def invalidate(self, new_edges: list[str] | None = None) -> None:
        """Keep derived views in step after a change: new edges are added to the cached
        networkx graph instead of rebuilding it (see ``drop_edges`` for removals)."""
        if self._nx is None:
            return
        if new_edges is not None and self._nx_edges + len(new_edges) == len(self.edges):
            self._nx.add_edges_from((self.edges[k].source, self.edges[k].target) for k in new_edges)
            self._nx_edges = len(self.edges)
        elif self._nx_edges != len(self.edges):
            self._nx = None

    def text_features(self, build: Any) -> list[tuple[Node, Any]]:
        """``(node, build(node))`` for every node, cached per node object: the patch engine swaps
        in a new object whenever a node's fields change, so identity is a safe cache key and
        matching mentions need not re-tokenize the whole graph on every prompt."""
        cache = self._terms  # one private-attribute lookup, not one per node
        out = []
        for nid, node in self.nodes.items():
            hit = cache.get(nid)
            if hit is None or hit[0] is not node:
                hit = cache[nid] = (node, build(node))
            out.append((node, hit[1]))
        _forget_removed(cache, self.nodes)
        return out

    def nx_graph(self) -> Any:
        """Undirected networkx graph of the edges (lazy import: networkx is not cheap)."""
        if self._nx is None or self._nx_edges != len(self.edges):
            import networkx as nx

            g = nx.Graph()
            g.add_nodes_from(self.nodes)
            g.add_edges_from((e.source, e.target) for e in self.edges.values())
            self._nx = g
            self._nx_edges = len(self.edges)
        return self._nx

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    # Convenience views used by decay, rendering and the gate.
    def superseded_by(self) -> dict[str, list[str]]:
        """old id → ids of the nodes that supersede it."""
        cached = self._sup
        if cached is None or cached[0] is not self.edges or cached[1] > len(self.edges):
            cached = (self.edges, 0, {})
        if cached[1] < len(self.edges):
            # New edges are the dict's last ones (an update of an edge keeps its place).
            out: dict[str, list[str]] = cached[2]
            new = list(islice(reversed(self.edges.values()), len(self.edges) - cached[1]))
            for e in reversed(new):
                if e.relationship == "supersedes":
                    out.setdefault(e.target, []).append(e.source)
            cached = self._sup = (self.edges, len(self.edges), out)
        return {old: list(news) for old, news in cached[2].items()}

    def known_terms(self) -> set[str]:
        """Normalized labels and aliases: what the gate treats as already known."""
        from rolling_graph.core.slug import normalize_term

        cache = self._known  # asked on every prompt: each node's terms are kept
        terms: set[str] = set()
        for nid, n in self.nodes.items():
            hit = cache.get(nid)
            if hit is None or hit[0] is not n or hit[1] != n.label or hit[2] != n.aliases:
                got = (normalize_term(n.label), *map(normalize_term, n.aliases))
                hit = cache[nid] = (n, n.label, list(n.aliases), got)
            terms.update(hit[3])
        _forget_removed(cache, self.nodes)
        terms.discard("")
        return terms


def _forget_removed(cache: dict[str, Any], nodes: dict[str, Node]) -> None:
    """Drop the entries of removed nodes once they are as many as the nodes left: each holds its
    node alive, and a long session removes many (forgotten, pruned)."""
    if len(cache) > 2 * len(nodes) + 64:
        for nid in [k for k in cache if k not in nodes]:
            del cache[nid]
