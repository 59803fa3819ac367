"""Decay: distance from focus, with a time floor (DESIGN §4).

``w ← max(floor, w · (1 − rate · d/d_max · (1 − exp(−Δt/τ))))`` where ``d`` is the number of
hops from the focus cluster (undirected, capped at ``d_max``; unreachable counts as ``d_max``)
and ``Δt`` the turns since the node was last activated. Distance sets the rate; a recently
activated node resists it because its staleness is still near zero. Edges decay the same way,
independently, with the distance of their nearer end and their own ``last_activated``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.model import ANCHOR_FLOOR, HotGraph


@dataclass(frozen=True)
class DecayParams:
    rate: float = 0.5
    tau: float = 8.0
    d_max: int = 4
    focus_size: int = 5

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DecayReport:
    focus: list[str]
    changed_nodes: int = 0
    changed_edges: int = 0
    distances: dict[str, int] = field(default_factory=dict)


def staleness(dt: float, tau: float) -> float:
    return 1.0 - math.exp(-max(0.0, dt) / tau)


def decayed(
    weight: float, distance: int, dt: float, params: DecayParams, floor: float = 0.0
) -> float:
    """One decay step for one weight; pure, so it is easy to property-test."""
    factor = min(distance, params.d_max) / params.d_max
    new = weight * (1.0 - params.rate * factor * staleness(dt, params.tau))
    return min(1.0, max(floor, new))


def focus_cluster(graph: HotGraph, size: int = 5) -> list[str]:
    """The most active nodes: latest activation first, then weight, then id (deterministic).

    Superseded nodes are retired, so they never count as focus even when just touched.
    """
    retired = graph.superseded_by()
    ranked = heapq.nsmallest(
        size,
        (n for n in graph.nodes.values() if n.id not in retired),
        key=lambda n: (-n.last_activated, -n.weight, n.id),
    )
    return [n.id for n in ranked]


def hop_distances(graph: HotGraph, sources: Iterable[str], d_max: int) -> dict[str, int]:
    """Breadth-first hop counts from the sources, up to ``d_max``; nodes farther are absent."""
    adj = graph.nx_graph().adj
    dist = {s: 0 for s in sources}
    frontier = list(dist)
    for d in range(1, d_max + 1):
        nxt = []
        for u in frontier:
            for v in adj.get(u, ()):
                if v not in dist:
                    dist[v] = d
                    nxt.append(v)
        if not nxt:
            break
        frontier = nxt
    return dist


def decay_step(graph: HotGraph, params: DecayParams | None = None) -> DecayReport:
    """Decay every node and edge in place by one step at ``graph.turn``."""
    params = params or DecayParams()
    focus = focus_cluster(graph, params.focus_size)
    dist = hop_distances(graph, focus, params.d_max)
    report = DecayReport(focus=focus, distances=dist)
    now = graph.turn
    d_max = params.d_max
    # Distances and Δt are whole numbers, so each step's multiplier is memoized per (d, Δt).
    memo: dict[tuple[int, int], float] = {}

    def factor(d: int, dt: int) -> float:
        m = memo.get((d, dt))
        if m is None:
            m = memo[(d, dt)] = 1.0 - params.rate * (min(d, d_max) / d_max) * staleness(
                dt, params.tau
            )
        return m

    get = dist.get
    for nid, node in graph.nodes.items():
        w = node.weight
        last = node.last_activated
        if last >= now or w == 0.0:
            continue
        d = get(nid, d_max)
        if d == 0:
            continue
        new = w * factor(d, now - last)
        if node.anchor and new < ANCHOR_FLOOR:
            new = ANCHOR_FLOOR
        if new != w:
            # Bypass pydantic's __setattr__ (hot loop); the value is in range by construction.
            node.__dict__["weight"] = new
            report.changed_nodes += 1
    for edge in graph.edges.values():
        s = edge.strength
        last = edge.last_activated
        if s == 0.0 or last >= now:
            continue
        d = min(get(edge.source, d_max), get(edge.target, d_max))
        if d == 0:
            continue
        new = s * factor(d, now - last)
        if new != s:
            edge.__dict__["strength"] = new
            report.changed_edges += 1
    return report
