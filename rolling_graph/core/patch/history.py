"""Supersedes is a history, not a cycle: the latest word wins.

"Bento instead of Resend" after "Resend instead of Bento" must not leave each one superseded
by the other (both would vanish from "Decisions in force"). A new ``supersedes`` edge that
would close a cycle replaces the older direction: along the path that leads from its target
back to its source, the edge that says its source was superseded is dropped, until no such
path is left. The rule is written once over plain ``key → (source, target)`` maps, so the
patch engine (probe replies, observers), the warm pull and the resume read all apply it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

from rolling_graph.core.patch.checks import escape

if TYPE_CHECKING:
    from rolling_graph.core.patch.draft import Draft

SUPERSEDES = "supersedes"
K = TypeVar("K")


def _path(pairs: Mapping[K, tuple[str, str]], start: str, goal: str) -> list[K] | None:
    """Edge keys of a shortest path ``start`` → … → ``goal`` (breadth first), or ``None``."""
    out: dict[str, list[K]] = {}
    for key, (s, _t) in pairs.items():
        out.setdefault(s, []).append(key)
    back: dict[str, K | None] = {start: None}
    todo = deque([start])
    while todo:
        at = todo.popleft()
        if at == goal:
            path: list[K] = []
            while (key := back[at]) is not None:
                path.append(key)
                at = pairs[key][0]
            return path[::-1]
        for key in out.get(at, ()):
            nxt = pairs[key][1]
            if nxt not in back:
                back[nxt] = key
                todo.append(nxt)
    return None


def contradicted(pairs: MutableMapping[K, tuple[str, str]], source: str, target: str) -> list[K]:
    """The edges of ``pairs`` a new ``source`` supersedes ``target`` overrules (removed from
    ``pairs`` as they are found): on each path ``target`` → … → ``source``, the last edge,
    which says ``source`` was superseded."""
    dropped: list[K] = []
    while (path := _path(pairs, target, source)) is not None and path:
        old = path[-1]
        del pairs[old]
        dropped.append(old)
    return dropped


def keep_history(
    items: Iterable[Any],
    ends: Callable[[Any], tuple[str, str]],
    newest_first: bool = True,
) -> list[Any]:
    """``items`` (supersedes edges, newest first when ``newest_first``) without the older
    ones that a newer one overrules; the order is kept."""
    ordered = list(items)
    seq = ordered if not newest_first else ordered[::-1]  # oldest first: each later one wins
    pairs: dict[int, tuple[str, str]] = {}
    for i, item in enumerate(seq):
        source, target = ends(item)
        contradicted(pairs, source, target)
        pairs[i] = (source, target)
    kept = [seq[i] for i in sorted(pairs)]
    return kept if not newest_first else kept[::-1]


def closes_cycle(pairs: Mapping[Any, tuple[str, str]], source: str, target: str) -> bool:
    """Whether ``source`` supersedes ``target`` would close a cycle with ``pairs``."""
    return _path(pairs, target, source) is not None


def retire_contradicted(draft: Draft) -> None:
    """Drop, in the draft, the supersedes edges that its new ones overrule (engine-owned
    ``remove`` ops, audited with the rest, so a rebuild drops them too)."""
    new = [k for k in draft.new_edges if draft.edges[k]["relationship"] == SUPERSEDES]
    if not new:
        return
    pairs: dict[str, tuple[str, str]] = {
        k: (e.source, e.target)
        for k, e in draft.graph.edges.items()
        if e.relationship == SUPERSEDES
    }
    for key in new:  # in op order: a later op of the same patch is the later word
        source, target = draft.edges[key]["source"], draft.edges[key]["target"]
        for old in contradicted(pairs, source, target):
            _drop(draft, old)
        pairs[key] = (source, target)


def _drop(draft: Draft, key: str) -> None:
    draft.edge(key)  # drafted, so that commit finds it to remove
    draft.ops.append({"op": "remove", "path": f"/edges/{escape(key)}"})
    draft.removed.append(key)
    if key in draft.new_edges:
        draft.new_edges.remove(key)
