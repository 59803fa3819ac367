"""What a prompt says of the graph: the nodes it names (a mention snaps that branch to full
detail) and the out-of-focus nodes it shares words with (a one-line hint), read through the
graph's word index (DESIGN §5)."""

from __future__ import annotations

import heapq
import re
from collections import Counter
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter, neg

from rolling_graph.core.graph_index import GraphIndex, Keys, index_of
from rolling_graph.core.model import HotGraph, Node
from rolling_graph.core.slug import normalize_term

MAX_HINTS = 3

_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_STOP = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "just",
        "more",
        "most",
        "must",
        "other",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "would",
        "your",
        "yours",
        "make",
        "made",
        "need",
        "needs",
        "want",
        "wants",
        "like",
        "using",
        "used",
        "file",
        "files",
        "code",
        "work",
        "works",
        "thing",
        "things",
        "please",
    ]
)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _STOP}


@dataclass(frozen=True)
class _Features:
    names: tuple[str, ...]  # normalized label and aliases, padded with spaces for phrase search
    name_words: frozenset[str]
    summary_words: frozenset[str]


def _features(node: Node) -> _Features:
    names = tuple(
        f" {n} " for n in (normalize_term(t) for t in (node.label, *node.aliases)) if len(n) >= 3
    )
    return _Features(
        names,
        frozenset(content_words(" ".join((node.label, *node.aliases)))),
        frozenset(content_words(node.summary or "")),
    )


_SUBJECT_KINDS = ("decision", "correction", "task", "person")


def _stem(word: str) -> str:
    for suf in ("ing", "es", "s", "e", "ed"):
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            return word[: -len(suf)]
    return word


def _keys(node: Node) -> Keys:
    feats = _features(node)
    stems = (
        frozenset(_stem(w) for w in feats.name_words)
        if node.kind in _SUBJECT_KINDS
        else frozenset()
    )
    return (
        frozenset(_phrase_key(name.split()) for name in feats.names),
        stems,
        feats.name_words,
        feats.summary_words,
        feats,
    )


def _phrase_key(words: list[str]) -> str:
    # A name is found as a phrase only where its first two words stand side by side.
    return " ".join(words[:2])


def _text_index(graph: HotGraph) -> GraphIndex:
    return index_of(graph).with_keys(graph, _keys)


def find_mentions(graph: HotGraph, prompt: str) -> list[str]:
    """Nodes whose label or an alias appears in the prompt as a whole phrase; and decisions,
    tasks and people one of whose label's content words the prompt uses ("which cache
    backend?" names the cache decision)."""
    if not prompt:
        return []
    hay = f" {normalize_term(prompt)} "
    words = {_stem(w) for w in content_words(prompt)}
    retired = set(graph.superseded_by())
    found, by_word = [], []
    # Only nodes that share a word with the prompt can match (the index finds them).
    idx = _text_index(graph)
    toks = hay.split()
    pairs = [*toks, *(f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False))]
    for nid in idx.candidates(idx.by_first, pairs):
        if any(name in hay for name in idx.keys[nid][4].names):
            found.append(nid)
    named = set(found)
    for nid in idx.candidates(idx.by_stem, words):
        if nid not in named and nid not in retired:
            by_word.append(nid)
    by_word.sort(key=lambda nid: (-graph.nodes[nid].last_activated, -graph.nodes[nid].weight, nid))
    return sorted(found + by_word[:3], key=lambda nid: (-graph.nodes[nid].weight, nid))


def overlap(graph: HotGraph, prompt: str, exclude: set[str]) -> list[tuple[str, list[str]]]:
    words = content_words(prompt)
    if not words:
        return []
    idx = _text_index(graph)
    # Score = 2 per name word + 1 per summary word the prompt uses. A common word can hit
    # thousands of nodes: the counting, filtering and ranking below run in C (map, compress).
    score, in_summary, named = Counter[str](), Counter[str](), set[str]()
    for w in words:
        in_name = idx.by_name.get(w, ())
        score.update(in_name)
        score.update(in_name)
        score.update(idx.by_summary.get(w, ()))
        in_summary.update(idx.by_summary.get(w, ()))
        named.update(in_name)
    # Lower bar than a mention: one significant word of the name, or two of the summary.
    twice = compress(in_summary.keys(), map((2).__le__, in_summary.values()))
    hit = list((named | set(twice)) - exclude)
    scores = list(map(score.__getitem__, hit))
    nodes = graph.nodes
    best: list[str] = []
    for level in sorted(set(scores), reverse=True):  # the best scores first
        if len(best) >= MAX_HINTS:
            break
        ids = list(compress(hit, map(level.__eq__, scores)))
        weights = map(neg, map(attrgetter("weight"), map(nodes.__getitem__, ids)))
        best.extend(
            nid for _, nid in heapq.nsmallest(MAX_HINTS - len(best), zip(weights, ids, strict=True))
        )
    out = []
    for nid in best:
        feats = idx.keys[nid][4]
        out.append((nid, sorted(words & feats.name_words or words & feats.summary_words)))
    return out
