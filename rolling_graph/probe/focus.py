"""What a paid probe is shown of the session: a focused slice of the graph and the recent turns.

Issue 31: the whole bounded graph view (60 nodes with weights) and 12,000 characters of turns
made a call ~4,800 input tokens. The probe judges what the person *said*, so it needs the nodes
it may link to or supersede, not the files and commands the tool events already put there:

- **graph slice**: the focus cluster, the nodes the new turns name (label or alias), the
  decisions and tasks linked to those (what a correction replaces), then the heaviest decisions, tasks, corrections, preferences, people and questions; at most
  :data:`SLICE_NODES`, one short line each (the label only when the id is not its slug), and
  the edges among them;
- **recent turns**: newest first within :data:`RECENT_BUDGET` characters; the person's words
  nearly whole, the agent's text long only where a reply may point at it (the newest two
  turns, and what the agent said before them: "go with option 2", "no, not that"), tool calls
  as a count and the last few.
"""

from __future__ import annotations

from rolling_graph.core.slug import slugify
from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest
from rolling_graph.probe.prompt import clip

SLICE_NODES = 20
SLICE_EDGES = 24
FOCUS_MAX = 8
NAME_MIN = 4  # shorter labels ("UI", "api") match too much text to count as named
JUDGED_KINDS = frozenset({"decision", "task", "correction", "preference", "person", "question"})
RECENT_BUDGET = 4_500
USER_MAX = 1_500
ASSISTANT_NEAR = 900  # the agent's text a reply may point at
ASSISTANT_FAR = 160
TOOLS_SHOWN = 4
TOOL_MAX = 80


def _said(req: ProbeRequest) -> str:
    parts = [req.before]
    for t in req.turns:
        parts += [t.user, t.assistant]
    return "\n".join(p for p in parts if p).lower()


def _named(n: NodeView, said: str) -> bool:
    names = [n.label, *n.aliases]
    return any(len(x) >= NAME_MIN and x.lower() in said for x in names)


def slice_nodes(req: ProbeRequest) -> list[NodeView]:
    """The nodes the probe is shown, in order: focus, named, judged (heaviest first)."""
    said = _said(req)
    by_weight = sorted(req.nodes, key=lambda n: (-n.weight, -n.last_activated, n.id))
    named = [n for n in by_weight if _named(n, said)]
    # the decisions and tasks that use what the turns name: what a correction supersedes
    ids = {n.id for n in named}
    near = {s for s, _, t in req.edges if t in ids} | {t for s, _, t in req.edges if s in ids}
    picked: dict[str, NodeView] = {}
    groups = (
        [n for n in by_weight if n.focus][:FOCUS_MAX],
        named,
        [n for n in by_weight if n.id in near and n.kind in JUDGED_KINDS],
        [n for n in by_weight if n.kind in JUDGED_KINDS and not n.superseded],
    )
    for group in groups:
        for n in group:
            if len(picked) >= SLICE_NODES:
                return list(picked.values())
            picked.setdefault(n.id, n)
    return list(picked.values())


def format_graph_slice(req: ProbeRequest) -> str:
    if not req.nodes:
        return "(empty graph)"
    shown = slice_nodes(req)
    lines = []
    for n in shown:
        line = f"{'*' if n.focus else ' '} {n.id} | {n.kind or '-'} | {n.domain}"
        if slugify(n.label) != n.id:
            line += f" | {n.label}"
        if n.aliases:
            line += f" (aka {', '.join(n.aliases[:2])})"
        lines.append(line + (" [superseded]" if n.superseded else ""))
    if len(req.nodes) > len(shown):
        lines.append(f"  ({len(req.nodes) - len(shown)} more nodes: files, tools, lighter ones)")
    ids = {n.id for n in shown}
    edges = [e for e in req.edges if e[0] in ids and e[2] in ids][:SLICE_EDGES]
    lines.extend(f"  {s} --{r}--> {t}" for s, r, t in edges)
    return "\n".join(lines)


def _turn_block(t: TurnDigest, near: bool) -> str:
    lines = [f"### Turn {t.turn}"]
    if t.user:
        lines.append("User: " + clip(t.user, USER_MAX))
    if t.tools:
        shown = [clip(x, TOOL_MAX) for x in t.tools[-TOOLS_SHOWN:]]
        more = len(t.tools) - len(shown)
        lines.append(f"Tools ({len(t.tools)}): " + "; ".join(shown) + (" …" if more else ""))
    if t.assistant:
        lines.append("Assistant: " + clip(t.assistant, ASSISTANT_NEAR if near else ASSISTANT_FAR))
    return "\n".join(lines)


def format_recent(req: ProbeRequest, budget: int = RECENT_BUDGET) -> str:
    """The turns since the last update, newest first within ``budget`` characters."""
    blocks: list[str] = []
    used = 0
    turns = req.turns
    for i, t in enumerate(reversed(turns)):
        block = _turn_block(t, near=i < 2)
        if blocks and used + len(block) > budget:
            blocks.append(f"({len(turns) - len(blocks)} older turns left out)")
            break
        blocks.append(clip(block, budget))
        used += len(block)
    if req.before and used < budget:
        blocks.append("Before these turns the agent said: " + clip(req.before, ASSISTANT_NEAR))
    return "\n\n".join(reversed(blocks)) or "(no turns)"
