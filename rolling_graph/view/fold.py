"""What the view shows first, and where: the story up front, technical detail folded away.

A thousand-node session is mostly identifiers and files (in one real session 91 % of 674
nodes); drawn all at once they are a disc of dots with no readable label. So the first screen
shows the story: decisions, corrections, tasks, questions, people, the focus and the files in
play (the heaviest ones), each labelled; identifiers that are ``part-of`` a file are folded
into that file, and when a domain still has more than ``SHOWN_PER_DOMAIN`` other nodes, the
lightest fold into the domain (one "more" node per domain). Double-clicking a file or a
domain's "more" node unfolds it in place.

Positions are deterministic and cost O(n): each domain is a sunflower disc of its shown nodes,
story nodes at the centre with more room (their labels are long), the four discs in a 2×2
grid; a domain's folded nodes form a second disc beyond it, away from the grid's centre; a
file's folded identifiers sit on a small spiral around the file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rolling_graph.core.model import DOMAINS, HotGraph

GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
SPACING = 34.0  # px between neighbouring nodes on a spiral
STORY_SPACING = 110.0  # story nodes get more room: their labels are shown first
CHILD_SPACING = 14.0  # a file's folded identifiers around it
STORY_KINDS = frozenset({"decision", "correction", "task", "person", "question"})
FILES_IN_PLAY = 12
SHOWN_PER_DOMAIN = 40  # other nodes a domain shows before the lightest fold into it
STORY_PER_DOMAIN = 60  # story nodes likewise: more could not be labelled on one screen
ASPECT = 1.0  # shown discs are this much wider than high: labels are wide, screens too
GRID = (("project", "technical"), ("relationship", "personal"))


@dataclass
class Plan:
    """Per node: ``story`` or not, the file it is folded into, or folded into its domain."""

    story: set[str] = field(default_factory=set)
    parent: dict[str, str] = field(default_factory=dict)
    in_domain: set[str] = field(default_factory=set)


def plan(graph: HotGraph, focus: list[str]) -> Plan:
    nodes = graph.nodes
    files = sorted((n for n in nodes.values() if n.kind == "file"), key=lambda n: (-n.weight, n.id))
    p = Plan(story={n.id for n in nodes.values() if n.kind in STORY_KINDS} | set(focus))
    p.story |= {n.id for n in files[:FILES_IN_PLAY]}
    for e in graph.edges.values():
        child, parent = nodes.get(e.source), nodes.get(e.target)
        if e.relationship != "part-of" or child is None or parent is None or parent.kind != "file":
            continue
        if child.id in p.story or child.kind == "file":
            continue
        old = p.parent.get(child.id)
        if old is None or (parent.weight, old) > (nodes[old].weight, parent.id):
            p.parent[child.id] = parent.id
    fset = set(focus)
    for domain in DOMAINS:
        mine = sorted(
            (n for n in nodes.values() if n.domain == domain and n.id not in p.parent),
            key=lambda n: (n.id not in fset, -n.weight, n.id),
        )
        story = [n.id for n in mine if n.id in p.story]
        rest = [n.id for n in mine if n.id not in p.story]
        # More story than one screen can label: the lightest of it folds too (focus never).
        p.in_domain |= set(story[STORY_PER_DOMAIN:]) | set(rest[SHOWN_PER_DOMAIN:])
    return p


def _spiral(
    ids: list[str],
    centre: tuple[float, float],
    room: dict[str, float],
    pos: dict[str, tuple[float, float]],
    aspect: float = 1.0,
) -> None:
    """A sunflower around ``centre`` where node i gets ``room[i]`` of width, stretched
    ``aspect`` times wider than high."""
    area = 0.0
    for i, nid in enumerate(ids):
        s = room.get(nid, SPACING)
        r = math.sqrt(area + s * s / 2)
        area += s * s
        pos[nid] = (
            round(centre[0] + r * aspect * math.cos(i * GOLDEN_ANGLE), 1),
            round(centre[1] + r / aspect * math.sin(i * GOLDEN_ANGLE), 1),
        )


def _radius(ids: list[str], room: dict[str, float]) -> float:
    return math.sqrt(sum(room.get(i, SPACING) ** 2 for i in ids)) + SPACING / 2


def layout(
    graph: HotGraph, focus: list[str], p: Plan | None = None
) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
    """Positions of every node, and of each domain's "more" node (domains with folded nodes)."""
    p = p or plan(graph, focus)
    fset = set(focus)
    nodes = graph.nodes
    shown: dict[str, list[str]] = {d: [] for d in DOMAINS}
    deep: dict[str, list[str]] = {d: [] for d in DOMAINS}
    for n in nodes.values():
        if n.id not in p.parent:
            (deep if n.id in p.in_domain else shown)[n.domain].append(n.id)
    room = {nid: STORY_SPACING for nid in p.story}
    for d in DOMAINS:
        shown[d].sort(key=lambda i: (i not in p.story, i not in fset, -nodes[i].weight, i))
        deep[d].sort(key=lambda i: (-nodes[i].weight, i))
    radius = {d: _radius(shown[d], room) for d in DOMAINS}
    cols = [max(radius[GRID[0][c]], radius[GRID[1][c]]) * ASPECT for c in (0, 1)]
    rows = [max(radius[GRID[r][0]], radius[GRID[r][1]]) / ASPECT for r in (0, 1)]
    pos: dict[str, tuple[float, float]] = {}
    more: dict[str, tuple[float, float]] = {}
    for r, row in enumerate(GRID):
        for c, domain in enumerate(row):
            cx = (cols[c] + SPACING / 2) * (1 if c else -1)
            cy = (rows[r] + SPACING / 2) * (1 if r else -1)
            _spiral(shown[domain], (cx, cy), room, pos, ASPECT)
            if deep[domain]:
                # Beyond the disc's corner, away from the grid's centre.
                ux, uy = (1 if c else -1) * ASPECT, (1 if r else -1) / ASPECT
                edge = (radius[domain] + SPACING) / math.sqrt(2)
                more[domain] = (round(cx + ux * edge, 1), round(cy + uy * edge, 1))
                far = edge + (SPACING + _radius(deep[domain], {})) / math.sqrt(2)
                _spiral(deep[domain], (cx + ux * far, cy + uy * far), {}, pos)
    _children(p, pos)
    return pos, more


def _children(p: Plan, pos: dict[str, tuple[float, float]]) -> None:
    kids: dict[str, list[str]] = {}
    for child, parent in sorted(p.parent.items()):
        kids.setdefault(parent, []).append(child)
    for parent, ids in kids.items():
        px, py = pos[parent]
        for i, nid in enumerate(ids):
            r = CHILD_SPACING * math.sqrt(i + 1.5)
            a = i * GOLDEN_ANGLE
            pos[nid] = (round(px + r * math.cos(a), 1), round(py + r * math.sin(a), 1))
