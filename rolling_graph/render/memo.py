"""The last block rendered for a graph, given back while nothing the render reads has changed.

Most tool events inside a turn change nothing the block shows (a read, a search, a command whose
digest adds no node), yet each asks for the block again to see whether it changed. A render
reads the graph's turn, its nodes (in order: the order is the recency clock) and edges, and its
arguments. A patch replaces every node or edge object it changes, and decay changes weights and
strengths in place, so the graph is unchanged exactly when the same objects are there in the
same order with the same weights and strengths: that is what is compared (C-speed identity
maps, about 0.1 ms at 10,000 nodes), never a guess from counts or a version someone must bump.
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import attrgetter, is_
from typing import Any

_WEIGHT = attrgetter("weight")
_STRENGTH = attrgetter("strength")


class RenderMemo:
    """One remembered render: the graph's state when it was made, its arguments, the result.

    The result is shared, so callers read it and never change it (as for any render)."""

    __slots__ = ("_graph", "_turn", "_nodes", "_weights", "_edges", "_strengths", "_args", "_out")

    def __init__(self) -> None:
        self._graph: Any = None
        self._turn = -1
        self._nodes: list[Any] = []
        self._weights: list[float] = []
        self._edges: list[Any] = []
        self._strengths: list[float] = []
        self._args: Hashable = None
        self._out: Any = None

    def get(self, graph: Any, args: Hashable) -> Any:
        """The remembered render when ``graph`` and ``args`` are as they were, else None."""
        if self._out is None or graph is not self._graph or graph.turn != self._turn:
            return None
        if args != self._args or not self._same(graph):
            return None
        return self._out

    def put(self, graph: Any, args: Hashable, rendered: Any) -> None:
        nodes, edges = list(graph.nodes.values()), list(graph.edges.values())
        self._graph, self._turn, self._args, self._out = graph, graph.turn, args, rendered
        self._nodes, self._weights = nodes, list(map(_WEIGHT, nodes))
        self._edges, self._strengths = edges, list(map(_STRENGTH, edges))

    def _same(self, graph: Any) -> bool:
        nodes, edges = graph.nodes, graph.edges
        return (
            len(nodes) == len(self._nodes)
            and len(edges) == len(self._edges)
            and all(map(is_, nodes.values(), self._nodes))
            and all(map(is_, edges.values(), self._edges))
            and list(map(_WEIGHT, self._nodes)) == self._weights
            and list(map(_STRENGTH, self._edges)) == self._strengths
        )
