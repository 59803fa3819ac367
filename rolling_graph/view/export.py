"""Exporters for ``show --format``: a text tree by domain for terminals, Mermaid for a Markdown
preview (the focus and its neighbours only, so it stays legible), DOT for Graphviz (everything).

Independent of the LOD renderer on purpose: these show the graph as it is, not the budgeted
block the agent gets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rolling_graph.core.decay import focus_cluster
from rolling_graph.core.model import DOMAINS, Edge, HotGraph, Node
from rolling_graph.view.history import History

# One colour per domain, shared by the HTML view, Mermaid and DOT (colour-blind-safe Tableau).
DOMAIN_COLOURS = {
    "project": "#4c78a8",
    "technical": "#54a24b",
    "relationship": "#e45756",
    "personal": "#f58518",
}
SUPERSEDES_COLOUR = "#8e44ad"
MERMAID_MAX_NODES = 30
TREE_LINKS = 6  # edges listed under a node in the text tree


def node_attrs(node: Node) -> dict[str, str]:
    """Optional ``attrs`` (status, due, role…) when the model carries them."""
    attrs = getattr(node, "attrs", None)
    return {str(k): str(v) for k, v in attrs.items()} if isinstance(attrs, dict) else {}


def lookup(graph: HotGraph, name: str) -> str | None:
    """A node id from an id, a label or an alias (case-insensitive), else None."""
    if name in graph.nodes:
        return name
    low = name.strip().lower()
    for n in graph.nodes.values():
        if n.label.lower() == low or low in (a.lower() for a in n.aliases):
            return n.id
    return None


def _links(graph: HotGraph, nid: str) -> list[tuple[str, Edge, str]]:
    """(direction, edge, other id) for every edge of a node, strongest first."""
    out = [("out", e, e.target) for e in graph.edges.values() if e.source == nid]
    out += [("in", e, e.source) for e in graph.edges.values() if e.target == nid]
    out.sort(key=lambda t: (-t[1].strength, t[1].key))
    return out


def _flags(
    graph: HotGraph, node: Node, retired: dict[str, list[str]], focus: set[str]
) -> tuple[str, str]:
    """(focus star, bracketed kind · weight · flags · attributes) for one node."""
    bits = [node.kind or "", f"{node.weight:.2f}"]
    if node.anchor:
        bits.append("anchor")
    if node.id in retired:
        by = ", ".join(graph.nodes[s].label for s in retired[node.id] if s in graph.nodes)
        bits.append(f"superseded by {by}")
    bits += [f"{k}: {v}" for k, v in node_attrs(node).items()]
    star = "* " if node.id in focus else ""
    return star, "[" + " · ".join(b for b in bits if b) + "]"


def text_tree(graph: HotGraph, *, per_domain: int = 40, focus_size: int = 5) -> str:
    """The whole graph as a tree by domain: heaviest first, focus marked ``*``, each node with
    its strongest links; long domains end in a count."""
    focus = focus_cluster(graph, focus_size)
    retired = graph.superseded_by()
    lines = [
        f"session {graph.session_id} · turn {graph.turn} · "
        f"{len(graph.nodes)} nodes, {len(graph.edges)} edges",
        "focus (*): " + (", ".join(graph.nodes[f].label for f in focus) or "none"),
    ]
    for domain in DOMAINS:
        nodes = sorted(
            (n for n in graph.nodes.values() if n.domain == domain),
            key=lambda n: (n.id not in focus, n.id in retired, -n.weight, n.id),
        )
        if not nodes:
            continue
        lines.append(f"{domain} ({len(nodes)})")
        shown = nodes[:per_domain]
        for i, n in enumerate(shown):
            last = i == len(shown) - 1 and len(nodes) <= per_domain
            star, flags = _flags(graph, n, retired, set(focus))
            summary = f" — {n.summary}" if n.summary else ""
            lines.append(f"{'└─' if last else '├─'} {star}{n.label} {flags}{summary}")
            pipe = "   " if last else "│  "
            links = [lk for lk in _links(graph, n.id) if lk[0] == "out"][:TREE_LINKS]
            for _, e, other in links:
                lines.append(f"{pipe}  {e.relationship} → {graph.nodes[other].label}")
        if len(nodes) > per_domain:
            rest = nodes[per_domain:]
            lo, hi = min(n.weight for n in rest), max(n.weight for n in rest)
            lines.append(f"└─ … {len(rest)} more, weight {lo:.2f}–{hi:.2f}")
    if not graph.nodes:
        lines.append("(the graph is empty)")
    return "\n".join(lines)


def text_node(graph: HotGraph, nid: str, history: History | None = None) -> str:
    """One node in full: fields, attributes, every link, and the audit reasons behind it."""
    n = graph.nodes[nid]
    retired = graph.superseded_by()
    focus = set(focus_cluster(graph))
    star, flags = _flags(graph, n, retired, focus)
    lines = [f"{star}{n.label} ({n.id}) {flags}", f"domain: {n.domain}"]
    lines.append(f"last activated: turn {n.last_activated} of {graph.turn}")
    if n.summary:
        lines.append(f"summary: {n.summary}")
    if n.aliases:
        lines.append("aliases: " + ", ".join(n.aliases))
    for k, v in node_attrs(n).items():
        lines.append(f"{k}: {v}")
    links = _links(graph, nid)
    if links:
        lines.append("links:")
    for direction, e, other in links:
        o = graph.nodes[other]
        arrow = f"{e.relationship} →" if direction == "out" else f"← {e.relationship}"
        lines.append(f"  {arrow} {o.label} [{o.domain} · {e.strength:.2f}]")
    changes = history.trimmed("nodes", nid) if history else []
    if changes:
        lines.append("history:")
    for c in changes:
        what = f"{c.op} {c.field}".strip() if c.field else f"{c.op} node"
        src = f" ({c.source})" if c.source else ""
        lines.append(f"  turn {c.turn}: {what}{src}" + (f" — {c.reason}" if c.reason else ""))
    return "\n".join(lines)


def neighbourhood(graph: HotGraph, centre: Iterable[str], limit: int) -> list[str]:
    """The centre nodes and their 1-hop neighbours (strongest edges first), at most ``limit``."""
    picked = list(dict.fromkeys(c for c in centre if c in graph.nodes))
    seeds = set(picked)
    ranked = sorted(
        (e for e in graph.edges.values() if e.source in seeds or e.target in seeds),
        key=lambda e: (-e.strength, e.key),
    )
    for e in ranked:
        for nid in (e.source, e.target):
            if nid not in picked and len(picked) < limit:
                picked.append(nid)
    return picked[:limit]


def _mermaid_label(text: str) -> str:
    # HTML entities: a quote would end the label, "<" would be markup in an HTML label, and
    # Mermaid mangles its own "#…;" codes, so "#" becomes &num; too.
    for raw, entity in (
        ("&", "&amp;"),
        ('"', "&quot;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("#", "&num;"),
    ):
        text = text.replace(raw, entity)
    return text.replace("\n", " ")


def to_mermaid(
    graph: HotGraph, *, centre: list[str] | None = None, limit: int = MERMAID_MAX_NODES
) -> str:
    """A ``flowchart LR`` of the focus (or ``centre``) and its neighbours, coloured by domain;
    supersedes edges dotted with the old decision faded, the focus outlined."""
    focus = focus_cluster(graph)
    ids = neighbourhood(graph, centre or focus, limit)
    alias = {nid: f"n{i}" for i, nid in enumerate(ids)}
    retired = graph.superseded_by()
    lines = ["flowchart LR"]
    for domain, colour in DOMAIN_COLOURS.items():
        lines.append(f"  classDef {domain} fill:{colour},stroke:#333,color:#fff")
    lines.append("  classDef focus stroke:#f2b705,stroke-width:4px")
    lines.append("  classDef superseded opacity:0.45,stroke-dasharray:4 3")
    for nid in ids:
        n = graph.nodes[nid]
        lines.append(f'  {alias[nid]}["{_mermaid_label(n.label)}"]:::{n.domain}')
    for e in sorted(graph.edges.values(), key=lambda e: e.key):
        if e.source in alias and e.target in alias:
            arrow = "-.->" if e.relationship == "supersedes" else "-->"
            lines.append(f'  {alias[e.source]} {arrow}|"{e.relationship}"| {alias[e.target]}')
    in_focus = [alias[f] for f in focus if f in alias]
    if in_focus:
        lines.append(f"  class {','.join(in_focus)} focus")
    old = [alias[r] for r in retired if r in alias]
    if old:
        lines.append(f"  class {','.join(old)} superseded")
    return "\n".join(lines)


def _dot_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_dot(graph: HotGraph) -> str:
    """The whole graph for Graphviz: one cluster per domain, the same visual conventions."""
    focus = set(focus_cluster(graph))
    retired = graph.superseded_by()
    out = [f"digraph {_dot_str('rolling-graph ' + graph.session_id)} {{", "  rankdir=LR;"]
    out.append('  node [shape=box, style="rounded,filled", fontcolor=white, fontname="sans"];')
    for domain in DOMAINS:
        nodes = sorted((n for n in graph.nodes.values() if n.domain == domain), key=lambda n: n.id)
        if not nodes:
            continue
        out.append(f"  subgraph {_dot_str('cluster_' + domain)} {{")
        out.append(f"    label={_dot_str(domain)}; color=gray;")
        for n in nodes:
            attrs: dict[str, Any] = {
                "label": n.label,
                "fillcolor": DOMAIN_COLOURS[n.domain],
                "tooltip": n.summary or n.label,
                "width": f"{0.6 + 1.2 * n.weight:.2f}",
            }
            if n.id in focus:
                attrs.update(penwidth="4", color="#f2b705")
            if n.id in retired:
                attrs.update(style="rounded,filled,dashed", fillcolor="#bbbbbb")
            body = ", ".join(f"{k}={_dot_str(str(v))}" for k, v in attrs.items())
            out.append(f"    {_dot_str(n.id)} [{body}];")
        out.append("  }")
    for e in sorted(graph.edges.values(), key=lambda e: e.key):
        style = f', style=dashed, color="{SUPERSEDES_COLOUR}", penwidth=2'
        extra = style if e.relationship == "supersedes" else ""
        out.append(
            f"  {_dot_str(e.source)} -> {_dot_str(e.target)} [label={_dot_str(e.relationship)}{extra}];"
        )
    out.append("}")
    return "\n".join(out)
