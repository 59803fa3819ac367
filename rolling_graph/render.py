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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rolling_graph.decay import focus_cluster, hop_distances
from rolling_graph.model import HotGraph, Node
from rolling_graph.render_block import Block, Rendered, Renderer
from rolling_graph.render_work import (
    MAX_DECISIONS,
    MAX_DONE,
    MAX_OPEN_TASKS,
    by_recency,
    decisions,
    domain_lines,
    done_tasks,
    edited_line,
    is_noise,
    last_done,
    open_tasks,
    recency_order,
    task_brief,
    task_line,
)
from rolling_graph.slug import normalize_term
from rolling_graph.tokens import estimate_tokens

MAX_HINTS = 3
MAX_NEIGHBOURS = 24
MAX_BREADTH = 120  # names in the "Recent" lines; the budget usually stops it first
IN_PLAY_SHARE = 0.6  # of the budget, at most, for the names of the last turns
_PARTS = re.compile(r"[A-Za-z_][\w-]*")
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
    for node, feats in graph.text_features(_features):
        if any(name in hay for name in feats.names):
            found.append(node.id)
        elif (
            node.kind in _SUBJECT_KINDS
            and node.id not in retired
            and words & {_stem(w) for w in feats.name_words}
        ):
            by_word.append(node.id)
    by_word.sort(key=lambda nid: (-graph.nodes[nid].last_activated, -graph.nodes[nid].weight, nid))
    return sorted(found + by_word[:3], key=lambda nid: (-graph.nodes[nid].weight, nid))


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
    in_play: Sequence[str] = (),
) -> Rendered:
    """Render the LOD block for ``graph`` within ``budget`` tokens (never over the char cap).

    Current work first (the task in progress with its files, decisions and corrections in
    force, open tasks), then the focus in full, mentions and hints, neighbours; ``breadth``
    (SessionStart, compaction, the CLI) also spends what budget is left on the names of the
    current work by recency, after ``in_play`` (the names of the last turns, newest first: what
    the block does not show yet). ``breadth=False`` is the compact per-prompt block."""
    if not graph.nodes:
        return Rendered("", 0, [], [], [], [])
    r = Renderer(graph, show_why)
    b = Block(graph, r, budget, ask)
    retired = set(r.superseded_by)
    order = recency_order(graph)
    # Tasks and decisions have their own lines (current work first): the focus in full is what
    # else was touched most recently.
    focus = [
        n
        for n in focus_cluster(graph, focus_size + 12)
        if n not in retired
        and not is_noise(graph.nodes[n])
        and graph.nodes[n].kind not in ("task", "decision", "correction")
    ][:focus_size]
    mentioned = sorted(
        set(mentions or []) | set(find_mentions(graph, prompt)),
        key=lambda n: (-graph.nodes[n].weight, n),
    )
    mentioned = [m for m in mentioned if m in graph.nodes]
    for nid in mentioned:
        b.add_full("mention", nid, "named in the prompt")
    _work(graph, r, b, order, retired, breadth)
    for nid in focus:
        b.add_full("focus", nid, "focus: most recently active")
    # The branch of a mentioned node snaps to full detail too, after the focus.
    adj = graph.nx_graph().adj
    for nid in mentioned:
        for nb in sorted(adj.get(nid, ()), key=lambda n: (-graph.nodes[n].weight, n)):
            if nb not in retired:
                b.add_full(
                    "mention", nb, f"branch of {graph.nodes[nid].label}, named in the prompt"
                )
    hints = []
    for nid, terms in _overlap(graph, prompt, b.shown | retired):
        shared = ", ".join(terms[:2])
        text = f"Related ({shared}): {r.name(nid)} ({graph.nodes[nid].domain}); ask to expand."
        if b.add(
            "hint", text, f"shares {', '.join(repr(t) for t in terms[:3])} with the prompt", [nid]
        ):
            hints.append(nid)
    if breadth:
        edited = edited_line(graph, b.text_lower())
        if edited:
            b.add("edited", edited[0], "edited this session, not shown above", edited[1])
        _in_play(graph, b, in_play)
        _breadth(graph, r, b, order, retired)
    else:
        _nearby(graph, r, b, order, retired, hop_distances(graph, focus, d_max))
    b.counts(retired)
    body = "\n".join(b.lines)
    return Rendered(body, estimate_tokens(body), b.items, focus, mentioned, hints)


def _nearby(
    graph: HotGraph,
    r: Renderer,
    b: Block,
    order: dict[str, int],
    retired: set[str],
    dist: dict[str, int],
) -> None:
    """The compact block's one-hop neighbours of the focus, by domain, newest first."""
    neighbours = [
        graph.nodes[n]
        for n, d in dist.items()
        if d == 1
        and n not in b.shown
        and n not in b.named
        and n not in retired
        and not is_noise(graph.nodes[n])
    ]
    neighbours = by_recency(graph, neighbours, order)[:MAX_NEIGHBOURS]
    why = "one hop from the focus"
    fits = lambda t: b.fits_lines(t, why)  # noqa: E731
    for text, ids in domain_lines(graph, neighbours, r.name, "Nearby", fits, max_misses=1):
        b.add("neighbour", text, why, ids)


def _says(low: str, key: str) -> bool:
    return key in low and bool(re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", low))


def _covered(name: str, low: str) -> bool:
    """Every part of ``name`` that is a name itself (not a plain lower-case word) is already
    shown: "Enum.take(@max_rows)" after "Enum" and "max_rows", "line.user_id" after "user_id"."""
    parts = [p.lower() for p in _PARTS.findall(name) if not (p.isalpha() and p.islower())]
    return bool(parts) and all(_says(low, p) for p in parts)


def unsaid_names(
    names: Iterable[str], said: str, head: str, fits: Callable[[str], bool]
) -> list[str]:
    """``names`` in order that ``said`` does not say (nor all their parts), each once, while the
    line ``head`` + their list + "." still ``fits``."""
    low = said.lower()
    picked: list[str] = []
    for name in names:
        name = name.strip()
        key = name.lower()
        if not key or _says(low, key) or _covered(name, low):
            continue
        if not fits(head + ", ".join([*picked, name]) + "."):
            break
        picked.append(name)
        low += "\n" + key
    return picked


def _in_play(graph: HotGraph, b: Block, names: Sequence[str]) -> None:
    """The names the last turns used that the block does not show yet (nor all their parts),
    newest first, within :data:`IN_PLAY_SHARE` of the budget; nodes so named are not listed
    again below."""
    if not names:
        return
    head, why = "Last in play before this (newest first): ", "named in the last turns"
    cap = int(b.budget * IN_PLAY_SHARE)
    picked = unsaid_names(
        names, b.text_lower(), head, lambda t: estimate_tokens(t) <= cap and b.fits(t)
    )
    if not picked:
        return
    said_here = {normalize_term(n) for n in picked}
    ids = [n.id for n in graph.nodes.values() if normalize_term(n.label) in said_here]
    b.add("in_play", head + ", ".join(picked) + ".", why, [])
    b.named.update(ids)


def _breadth(
    graph: HotGraph, r: Renderer, b: Block, order: dict[str, int], retired: set[str]
) -> None:
    """The full block's names of the current work by last touch, until the budget is spent."""
    rest = [
        n
        for n in graph.nodes.values()
        if n.id not in b.shown and n.id not in b.named and n.id not in retired and not is_noise(n)
    ]
    why = "recently active, outside the focus"
    for text, ids in domain_lines(
        graph,
        by_recency(graph, rest, order)[:MAX_BREADTH],
        r.name,
        "Recent",
        lambda t: b.fits_lines(t, why),
        max_misses=4,  # a few long labels may not fit where shorter ones still do
    ):
        b.add("breadth", text, why, ids)


def _work(
    graph: HotGraph,
    r: Renderer,
    b: Block,
    order: dict[str, int],
    retired: set[str],
    breadth: bool,
) -> None:
    """Task in progress, decisions and corrections in force, open (and, in the full block,
    recently finished) tasks: each a line, each as long as the budget allows."""
    from rolling_graph.observers import active_task

    active = active_task(graph)
    current = active or last_done(graph, retired, order)
    if current is not None and current.id not in b.shown:
        head, why = (
            ("Task in progress", "the task in progress")
            if active
            else ("Last task (done)", "no task in progress: the one finished last")
        )
        text, ids = task_line(graph, current, r.name, order, head)
        if not b.add("task", text, why, ids):
            b.add("task", f"{head}: {r.name(current.id)}.", why, [current.id])
    in_force = [
        n for n in by_recency(graph, decisions(graph, retired), order) if n.id not in b.shown
    ]
    b.add_list(
        "decision",
        "Decisions in force: ",
        in_force[:MAX_DECISIONS],
        r.name,
        "; ",
        "decided, not superseded",
    )
    waiting = by_recency(graph, open_tasks(graph, active, retired), order)
    waiting = [n for n in waiting if n.id not in b.shown][:MAX_OPEN_TASKS]
    b.add_list(
        "task",
        "Open tasks: ",
        waiting,
        lambda nid: task_brief(graph.nodes[nid]),
        "; ",
        "asked for, not done",
    )
    if breadth:
        done = [
            n for n in by_recency(graph, done_tasks(graph, retired), order) if n.id not in b.shown
        ]
        b.add_list(
            "task",
            "Done: ",
            done[:MAX_DONE],
            lambda nid: graph.nodes[nid].label,
            "; ",
            "finished tasks",
        )
