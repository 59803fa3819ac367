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
from itertools import compress, repeat
from operator import attrgetter, itemgetter, mul, ne, setitem, sub
from typing import Any

from rolling_graph.model import ANCHOR_FLOOR, HotGraph
from rolling_graph.render_index import index_of


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
    now, d_max = graph.turn, params.d_max
    # The multiplier depends on the distance and Δt only (whole numbers): computed once per
    # pair. It is exactly 1.0 where nothing decays (Δt <= 0, or distance 0), so every weight
    # goes through the same product and only the anchor floor is a case of its own. The
    # columns are read, multiplied and written with map() over builtins, in C: a Python loop
    # per node and edge was most of a turn at 10,000 nodes.
    nodes = list(map(attrgetter("__dict__"), graph.nodes.values()))
    w = list(map(itemgetter("weight"), nodes))
    keys = list(zip(map(dist.get, graph.nodes, repeat(d_max)), _ages(nodes, now), strict=True))
    new = _decayed(w, keys, params)
    if any(map(itemgetter("anchor"), nodes)):
        for i in compress(range(len(nodes)), map(itemgetter("anchor"), nodes)):
            d, dt = keys[i]
            if new[i] < ANCHOR_FLOOR and dt > 0 and d != 0 and w[i] != 0.0:
                new[i] = ANCHOR_FLOOR
    report.changed_nodes = _write(nodes, "weight", w, new)
    edges = list(map(attrgetter("__dict__"), graph.edges.values()))
    s = list(map(itemgetter("strength"), edges))
    near = map(
        min,
        map(dist.get, map(itemgetter("source"), edges), repeat(d_max)),
        map(dist.get, map(itemgetter("target"), edges), repeat(d_max)),
    )
    new = _decayed(s, list(zip(near, _ages(edges, now), strict=True)), params)
    report.changed_edges = _write(edges, "strength", s, new)
    return report


def _write(fields: list[dict[str, Any]], name: str, old: list[float], new: list[float]) -> int:
    """Set ``name`` where the value changed (pydantic's __setattr__ would validate each write;
    the values are in range by construction); how many changed."""
    changed = list(compress(range(len(old)), map(ne, new, old)))
    list(
        map(setitem, map(fields.__getitem__, changed), repeat(name), map(new.__getitem__, changed))
    )
    return len(changed)


def _ages(fields: list[dict[str, Any]], now: int) -> Iterable[int]:
    """Turns since last activation, per entity (its fields)."""
    return map(sub, repeat(now), map(itemgetter("last_activated"), fields))


def _decayed(values: list[float], keys: list[tuple[int, int]], params: DecayParams) -> list[float]:
    """``value * multiplier(distance, Δt)`` per entity; the multiplier is 1.0 where nothing
    decays, so those values come back unchanged."""
    d_max = params.d_max
    factor = {
        (d, dt): 1.0 - params.rate * (min(d, d_max) / d_max) * staleness(dt, params.tau)
        for d, dt in set(keys)
    }
    return list(map(mul, values, map(factor.__getitem__, keys)))
