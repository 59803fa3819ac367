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

from rolling_graph.core.graph_index import index_of
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
    # Latest activation ranks first: the newest buckets hold the whole top ``size``.
    newest = index_of(graph).newest_first(
        lambda got: len(got) >= size, lambda n: n.id not in retired
    )
    ranked = heapq.nsmallest(size, newest, key=lambda n: (-n.last_activated, -n.weight, n.id))
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
    # Distances and Δt are whole numbers, so each step's multiplier is memoized per d, per Δt.
    tables: list[dict[int, float]] = [{} for _ in range(d_max + 1)]

    def factor(d: int, dt: int) -> float:
        m = tables[d][dt] = 1.0 - params.rate * (min(d, d_max) / d_max) * staleness(dt, params.tau)
        return m

    get = dist.get
    changed = 0
    # The hot loops read and write the fields through __dict__: pydantic's __setattr__ would
    # validate each write; the values are in range by construction.
    for nid, node in graph.nodes.items():
        f = node.__dict__
        w, last = f["weight"], f["last_activated"]
        if last >= now or w == 0.0:
            continue
        d = get(nid, d_max)
        if d == 0:
            continue
        m = tables[d].get(now - last)
        new = w * (m if m is not None else factor(d, now - last))
        if new < ANCHOR_FLOOR and f["anchor"]:
            new = ANCHOR_FLOOR
        if new != w:
            f["weight"] = new
            changed += 1
    report.changed_nodes, changed = changed, 0
    for edge in graph.edges.values():
        f = edge.__dict__
        s, last = f["strength"], f["last_activated"]
        if s == 0.0 or last >= now:
            continue
        d, d2 = get(f["source"], d_max), get(f["target"], d_max)
        if d2 < d:
            d = d2
        if d == 0:
            continue
        m = tables[d].get(now - last)
        new = s * (m if m is not None else factor(d, now - last))
        if new != s:
            f["strength"] = new
            changed += 1
    report.changed_edges = changed
    return report
