"""Small builders for core tests."""

from __future__ import annotations

import random
import sys
from typing import Any

from rolling_graph.core.model import DOMAINS, Edge, HotGraph, Node, edge_key


def node(
    nid: str, domain: str = "technical", weight: float = 0.5, turn: int = 0, **kw: object
) -> Node:
    return Node(
        id=nid,
        label=kw.pop("label", nid.replace("-", " ").title()),
        domain=domain,
        weight=weight,
        last_activated=turn,
        **kw,
    )  # type: ignore[arg-type]


def graph_of(nodes: list[Node], edges: list[tuple[str, str, str]] = (), turn: int = 0) -> HotGraph:  # type: ignore[assignment]
    g = HotGraph(session_id="test", turn=turn, nodes={n.id: n for n in nodes})
    for s, r, t in edges:
        g.edges[edge_key(s, r, t)] = Edge(source=s, target=t, relationship=r, strength=0.5)
    return g


def random_graph(n: int, *, seed: int = 7, degree: int = 2, turn: int = 100) -> HotGraph:
    """A graph of ``n`` nodes over the four domains with about ``degree`` edges per node."""
    rnd = random.Random(seed)
    rels = ["uses", "relates-to", "depends-on", "informs", "part-of"]
    nodes = [
        Node(
            id=f"n{i}",
            label=f"Concept {i} {rnd.choice(['api', 'schema', 'deploy', 'meeting', 'budget', 'health'])}",
            domain=rnd.choice(DOMAINS),  # type: ignore[arg-type]
            weight=round(rnd.random(), 3),
            last_activated=rnd.randrange(0, turn),
            summary=f"Known fact number {i} about this concept, as the probe wrote it."
            if i % 3 == 0
            else None,
        )
        for i in range(n)
    ]
    g = HotGraph(session_id=f"bench-{n}", turn=turn, nodes={x.id: x for x in nodes})
    for _ in range(n * degree):
        a, b = rnd.randrange(n), rnd.randrange(n)
        if a == b:
            continue
        rel = rnd.choice(rels)
        key = edge_key(f"n{a}", rel, f"n{b}")
        g.edges[key] = Edge(
            source=f"n{a}",
            target=f"n{b}",
            relationship=rel,
            strength=round(rnd.random(), 3),
            last_activated=rnd.randrange(0, turn),
        )
    return g


def mcp_errlog() -> Any:
    """The stream an MCP server's stderr goes to, chosen at each call: the SDK's default is bound
    when ``mcp.client.stdio`` is first imported, which may be inside a CliRunner (whose stream
    is gone once it returns: ``io.UnsupportedOperation: fileno`` in every later test)."""
    return sys.__stderr__


def kinds_and_supersedes(before: str, prompt: str) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """One invented exchange through the offline probe: each node's kind by label, and the
    supersedes edges as (source label, target label)."""
    from rolling_graph.eval.dialogue import replay_dialogue

    g = replay_dialogue([(before, prompt)]).graph
    labels = {n.id: n.label for n in g.nodes.values()}
    kinds = {n.label: n.kind or "" for n in g.nodes.values()}
    sup = {
        (labels[e.source], labels[e.target])
        for e in g.edges.values()
        if e.relationship == "supersedes"
    }
    return kinds, sup
