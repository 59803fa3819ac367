"""A synthetic session graph of any size with the mix of a real one, for the view's tests and
``bench/view.py``; and the probe that counts the labels a person can read on the first screen.

The mix follows a real session replayed with the offline probe (oh-my-posh, 674 nodes: 67 %
identifiers ``part-of`` a file, 24 % files, 2 % commands, 3 % concepts, 3 % decisions, tasks
and corrections), with a few people, questions and personal notes added, as sessions with a
person in them have.
"""

from __future__ import annotations

import random
from typing import Any

from rolling_graph.core.model import Edge, HotGraph, Node
from rolling_graph.view.history import Change, History

# per 1,000 nodes: (domain, kind, how many); identifiers take the rest
MIX: tuple[tuple[str, str, int], ...] = (
    ("project", "decision", 12),
    ("project", "correction", 4),
    ("project", "task", 12),
    ("relationship", "person", 5),
    ("project", "question", 3),
    ("personal", "preference", 3),
    ("technical", "file", 200),
    ("technical", "tool", 30),
    ("technical", "concept", 40),
    ("project", "concept", 30),
    ("relationship", "entity", 8),
    ("personal", "concept", 8),
)
STORY_KINDS = ("decision", "correction", "task", "person")
WORDS = ("queue", "billing", "login", "schema", "deploy", "cache", "retry", "webhook", "invoice")
WORDS += ("search", "export", "token", "email", "parser", "render", "config", "report", "audit")
PEOPLE = ("Dana", "Priya", "Tomás", "Aiko", "Lena", "Marcus", "Ines", "Kofi", "Yara", "Sven")
VERBS = ("Use", "Keep", "Move", "Drop", "Split", "Cache", "Retry", "Pin", "Batch", "Log")
TODO = ("Fix", "Add", "Write", "Port", "Speed up", "Clean up", "Document", "Test")


def _label(kind: str, i: int, rnd: random.Random) -> str:
    w, v = rnd.choice(WORDS), rnd.choice(WORDS)
    if kind == "decision":
        return f"{rnd.choice(VERBS)} {w} for the {v} ({i})"
    if kind == "correction":
        return f"Not {w}: {v} instead ({i})"
    if kind == "task":
        return f"{rnd.choice(TODO)} the {w} {v} ({i})"
    if kind == "person":
        return f"{PEOPLE[i % len(PEOPLE)]} {chr(65 + i // len(PEOPLE) % 26)}."
    if kind == "file":
        return f"src/{w}/{v}_{i}.py"
    if kind == "tool":
        return f"pytest -k {w}{i}"
    if kind == "identifier":
        return f"{w}_{v}_{i}()"
    return f"{w.capitalize()} {v} {i}"


def story_graph(n: int, seed: int = 11, turns: int = 100) -> tuple[HotGraph, History]:
    """``n`` nodes in the real mix, about 1.1 edges per node, born over ``turns`` turns."""
    rnd = random.Random(seed)
    plan: list[tuple[str, str]] = []
    for domain, kind, per in MIX:
        plan += [(domain, kind)] * max(1 if kind in STORY_KINDS else 0, round(per * n / 1000))
    plan = plan[:n] + [("technical", "identifier")] * max(0, n - len(plan))
    rnd.shuffle(plan)
    nodes: dict[str, Node] = {}
    by_kind: dict[str, list[str]] = {}
    for i, (domain, kind) in enumerate(plan):
        story = kind in STORY_KINDS
        weight = rnd.uniform(0.3, 1.0) if story else rnd.random() ** 2
        attrs = {"status": rnd.choice(["in_progress", "done", "todo"])} if kind == "task" else None
        nodes[f"n{i}"] = Node(
            id=f"n{i}",
            label=_label(kind, i, rnd),
            domain=domain,  # type: ignore[arg-type]
            kind=None if kind == "identifier" else kind,  # type: ignore[arg-type]
            weight=round(weight, 3),
            last_activated=rnd.randrange(turns),
            summary=f"what the session said about {kind} {i}" if i % 3 == 0 else None,
            attrs=attrs,
        )
        by_kind.setdefault(kind, []).append(f"n{i}")
    g = HotGraph(session_id=f"story-{n}", turn=turns, nodes=nodes)
    _link(g, by_kind, rnd)
    return g, _history(g, turns)


def _link(g: HotGraph, by_kind: dict[str, list[str]], rnd: random.Random) -> None:
    def edge(a: str, rel: str, b: str) -> None:
        if a != b:
            e = Edge(source=a, target=b, relationship=rel, strength=round(rnd.random(), 3))
            g.edges[e.key] = e

    files = by_kind.get("file", [])
    hubs = files[: max(1, len(files) // 5)]  # a few files hold most identifiers, as in a session
    for nid in by_kind.get("identifier", []):
        if files:
            edge(nid, "part-of", rnd.choice(hubs if rnd.random() < 0.6 else files))
        if rnd.random() < 0.4:
            edge(nid, "relates-to", rnd.choice(by_kind["identifier"]))
    for nid in by_kind.get("task", []) + by_kind.get("decision", []):
        for f in rnd.sample(files, min(2, len(files))):
            edge(nid, "uses", f)
    for nid in by_kind.get("person", []):
        for t in rnd.sample(by_kind.get("decision", []), min(2, len(by_kind.get("decision", [])))):
            edge(nid, "informs", t)
    for nid, old in zip(
        by_kind.get("correction", []), by_kind.get("decision", [])[::3], strict=False
    ):
        edge(nid, "supersedes", old)
    for kind in ("tool", "concept"):
        for nid in by_kind.get(kind, []):
            if files:
                edge(nid, "relates-to", rnd.choice(files))


def _history(g: HotGraph, turns: int) -> History:
    hist = History(last_turn=turns)
    n = len(g.nodes)
    for i, nid in enumerate(g.nodes):
        hist.nodes[nid] = [Change(i * turns // n, "add", "", "bench", "bench")]
    for key, e in g.edges.items():
        born = max(hist.born("nodes", e.source), hist.born("nodes", e.target))
        hist.edges[key] = [Change(born, "add", "", "bench", "bench")]
    return hist


# Read from Cytoscape itself, not from the page's own bookkeeping: a label counts when Cytoscape
# draws it (label text, shown element, rendered size at or above min-zoomed-font-size), its
# rendered font size (font-size × zoom) is at least the threshold, its box lies on the canvas,
# and it overlaps no other drawn label.
LEGIBLE_JS = """((minPx) => {
  const cy = rgView.cy, z = cy.zoom(), W = cy.width(), H = cy.height();
  const drawn = [];
  cy.nodes().forEach(n => {
    if (!n.visible() || n.style('display') === 'none') return;
    const text = n.style('label');
    if (!text) return;
    const px = parseFloat(n.style('font-size')) * z;
    if (px < parseFloat(n.style('min-zoomed-font-size'))) return;  // Cytoscape skips it
    if (parseFloat(n.style('text-opacity')) * parseFloat(n.style('opacity')) < 0.5) return;
    const b = n.renderedBoundingBox({ includeNodes: false, includeEdges: false,
                                     includeLabels: true, includeOverlays: false });
    if (!(b.w > 0 && b.h > 0) || b.x1 < 0 || b.y1 < 0 || b.x2 > W || b.y2 > H) return;
    drawn.push({ id: n.id(), text: text, px: px, b: b });
  });
  const hit = (a, b) => a.x1 < b.x2 - 1 && b.x1 < a.x2 - 1 && a.y1 < b.y2 - 1 && b.y1 < a.y2 - 1;
  return drawn.filter(d => d.px >= minPx && !drawn.some(o => o !== d && hit(d.b, o.b)))
              .map(d => ({ id: d.id, text: d.text, px: Math.round(d.px * 10) / 10 }));
})"""


def legible_labels(page: Any, min_px: float = 10.0) -> list[dict[str, Any]]:
    """The node labels readable on screen as the page is now (see ``LEGIBLE_JS``)."""
    return page.eval(f"{LEGIBLE_JS}({min_px})")
