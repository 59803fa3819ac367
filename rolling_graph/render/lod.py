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
measured by :func:`rolling_graph.core.tokens.estimate_tokens`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from rolling_graph.core.decay import focus_cluster, hop_distances
from rolling_graph.core.graph_index import index_of
from rolling_graph.core.model import HotGraph
from rolling_graph.core.slug import normalize_term
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.nlp.bounded import says
from rolling_graph.render.block import Block, Rendered, Renderer
from rolling_graph.render.mentions import find_mentions, overlap
from rolling_graph.render.work import (
    MAX_AGENT_CORRECTIONS,
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

if TYPE_CHECKING:
    from rolling_graph.core.session import HotSession

MAX_NEIGHBOURS = 24
MAX_BREADTH = 120  # names in the "Recent" lines; the budget usually stops it first
IN_PLAY_SHARE = 0.6  # of the budget, at most, for the names of the last turns
_PARTS = re.compile(r"[A-Za-z_][\w-]*")


def ask_line(enabled: bool, notes: bool = False) -> str:
    """What the block's first line adds when the MCP tools are available (with ``notes``,
    when to call ``memory_note``)."""
    if not enabled:
        return ""
    if notes:
        return (
            "(Ask: memory_search for more, memory_expand ID for detail; call memory_note when "
            "the person decides, corrects, assigns a task or sets a deadline.)"
        )
    return "(Ask: memory_search for more, memory_expand ID for detail.)"


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
    for nid, terms in overlap(graph, prompt, b.shown | retired):
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
        # One hop is all the compact block shows: the search need go no deeper.
        _nearby(graph, r, b, order, retired, hop_distances(graph, focus, min(d_max, 1)))
    b.counts(retired)
    body = "\n".join(b.lines)
    return Rendered(body, estimate_tokens(body), b.rendered, focus, mentioned, hints)


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
    return says(low, key)


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
    # Recency ranks first: the newest buckets hold the first MAX_BREADTH candidates.
    rest = index_of(graph).newest_first(
        lambda got: len(got) >= MAX_BREADTH,
        lambda n: (
            n.id not in b.shown and n.id not in b.named and n.id not in retired and not is_noise(n)
        ),
    )
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
    from rolling_graph.observe.observers import active_task

    active = active_task(graph)
    current = active or last_done(graph, retired, order)
    if current is not None and current.id not in b.shown:
        head, why = (
            ("Task in progress", "the task in progress")
            if active
            else ("Last task (done)", "no task in progress: the one finished last")
        )
        text, ids = task_line(graph, current, r.task_name, order, head)
        if not b.add("task", text, why, ids):
            b.add("task", f"{head}: {r.task_name(current.id)}.", why, [current.id])
    in_force = [
        n for n in by_recency(graph, decisions(graph, retired), order) if n.id not in b.shown
    ]
    # What the person said against the agent's own claim replaces no choice: its own line, so
    # that "Decisions in force" holds choices only.
    agent_only = {n.id for n in in_force if r.corrects_only_agent(n.id)}
    of_agent = [n for n in in_force if n.id in agent_only]
    chosen = [n for n in in_force if n.id not in agent_only]
    b.add_list(
        "decision",
        "Decisions in force: ",
        chosen[:MAX_DECISIONS],
        r.name,
        "; ",
        "decided, not superseded",
    )
    b.add_list(
        "decision",
        "Corrects the agent: ",
        of_agent[:MAX_AGENT_CORRECTIONS],
        r.correction_text,
        "; ",
        "the person contradicted what the agent said",
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


def render_session(
    session: HotSession,
    prompt: str = "",
    *,
    budget: int | None = None,
    mentions: list[str] | None = None,
    show_why: bool = False,
) -> Rendered:
    """The block of a hot session with its own parameters (budget, focus size, d_max)."""
    return render(
        session.graph,
        budget=budget or session.params.budget,
        prompt=prompt,
        mentions=mentions,
        focus_size=session.params.decay.focus_size,
        d_max=session.params.decay.d_max,
        show_why=show_why,
    )
