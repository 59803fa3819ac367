"""The self-contained interactive HTML view (``rolling-graph view``).

One file, no network at view time: the vendored Cytoscape.js build, our script and style, and
the graph (nodes, edges, focus, per-element audit history) as inline JSON. Why Cytoscape.js:
one dependency-free file that draws on a 2-D canvas, so it renders the same in a headless
browser without a GPU as on a laptop; with precomputed positions, edges hidden while panning
and labels culled when zoomed out, it stays usable at 5,000 nodes. sigma.js draws faster on
WebGL, but needs graphology besides and a working WebGL context, which headless Chromium
without a GPU does not reliably give.

What is shown first, what is folded and the positions are computed here, not in the browser
(``fold``), so layout costs O(n) and is the same every time. Graphs of up to 300 nodes whose
first screen has more than 12 nodes are then relaxed by a force layout in the page.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any

from rolling_graph.core.decay import focus_cluster
from rolling_graph.core.model import HotGraph
from rolling_graph.view.export import DOMAIN_COLOURS, SUPERSEDES_COLOUR, node_attrs
from rolling_graph.view.fold import layout, plan
from rolling_graph.view.history import History


def _asset(name: str) -> str:
    return (resources.files("rolling_graph.view") / name).read_text(encoding="utf-8")


def graph_payload(
    graph: HotGraph, history: History | None = None, title: str = ""
) -> dict[str, Any]:
    """Everything the page needs, as plain JSON."""
    history = history or History()
    focus = focus_cluster(graph)
    retired = graph.superseded_by()
    folds = plan(graph, focus)
    pos, more = layout(graph, focus, folds)
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
                "story": n.id in folds.story,
                "parent": folds.parent.get(n.id, ""),
                "in_domain": n.id in folds.in_domain,
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
        "more": [{"domain": d, "x": x, "y": y} for d, (x, y) in more.items()],
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
