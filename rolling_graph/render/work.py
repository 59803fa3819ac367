"""The "current work" part of the block: the task in progress with what it touched, other open
tasks, decisions and corrections in force, and the names of the current work by recency.

After a compaction the agent needs, first, what it was doing and what was decided; then the
names it was working with. Lines are dense: a domain is said once per line, no weights, paths
as the project knows them, a few links at most. Superseded items appear only as "(supersedes …)".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rolling_graph.core.model import DOMAINS, HotGraph, Node
from rolling_graph.nlp.bounded import says
from rolling_graph.nlp.text import closed
from rolling_graph.render.in_play import last_parts

MAX_DECISIONS = 8
MAX_AGENT_CORRECTIONS = 3  # the latest: older ones are most likely settled since
MAX_OPEN_TASKS = 6
MAX_DONE = 3
MAX_TASK_FILES = 8
MAX_EDITED = 8
# Labels that are only a common word say nothing on their own ("with", "go", "HEAD").
_COMMON = frozenset(
    """with go head json api ui url id ok yes no all any new old this that the and for from
    into using used use get set run test tests file files code data value type name list map
    error errors true false none null main master branch commit merge push pull diff log
    shadow check update""".split()  # noqa: SIM905
)


def is_noise(node: Node) -> bool:
    """A node whose label is one common word (or empty of letters) and that has no kind of its
    own worth showing: kept in the graph (it links things), left out of the breadth lists."""
    if node.kind in ("task", "decision", "correction", "person", "file"):
        return False
    return _noise_label(node.label) or (node.weight <= 0.02 and node.kind not in ("tool",))


@lru_cache(maxsize=65_536)
def _noise_label(label: str) -> bool:
    # Asked per node on every render; a label's answer never changes.
    label = label.strip()
    return (
        label.lower() in _COMMON
        or not re.search(r"[A-Za-z]", label)
        # A string literal or a code fragment, not a name (an apostrophe inside is prose).
        or re.search(r"\\[ntr]|^[\"'`]|[\"'`]$|[{}]", label) is not None
    )


def recency_order(graph: HotGraph) -> dict[str, int]:
    """Position of each node in the graph's insertion order: within one turn, a later node was
    created later, i.e. more recently (the turn counter alone cannot tell a long autonomous
    turn's first file from its last)."""
    return dict(zip(graph.nodes, range(len(graph.nodes)), strict=True))


def by_recency(graph: HotGraph, nodes: list[Node], order: dict[str, int]) -> list[Node]:
    return sorted(nodes, key=lambda n: (-n.last_activated, -order.get(n.id, 0), -n.weight))


def _attrs_text(node: Node, keys: tuple[str, ...]) -> str:
    attrs = node.attrs or {}
    parts = []
    for key in keys:
        if attrs.get(key):
            parts.append(f"{key.replace('_', ' ')} {attrs[key]}")
    return "; ".join(parts)


def task_line(
    graph: HotGraph,
    task: Node,
    name: Callable[[str], str],
    order: dict[str, int],
    head: str = "Task in progress",
) -> str:
    """ "Task in progress: X (due …; tests …). Files: a (edited 3×), b. Uses: decision." """
    facts = _attrs_text(task, ("due", "tests", "constraint", "constraint_2"))
    text = f"{head}: {name(task.id)}"
    if facts:
        text += f" ({facts})"
    linked = [
        graph.nodes[e.target]
        for e in graph.edges.values()
        if e.source == task.id and e.relationship in ("uses", "part-of") and e.target in graph.nodes
    ]
    linked += [
        graph.nodes[e.source]
        for e in graph.edges.values()
        if e.target == task.id
        and e.relationship in ("part-of", "depends-on", "blocks")
        and e.source in graph.nodes
    ]
    files = [n for n in by_recency(graph, linked, order) if n.kind == "file"][:MAX_TASK_FILES]
    if files:
        text = closed(text) + " Files: " + ", ".join(_file_brief(f) for f in files)
    people = [n for n in linked if n.kind == "person"]
    if people:
        text = closed(text) + " For: " + ", ".join(p.label for p in people[:3])
    others = [
        n for n in by_recency(graph, linked, order) if n.kind in ("decision",) and n not in files
    ][:3]
    if others:
        text = closed(text) + " Uses: " + "; ".join(name(n.id) for n in others)
    return closed(text), [task.id, *(f.id for f in files), *(p.id for p in people[:3])] + [
        n.id for n in others
    ]


def _file_brief(node: Node) -> str:
    attrs = node.attrs or {}
    edits = _edits(node)
    added = attrs.get("added", "")
    bits = []
    if edits:
        bits.append(f"edited {edits}×")
    if added:
        bits.append(f"added {added}")
    return f"{node.label} ({'; '.join(bits)})" if bits else node.label


def edited_line(graph: HotGraph, shown: str) -> tuple[str, list[str]] | None:
    """ "Also edited this session: a/x.go, b/y.py." The files the session changed (most edits
    first) that the block so far (``shown``, lower case) does not name: what a review of the
    session's work will touch, long after the task that edited them."""
    files = [n for n in graph.nodes.values() if n.kind == "file" and _edits(n) > 0]
    files.sort(key=lambda n: (-_edits(n), -n.last_activated, n.id))
    picked: list[Node] = []
    for n in files:
        short = last_parts(n.label)
        base = short.rsplit("/", 1)[-1]
        if says(shown, base.lower()):
            continue
        picked.append(n)
        if len(picked) >= MAX_EDITED:
            break
    if not picked:
        return None
    return "Also edited this session: " + ", ".join(last_parts(n.label) for n in picked) + ".", [
        n.id for n in picked
    ]


def _edits(node: Node) -> int:
    try:
        return int((node.attrs or {}).get("edits", "0") or 0)
    except ValueError:
        return 0


def open_tasks(graph: HotGraph, active: Node | None, retired: set[str]) -> list[Node]:
    return [
        n
        for n in graph.nodes.values()
        if n.kind == "task"
        and n.id not in retired
        and (active is None or n.id != active.id)
        and (n.attrs or {}).get("status") != "completed"
    ]


def last_done(graph: HotGraph, retired: set[str], order: dict[str, int]) -> Node | None:
    """The task finished last: with no task in progress, what the agent was doing just now
    (its files are what the next step needs), said as done."""
    done = by_recency(graph, done_tasks(graph, retired), order)
    return done[0] if done else None


def done_tasks(graph: HotGraph, retired: set[str]) -> list[Node]:
    return [
        n
        for n in graph.nodes.values()
        if n.kind == "task" and n.id not in retired and (n.attrs or {}).get("status") == "completed"
    ]


def decisions(graph: HotGraph, retired: set[str]) -> list[Node]:
    return [
        n
        for n in graph.nodes.values()
        if n.kind in ("decision", "correction", "preference") and n.id not in retired
    ]


def task_brief(node: Node) -> str:
    status = (node.attrs or {}).get("status", "")
    facts = _attrs_text(node, ("due",))
    bits = [s for s in (status.replace("_", " ") if status else "", facts) if s]
    return f"{node.label} ({', '.join(bits)})" if bits else node.label


def domain_lines(
    graph: HotGraph,
    candidates: list[Node],
    name: Callable[[str], str],
    head: str,
    fits: Callable[[list[str]], bool],
    *,
    max_misses: int,
) -> list[tuple[str, list[str]]]:
    """ "<head> (technical): a, b, c." per domain, names in the candidates' order, as many as
    fit."""
    names = {n.id: name(n.id) for n in candidates}
    return fill_groups(
        [n.id for n in candidates],
        lambda n: DOMAINS.index(graph.nodes[n].domain),
        lambda ids: (
            f"{head} ({graph.nodes[ids[0]].domain}): " + ", ".join(names[n] for n in ids) + "."
        ),
        fits,
        max_misses=max_misses,
    )


def fill_groups(
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
