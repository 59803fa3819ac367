"""The self-contained interactive HTML view (``rolling-graph view``).

One file, no network at view time: the vendored Cytoscape.js build, our script and style, and
the graph (nodes, edges, focus, per-element audit history) as inline JSON. Why Cytoscape.js:
one dependency-free file that draws on a 2-D canvas, so it renders the same in a headless
browser without a GPU as on a laptop; with precomputed positions, edges hidden while panning
and labels culled when zoomed out, it stays usable at 5,000 nodes. sigma.js draws faster on
WebGL, but needs graphology besides and a working WebGL context, which headless Chromium
without a GPU does not reliably give.

Positions are computed here, not in the browser: each domain is a disc of nodes laid out on a
sunflower spiral, heaviest at the centre, so layout costs O(n) and is the same every time.
Small graphs (≤ 300 nodes) are then relaxed by a force layout in the page.
"""

from __future__ import annotations

import html
import json
import math
import re
from importlib import resources
from typing import Any

from rolling_graph.core.decay import focus_cluster
from rolling_graph.core.model import DOMAINS, HotGraph
from rolling_graph.view.export import DOMAIN_COLOURS, SUPERSEDES_COLOUR, node_attrs
from rolling_graph.view.history import History

GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
SPACING = 34.0  # px between neighbouring nodes on a spiral


def _asset(name: str) -> str:
    return (resources.files("rolling_graph.view") / name).read_text(encoding="utf-8")


def layout(graph: HotGraph, focus: list[str]) -> dict[str, tuple[float, float]]:
    """Deterministic positions: one sunflower disc per domain, discs around a circle."""
    by_domain: dict[str, list[str]] = {d: [] for d in DOMAINS}
    for n in graph.nodes.values():
        by_domain[n.domain].append(n.id)
    fset = set(focus)
    radii = {d: SPACING * math.sqrt(len(ids) + 1) for d, ids in by_domain.items()}
    ring = max(radii.values()) * 1.25 + SPACING
    pos: dict[str, tuple[float, float]] = {}
    for k, domain in enumerate(DOMAINS):
        ids = sorted(
            by_domain[domain],
            key=lambda i: (i not in fset, -graph.nodes[i].weight, i),
        )
        angle = k * math.pi / 2 + math.pi / 4
        cx, cy = ring * math.cos(angle), ring * math.sin(angle)
        for i, nid in enumerate(ids):
            r = SPACING * math.sqrt(i + 0.5)
            pos[nid] = (
                round(cx + r * math.cos(i * GOLDEN_ANGLE), 1),
                round(cy + r * math.sin(i * GOLDEN_ANGLE), 1),
            )
    return pos


def graph_payload(
    graph: HotGraph, history: History | None = None, title: str = ""
) -> dict[str, Any]:
    """Everything the page needs, as plain JSON."""
    history = history or History()
    focus = focus_cluster(graph)
    retired = graph.superseded_by()
    pos = layout(graph, focus)
    nodes = []
    for n in graph.nodes.values():
        x, y = pos[n.id]
        nodes.append(
            {
                "id": n.id,
                "label": n.label,
                "domain": n.domain,
                "kind": n.kind or "",
                "weight": round(n.weight, 3),
                "summary": n.summary or "",
                "aliases": list(n.aliases),
                "anchor": n.anchor,
                "attrs": node_attrs(n),
                "last_activated": n.last_activated,
                "born": history.born("nodes", n.id),
                "superseded_by": retired.get(n.id, []),
                "history": [c.as_dict() for c in history.trimmed("nodes", n.id)],
                "x": x,
                "y": y,
            }
        )
    edges = [
        {
            "id": e.key,
            "source": e.source,
            "target": e.target,
            "relationship": e.relationship,
            "strength": round(e.strength, 3),
            "born": history.born("edges", e.key),
            "history": [c.as_dict() for c in history.trimmed("edges", e.key)],
        }
        for e in graph.edges.values()
    ]
    last = max([graph.turn, history.last_turn, *(n["born"] for n in nodes)], default=0)
    return {
        "title": title or f"session {graph.session_id}",
        "session_id": graph.session_id,
        "turn": last,
        "focus": focus,
        "colours": {**DOMAIN_COLOURS, "supersedes": SUPERSEDES_COLOUR},
        "nodes": nodes,
        "edges": edges,
    }


def _inline_json(data: Any) -> str:
    # "</" would end the <script> element early; "<\/" is the same string to JSON.parse.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def _inline_js(source: str) -> str:
    return source.replace("</script", "<\\/script")


def render_html(graph: HotGraph, history: History | None = None, title: str = "") -> str:
    """The whole page as one string."""
    payload = graph_payload(graph, history, title)
    page = _asset("template.html")
    parts = {
        "{{TITLE}}": html.escape(f"rolling-graph · {payload['title']}"),
        "{{STYLE}}": _asset("app.css"),
        "{{CYTOSCAPE}}": _inline_js(_asset("vendor/cytoscape.min.js")),
        "{{DATA}}": _inline_json(payload),
        "{{APP}}": _inline_js(_asset("app.js")),
    }
    # One pass, so that text inside one part (the library, the data) is never taken for a slot.
    return re.sub(r"\{\{[A-Z]+\}\}", lambda m: parts.get(m.group(0), m.group(0)), page)
