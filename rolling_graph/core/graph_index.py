"""Derived views of a hot graph that the renderer and decay read on every turn, kept in step
with the graph instead of recomputed from every node.

A patch replaces a node's object whenever one of its fields changes (decay changes weights in
place, and nothing here depends on a weight), so one identity pass over the nodes finds what
changed since the last call; only those are re-indexed. The views:

- nodes by ``last_activated`` (buckets), so "the most recently active N" reads the newest
  buckets rather than ranking every node;
- the words and name phrases of each node's label, aliases and summary, so matching a prompt
  looks only at the nodes that share a word with it;
- node counts per domain;
- the relationships in use, and those between each pair of nodes: edges are never removed and
  new ones are the edge dict's last entries, so these grow with the edge count.

Every answer is the one a pass over the whole graph gives (a property test compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import compress, islice
from operator import is_, is_not
from typing import Any

from rolling_graph.core.model import HotGraph, Node

#: a node's text keys: (its name phrases' first two words, the stems of its name words (empty
#: when its kind does not match by word), the words of its name, of its summary, and the
#: features they came from)
Keys = tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], Any]


class GraphIndex:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] | None = None  # the dict last synced
        self.seen: dict[str, Node] = {}
        self.turns: dict[int, set[str]] = {}
        self.newest: list[int] = []  # bucket turns, newest first
        self.domains: dict[str, int] = {}
        self.keys: dict[str, Keys] = {}
        self.by_first: dict[str, set[str]] = {}
        self.by_stem: dict[str, set[str]] = {}
        self.by_name: dict[str, set[str]] = {}
        self.by_summary: dict[str, set[str]] = {}
        self.keys_of: Callable[[Node], Keys] | None = None
        self.rels_key: tuple[Any, int] | None = None
        self.rels: list[str] = []
        self.rel_set: set[str] = set()
        self.pairs: dict[tuple[str, str], set[str]] = {}

    # -- keeping in step
    def sync(self, graph: HotGraph) -> GraphIndex:
        nodes = graph.nodes
        if nodes is not self.nodes:
            self._reset(nodes)
        seen = self.seen
        # The identity checks run in C (map over builtins): a few hundred microseconds at
        # 10,000 nodes. Unchanged since the last call (the usual case within a turn): done.
        if len(seen) == len(nodes) and all(map(is_, seen.values(), nodes.values())):
            return self
        stale = map(is_not, map(seen.get, nodes.keys()), nodes.values())
        changed = list(compress(nodes.items(), stale))
        if len(seen) + sum(1 for nid, _ in changed if nid not in seen) != len(nodes):
            # A node was removed (the engine never does): start over.
            self._reset(nodes)
            return self.sync(graph)
        new_turns = False
        for nid, node in changed:
            old = seen.get(nid)
            if old is not None:
                self._drop(nid, old)
            seen[nid] = node
            bucket = self.turns.get(node.last_activated)
            if bucket is None:
                bucket = self.turns[node.last_activated] = set()
                new_turns = True
            bucket.add(nid)
            self.domains[node.domain] = self.domains.get(node.domain, 0) + 1
            if self.keys_of is not None:
                self._add_keys(nid, node)
        if new_turns or any(not self.turns.get(t) for t in self.newest):
            self.turns = {t: b for t, b in self.turns.items() if b}
            self.newest = sorted(self.turns, reverse=True)
        # Same order as the graph, so that the next call's fast check can match it.
        self.seen = dict(nodes)
        return self

    def _reset(self, nodes: dict[str, Node]) -> None:
        keys_of = self.keys_of
        self.__init__()  # type: ignore[misc]
        self.nodes, self.keys_of = nodes, keys_of

    def edge_relationships(self, graph: HotGraph) -> list[str]:
        """The relationships in use, supersedes aside, sorted. Edges are never removed and an
        edge's key names its relationship and ends, so the edge count says when to look again."""
        edges, known = graph.edges, self.rels_key
        if known is None or known[0] is not edges or known[1] > len(edges):
            known, self.rel_set, self.rels, self.pairs = (edges, 0), set(), [], {}
        if known[1] < len(edges):
            # New edges are the dict's last ones (an update of an edge keeps its place).
            new = list(islice(reversed(edges.values()), len(edges) - known[1]))
            self.rel_set.update(e.relationship for e in new)
            for e in new:
                self.pairs.setdefault((e.source, e.target), set()).add(e.relationship)
            self.rels = sorted(self.rel_set - {"supersedes"})
            self.rels_key = (edges, len(edges))
        return self.rels

    def edge_pairs(self, graph: HotGraph) -> dict[tuple[str, str], set[str]]:
        """(source, target) → the relationships of the edges between them."""
        self.edge_relationships(graph)
        return self.pairs

    def _drop(self, nid: str, old: Node) -> None:
        self.turns[old.last_activated].discard(nid)
        self.domains[old.domain] -= 1
        keys = self.keys.pop(nid, None)
        if keys is not None:
            for index, words in zip(self._text(), keys[:4], strict=True):
                for w in words:
                    index[w].discard(nid)

    def _text(self) -> tuple[dict[str, set[str]], ...]:
        return (self.by_first, self.by_stem, self.by_name, self.by_summary)

    def _add_keys(self, nid: str, node: Node) -> None:
        assert self.keys_of is not None
        keys = self.keys[nid] = self.keys_of(node)
        for index, words in zip(self._text(), keys[:4], strict=True):
            for w in words:
                index.setdefault(w, set()).add(nid)

    def with_keys(self, graph: HotGraph, keys_of: Callable[[Node], Keys]) -> GraphIndex:
        """Synced, with the text keys built by ``keys_of`` (one builder per index)."""
        if self.keys_of is not keys_of:
            self.keys_of = keys_of
            self.keys.clear()
            self.by_first.clear()
            self.by_stem.clear()
            self.by_name.clear()
            self.by_summary.clear()
            self.sync(graph)
            for nid, node in self.seen.items():
                self._add_keys(nid, node)
            return self
        return self.sync(graph)

    # -- reading
    def newest_first(
        self, enough: Callable[[list[Node]], bool], keep: Callable[[Node], bool]
    ) -> list[Node]:
        """Nodes that ``keep`` accepts, whole ``last_activated`` buckets newest first, until
        ``enough`` of them: a ranking whose first key is recency needs look no further."""
        assert self.nodes is not None
        out: list[Node] = []
        nodes = self.nodes
        for t in self.newest:
            out.extend(n for n in map(nodes.__getitem__, self.turns[t]) if keep(n))
            if enough(out):
                break
        return out

    def candidates(self, index: dict[str, set[str]], words: Iterable[str]) -> Iterator[str]:
        """Ids of the nodes under any of ``words`` in ``index``, each once."""
        out: set[str] = set()
        for w in words:
            hit = index.get(w)
            if hit:
                out |= hit
        return iter(out)


def index_of(graph: HotGraph) -> GraphIndex:
    """The graph's index, brought up to date."""
    idx: Any = graph._index
    if idx is None:
        idx = graph._index = GraphIndex()
    return idx.sync(graph)
