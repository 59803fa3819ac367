"""Level-of-detail rendering of the hot graph (DESIGN §5).

Focus cluster in full; its 1-hop neighbours as labels grouped by domain and weight band (those
that a focus item already names in its links are not repeated); then, in the full
(``breadth=True``) block, the remaining nodes most recently active and heaviest as brief items,
grouped by domain, until the budget is spent; everything left as counts per domain with a
weight range. The full block is what SessionStart injects (the agent has just lost its
context); per-prompt injections ask for the compact one (``breadth=False``), since they repeat
every time the block changes. A node named in the prompt snaps its branch to full
detail; a node that only shares significant words with the prompt earns a one-line hint.
A superseded decision is shown only as "X (supersedes Y)" unless it is named explicitly.
The output is deterministic and phrased as plain statements of fact, within a token budget
measured by :func:`rolling_graph.tokens.estimate_tokens`.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.decay import focus_cluster, hop_distances
from rolling_graph.model import DOMAINS, HotGraph, Node
from rolling_graph.slug import normalize_term
from rolling_graph.tokens import estimate_tokens

HARD_CHAR_CAP = 9_000  # Claude Code keeps 10,000 characters of additionalContext whole
MAX_LINKS = 6
MAX_HINTS = 3
MAX_NEIGHBOURS = 24
MAX_BREADTH = 120  # brief items in the "Also in play" lines; the budget usually stops it first
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


@dataclass
class RenderItem:
    """One surfaced piece of the graph and why it is there."""

    section: str  # focus | mention | neighbour | hint | breadth | count
    text: str
    why: str
    node_ids: list[str] = field(default_factory=list)


@dataclass
class Rendered:
    text: str
    tokens: int
    items: list[RenderItem]
    focus: list[str]
    mentioned: list[str]
    hints: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "focus": self.focus,
            "mentioned": self.mentioned,
            "hints": self.hints,
            "items": [item.__dict__ for item in self.items],
        }


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


def find_mentions(graph: HotGraph, prompt: str) -> list[str]:
    """Nodes whose label or an alias appears in the prompt as a whole phrase."""
    if not prompt:
        return []
    hay = f" {normalize_term(prompt)} "
    found = []
    for node, feats in graph.text_features(_features):
        if any(name in hay for name in feats.names):
            found.append(node.id)
    return sorted(found, key=lambda nid: (-graph.nodes[nid].weight, nid))


def _overlap(graph: HotGraph, prompt: str, exclude: set[str]) -> list[tuple[str, list[str]]]:
    words = content_words(prompt)
    if not words:
        return []
    scored = []
    for node, feats in graph.text_features(_features):
        if node.id in exclude:
            continue
        name_hit = words & feats.name_words
        summary_hit = words & feats.summary_words
        # Lower bar than a mention: one significant word of the name, or two of the summary.
        if name_hit or len(summary_hit) >= 2:
            scored.append(
                (
                    -(len(name_hit) * 2 + len(summary_hit)),
                    -node.weight,
                    node.id,
                    name_hit or summary_hit,
                )
            )
    best = heapq.nsmallest(MAX_HINTS, scored, key=lambda t: t[:3])
    return [(nid, sorted(terms)) for _, _, nid, terms in best]


class _Renderer:
    def __init__(self, graph: HotGraph, show_why: bool) -> None:
        self.g = graph
        self.show_why = show_why
        self.superseded_by = graph.superseded_by()
        supersedes: dict[str, list[str]] = {}
        for old, news in self.superseded_by.items():
            for new in news:
                supersedes.setdefault(new, []).append(old)
        self.supersedes = supersedes
        self.adj = graph.nx_graph().adj
        self.relationships = sorted({e.relationship for e in graph.edges.values()} - {"supersedes"})

    def incident(self, nid: str) -> list[Any]:
        """Edges touching ``nid`` (except supersedes), found through the adjacency index and
        edge keys rather than by scanning every edge."""
        rels = self.relationships
        out = []
        for nb in self.adj.get(nid, ()):
            for rel in rels:
                for key in (f"{nid}|{rel}|{nb}", f"{nb}|{rel}|{nid}"):
                    e = self.g.edges.get(key)
                    if e is not None:
                        out.append(e)
        return out

    def name(self, nid: str) -> str:
        node = self.g.nodes[nid]
        olds = sorted(o for o in self.supersedes.get(nid, []) if o in self.g.nodes)
        if olds:
            return f"{node.label} (supersedes {', '.join(self.g.nodes[o].label for o in olds)})"
        return node.label

    def link_items(self, nid: str) -> list[tuple[str, str]]:
        """(text, other node id) of the strongest links of ``nid``."""
        out = []
        for e in self.incident(nid):
            if e.source == nid and e.target not in self.superseded_by:
                out.append(
                    (e.strength, f"{e.relationship} {self.g.nodes[e.target].label}", e.target)
                )
            elif e.target == nid and e.source not in self.superseded_by:
                out.append(
                    (e.strength, f"{self.g.nodes[e.source].label} {e.relationship} it", e.source)
                )
        out.sort(key=lambda t: (-t[0], t[1]))
        return [(text, other) for _, text, other in out[:MAX_LINKS]]

    def links(self, nid: str) -> list[str]:
        return [text for text, _ in self.link_items(nid)]

    def full(self, nid: str, *, compact: bool = False) -> str:
        node: Node = self.g.nodes[nid]
        if nid in self.superseded_by:
            news = ", ".join(sorted(self.g.nodes[n].label for n in self.superseded_by[nid]))
            head = f"{node.label} (superseded by {news})"
        else:
            head = self.name(nid)
        meta = ", ".join(p for p in (node.domain, node.kind, f"weight {node.weight:.2f}") if p)
        text = f"- {head} [{meta}]"
        if node.summary and not compact:
            text += f": {node.summary.rstrip('.')}."
        if not compact:
            links = self.links(nid)
            if links:
                text += " Links: " + "; ".join(links) + "."
        return text

    def brief(self, nid: str) -> str:
        node = self.g.nodes[nid]
        return f"{self.name(nid)} ({node.domain}, {node.weight:.2f})"

    def briefer(self, nid: str) -> str:
        """Label and weight only: the domain is said once, in the line's head."""
        return f"{self.name(nid)} ({self.g.nodes[nid].weight:.2f})"

    def with_why(self, text: str, why: str) -> str:
        return f"{text} (why: {why})" if self.show_why else text


def ask_line(enabled: bool) -> str:
    """What the block's first line adds when the MCP tools are available."""
    return "(Ask: memory_search for more, memory_expand ID for detail.)" if enabled else ""


def render(
    graph: HotGraph,
    *,
    budget: int = 800,
    prompt: str = "",
    mentions: list[str] | None = None,
    focus_size: int = 5,
    d_max: int = 4,
    show_why: bool = False,
    breadth: bool = True,
    ask: str = "",
) -> Rendered:
    """Render the LOD block for ``graph`` within ``budget`` tokens (never over the char cap).

    ``breadth=False`` gives the compact block (focus, mentions, hints, neighbours, counts) for
    per-prompt injections; the default also spends what budget is left on the most recently
    active remaining nodes, as brief items (what SessionStart and the CLI show)."""
    if not graph.nodes:
        return Rendered("", 0, [], [], [], [])
    r = _Renderer(graph, show_why)
    focus = [n for n in focus_cluster(graph, focus_size) if n not in r.superseded_by]
    mentioned = sorted(
        set(mentions or []) | set(find_mentions(graph, prompt)),
        key=lambda n: (-graph.nodes[n].weight, n),
    )
    mentioned = [m for m in mentioned if m in graph.nodes]
    dist = hop_distances(graph, focus, d_max)
    adj = graph.nx_graph().adj

    if graph.turn == 0:
        # Nothing happened in this session yet: everything here was carried over (warm pull).
        header = f"Rolling memory from earlier sessions of this project ({len(graph.nodes)} items). Facts carried over, most relevant first:"
    else:
        header = f"Rolling memory of this session (turn {graph.turn}, {len(graph.nodes)} items). Current facts, most relevant first:"
    header = f"{header} {ask}" if ask else header  # the agent can ask for more (MCP tools)
    lines: list[str] = [header]
    used = estimate_tokens(header) + 1
    items: list[RenderItem] = []
    shown: set[str] = set()
    reserve = 70  # room for the counts line, which is always last

    def fits(text: str) -> bool:
        return (
            used + estimate_tokens(text) + 1 <= budget - reserve
            and sum(len(x) + 1 for x in lines) + len(text) < HARD_CHAR_CAP
        )

    def add(section: str, text: str, why: str, ids: list[str]) -> bool:
        nonlocal used
        text = r.with_why(text, why)
        if not fits(text):
            return False
        lines.append(text)
        used += estimate_tokens(text) + 1
        items.append(RenderItem(section, text, why, ids))
        shown.update(ids)
        return True

    named: set[str] = set()  # named in a full item's links: their label is in the block

    def add_full(section: str, nid: str, why: str) -> None:
        if nid in shown:
            return
        if add(section, r.full(nid), why, [nid]):
            named.update(other for _, other in r.link_items(nid))
        else:
            add(section, r.full(nid, compact=True), why, [nid])

    for nid in mentioned:
        add_full("mention", nid, "named in the prompt")
    for nid in focus:
        add_full("focus", nid, "focus: most recently active")
    # The branch of a mentioned node snaps to full detail too, after the focus.
    for nid in mentioned:
        for nb in sorted(adj.get(nid, ()), key=lambda n: (-graph.nodes[n].weight, n)):
            if nb not in r.superseded_by:
                add_full("mention", nb, f"branch of {graph.nodes[nid].label}, named in the prompt")

    hints = []
    for nid, terms in _overlap(graph, prompt, shown | set(r.superseded_by)):
        text = f"Related, not in focus: {r.name(nid)} ({graph.nodes[nid].domain}); ask to expand."
        if add(
            "hint", text, f"shares {', '.join(repr(t) for t in terms[:3])} with the prompt", [nid]
        ):
            hints.append(nid)

    # A neighbour a focus item already names in its links is not listed again.
    neighbours = sorted(
        (
            n
            for n, d in dist.items()
            if d == 1 and n not in shown and n not in named and n not in r.superseded_by
        ),
        key=lambda n: (-graph.nodes[n].weight, n),
    )[:MAX_NEIGHBOURS]

    def fits_lines(texts: list[str], why: str) -> bool:
        """Whether these lines, added one by one with ``add`` (with ``why``), would all fit."""
        texts = [r.with_why(t, why) for t in texts]
        return (
            used + sum(estimate_tokens(t) + 1 for t in texts) <= budget - reserve
            and sum(len(x) + 1 for x in lines) + sum(len(t) + 1 for t in texts) < HARD_CHAR_CAP
        )

    # One line per domain and weight band ("Nearby (technical, weight 0.50–0.62): a, b.") so
    # that domain and weight are said once rather than for every item: labels carry the facts.
    why_nb = "one hop from the focus"
    names = {n: r.name(n) for n in neighbours}
    groups = _fill_groups(
        neighbours,
        lambda n: _band(graph, n),
        lambda ids: (
            f"Nearby ({graph.nodes[ids[0]].domain}, {_weight_span(graph, ids)}): "
            + ", ".join(names[n] for n in ids)
            + "."
        ),
        lambda texts: fits_lines(texts, why_nb),
        max_misses=1,
    )
    for text, ids in groups:
        add("neighbour", text, why_nb, ids)

    if breadth:
        _add_breadth(graph, r, shown | named, fits_lines, add)

    rest: dict[str, list[float]] = {}
    for nid, node in graph.nodes.items():
        if nid not in shown and nid not in named and nid not in r.superseded_by:
            rest.setdefault(node.domain, []).append(node.weight)
    if rest:
        parts = [
            f"{len(ws)} in {dom} (weight {min(ws):.2f}–{max(ws):.2f})"
            for dom in DOMAINS
            if (ws := rest.get(dom))
        ]
        text = r.with_why(
            "Also known, not shown: " + "; ".join(parts) + ".",
            "farther from the focus, or over the budget",
        )
        lines.append(text)
        used += estimate_tokens(text) + 1
        items.append(RenderItem("count", text, "farther from the focus, or over the budget", []))
    body = "\n".join(lines)
    return Rendered(body, estimate_tokens(body), items, focus, mentioned, hints)


def _fill_groups(
    candidates: list[str],
    key_of: Callable[[str], Any],
    line_of: Callable[[list[str]], str],
    fits_lines: Callable[[list[str]], bool],
    *,
    max_misses: int,
) -> list[tuple[str, list[str]]]:
    """Greedily put candidates (best first) into grouped lines while all lines still fit; only
    the line of the group that grows is rebuilt. Returns (line, ids) in key order."""
    groups: dict[Any, list[str]] = {}
    texts: dict[Any, str] = {}
    misses = 0
    for nid in candidates:
        key = key_of(nid)
        ids = [*groups.get(key, []), nid]
        text = line_of(ids)
        trial = {**texts, key: text}
        if not fits_lines([trial[k] for k in sorted(trial)]):
            misses += 1
            if misses >= max_misses:
                break
            continue
        groups[key], texts[key] = ids, text
    return [(texts[k], groups[k]) for k in sorted(groups)]


def _band(graph: HotGraph, nid: str) -> tuple[int, int]:
    """Domain, then weight band (heaviest first): a line's head gives the band's range."""
    node = graph.nodes[nid]
    return (DOMAINS.index(node.domain), -min(4, int(node.weight * 5)))


def _weight_span(graph: HotGraph, ids: list[str]) -> str:
    ws = [graph.nodes[n].weight for n in ids]
    lo, hi = min(ws), max(ws)
    return f"weight {lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"weight {lo:.2f}–{hi:.2f}"


def _add_breadth(
    graph: HotGraph,
    r: _Renderer,
    shown: set[str],
    fits_lines: Callable[[list[str], str], bool],
    add: Callable[[str, str, str, list[str]], bool],
) -> None:
    """The "Also in play (<domain>, weight 0.40–0.55): a, b, c." lines: the remaining nodes,
    most recently activated first, then heaviest, as long as the budget allows, grouped by
    domain and weight band so that each item costs little more than its label. Why: after a
    compaction the agent needs breadth (the names of what it was working with) more than
    counts; the focus and its neighbours alone leave most of the budget unused."""
    ranked = heapq.nsmallest(
        MAX_BREADTH,
        (n for n in graph.nodes.values() if n.id not in shown and n.id not in r.superseded_by),
        # Recency first, then weight. A blend (weight + λ·e^(−Δt/τ)) was measured on the shared
        # transcripts' boundaries and cuts and recovered slightly less (bench/recovery.py): the
        # work after a cut mostly continues the latest topics, and weight already leads
        # within a turn.
        key=lambda n: (-n.last_activated, -n.weight, n.id),
    )
    why = "recently active, outside the focus"
    names = {n.id: r.name(n.id) for n in ranked}

    def line(ids: list[str]) -> str:
        head = f"Also in play ({graph.nodes[ids[0]].domain}, {_weight_span(graph, ids)}): "
        return head + ", ".join(names[n] for n in ids) + "."

    groups = _fill_groups(
        [n.id for n in ranked],
        lambda n: _band(graph, n),
        line,
        lambda texts: fits_lines(texts, why),
        max_misses=3,  # a few long labels may not fit where shorter ones still do
    )
    for text, ids in groups:
        add("breadth", text, why, ids)
