"""A block being filled: its lines within the token budget and the character cap, and what each
surfaced item is and why it is there."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.agent_claims import CORRECTS_AGENT, corrects_agent, said_by_agent
from rolling_graph.core.graph_index import index_of
from rolling_graph.core.model import DOMAINS, HotGraph, Node
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.nlp.text import closed

HARD_CHAR_CAP = 9_000  # Claude Code keeps 10,000 characters of additionalContext whole
MAX_LINKS = 3  # a few links say where an item sits; more repeat what other lines list


@dataclass
class RenderItem:
    """One surfaced piece of the graph and why it is there."""

    section: str  # focus | mention | neighbour | hint | breadth | count
    text: str
    why: str
    node_ids: list[str] = field(default_factory=list)


@dataclass
class Rendered:
    text: str
    tokens: int
    items: list[RenderItem]
    focus: list[str]
    mentioned: list[str]
    hints: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "focus": self.focus,
            "mentioned": self.mentioned,
            "hints": self.hints,
            "items": [item.__dict__ for item in self.items],
        }


class Lines:
    """Lines being filled within a character limit, and the node ids and names they hold.

    The resume block (``render.resume``) fills one of these as it is; :class:`Block` adds the
    token budget, the graph's header and why each item is there.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit  # characters
        self.lines: list[str] = []
        self.shown: set[str] = set()  # node ids
        self.names: set[str] = set()  # lower-cased names already in the block
        self._chars, self._counted = 0, 0

    def chars(self) -> int:
        """Characters of the lines so far, with their newlines (counted once per new line)."""
        if self._counted != len(self.lines):
            self._chars = sum(len(x) + 1 for x in self.lines)
            self._counted = len(self.lines)
        return self._chars

    def room(self) -> int:
        return self.limit - self.chars()

    def line(self, text: str) -> bool:
        if len(text) + 1 > self.room():
            return False
        self.lines.append(text)
        return True

    def items(self, head: str, items: Iterable[tuple[str, str]], *, sep: str = ", ") -> int:
        """One line ``head item, item, ….`` with as many (id, text) items as fit; the count."""
        parts: list[str] = []
        used = len(head) + 2
        for nid, text in items:
            text = text.rstrip(". ")  # the line ends with its own full stop
            key = text.lower()
            if nid in self.shown or not text or key in self.names:
                continue
            cost = len(text) + len(sep)
            if used + cost > self.room():
                if cost > 40:
                    continue  # a long one may not fit where shorter ones still do
                break
            parts.append(text)
            used += cost
            self.shown.add(nid)
            self.names.add(key)
        if parts:
            self.lines.append(closed(head + " " + sep.join(parts)))
        return len(parts)


class Block(Lines):
    """The lines of a block being filled within the token budget and the character cap."""

    # Room for the counts line, which is always last: four domains' counts take under 30
    # tokens; its "why" (``--why``) about 15 more.
    RESERVE = 30
    RESERVE_WHY = 15

    def __init__(self, graph: HotGraph, r: Any, budget: int, ask: str = "") -> None:
        self.g, self.r, self.budget = graph, r, budget
        if graph.turn == 0:
            # Nothing happened in this session yet: everything here was carried over.
            header = f"Rolling memory from earlier sessions of this project ({len(graph.nodes)} items). Facts carried over, most relevant first:"
        else:
            header = f"Rolling memory of this session (turn {graph.turn}, {len(graph.nodes)} items). Current work first:"
        header = f"{header} {ask}" if ask else header  # the agent can ask for more (MCP tools)
        super().__init__(HARD_CHAR_CAP)
        self.reserve = self.RESERVE + (self.RESERVE_WHY if r.show_why else 0)
        self.lines.append(header)
        self.used = estimate_tokens(header) + 1
        self.rendered: list[RenderItem] = []
        self.named: set[str] = set()  # named in a full item's links: their label is in the block

    def text_lower(self) -> str:
        return "\n".join(self.lines).lower()

    def fits(self, text: str) -> bool:
        return (
            self.used + estimate_tokens(text) + 1 <= self.budget - self.reserve
            and self.chars() + len(text) < self.limit
        )

    def fits_lines(self, texts: list[str], why: str) -> bool:
        texts = [self.r.with_why(t, why) for t in texts]
        return (
            self.used + sum(estimate_tokens(t) + 1 for t in texts) <= self.budget - self.reserve
            and self.chars() + sum(len(t) + 1 for t in texts) < self.limit
        )

    def add(self, section: str, text: str, why: str, ids: list[str]) -> bool:
        text = self.r.with_why(text, why)
        if not self.fits(text):
            return False
        self.lines.append(text)
        self.used += estimate_tokens(text) + 1
        self.rendered.append(RenderItem(section, text, why, ids))
        self.shown.update(ids)
        return True

    def add_full(self, section: str, nid: str, why: str) -> None:
        if nid in self.shown:
            return
        if self.add(section, self.r.full(nid), why, [nid]):
            self.named.update(other for _, other in self.r.link_items(nid))
        else:
            self.add(section, self.r.full(nid, compact=True), why, [nid])

    def add_list(
        self,
        section: str,
        head: str,
        nodes: list[Node],
        name: Callable[[str], str],
        sep: str,
        why: str,
    ) -> None:
        """One line, ``head`` then as many of ``nodes`` as fit."""
        ids: list[str] = []
        said = ""  # the names taken so far, joined (each name is made once)
        for n in nodes:
            trial = f"{said}{sep}{name(n.id)}" if ids else name(n.id)
            if self.fits(self.r.with_why(closed(head + trial), why)):
                ids.append(n.id)
                said = trial
        if ids:
            self.add(section, closed(head + said), why, ids)

    def counts(self, retired: set[str]) -> None:
        # The nodes per domain, less those shown, named or retired: no pass over the graph.
        rest = dict(index_of(self.g).domains)
        nodes = self.g.nodes
        for nid in self.shown | self.named | retired:
            if nid in nodes:
                rest[nodes[nid].domain] -= 1
        parts = [f"{n} in {dom}" for dom in DOMAINS if (n := rest.get(dom, 0))]
        if not parts:
            return
        why = "farther from the focus, or over the budget"
        text = self.r.with_why("Also known, not shown: " + "; ".join(parts) + ".", why)
        self.lines.append(text)
        self.used += estimate_tokens(text) + 1
        self.rendered.append(RenderItem("count", text, why, []))


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Renderer:
    def __init__(self, graph: HotGraph, show_why: bool) -> None:
        self.g = graph
        self.show_why = show_why
        self.superseded_by = graph.superseded_by()
        supersedes: dict[str, list[str]] = {}
        for old, news in self.superseded_by.items():
            for new in news:
                supersedes.setdefault(new, []).append(old)
        self.supersedes = supersedes
        self.adj = graph.nx_graph().adj
        self.relationships = index_of(graph).edge_relationships(graph)
        self.pairs = index_of(graph).edge_pairs(graph)
        self._links: dict[str, list[tuple[str, str]]] = {}

    def incident(self, nid: str) -> list[Any]:
        """Edges touching ``nid`` (except supersedes), found through the adjacency index and
        edge keys rather than by scanning every edge."""
        rels, pairs, edges = self.relationships, self.pairs, self.g.edges
        out = []
        for nb in self.adj.get(nid, ()):
            # The relationships each way between the two, so no key is built in vain.
            out_rels, in_rels = pairs.get((nid, nb), ()), pairs.get((nb, nid), ())
            for rel in rels:
                if rel in out_rels:
                    out.append(edges[f"{nid}|{rel}|{nb}"])
                if rel in in_rels:
                    out.append(edges[f"{nb}|{rel}|{nid}"])
        return out

    def _replaced(self, nid: str) -> tuple[list[str], list[str]]:
        """What ``nid`` supersedes: (choices or things, claims the agent made)."""
        olds = sorted(o for o in self.supersedes.get(nid, []) if o in self.g.nodes)
        said = [o for o in olds if said_by_agent(self.g.nodes[o].attrs)]
        return [o for o in olds if o not in said], said

    def corrects_only_agent(self, nid: str) -> bool:
        """The person contradicted what the agent said, and replaced no choice: a correction
        of the agent, not a decision."""
        olds, said = self._replaced(nid)
        return bool(said) and not olds

    def correction_text(self, nid: str) -> str:
        """What the person said instead of the agent's claim (the "Corrects the agent" line)."""
        return corrects_agent(self.g.nodes[nid].label).removeprefix(CORRECTS_AGENT)

    def name(self, nid: str) -> str:
        node = self.g.nodes[nid]
        olds, said = self._replaced(nid)
        if said and not olds:
            # What the agent said stays out: the block's room goes to the work (the harness's
            # summary still has the claim); the resume block, across sessions, says it.
            return corrects_agent(node.label)
        text = node.label
        if olds:
            # What was replaced, briefly: the label of the new item carries the fact.
            old = ", ".join(clip(self.g.nodes[o].label, 32) for o in olds[:2])
            text += f" (supersedes {old})"
        if said:  # also replaces something the agent said
            text += " (corrects the agent)"
        return text

    def task_name(self, nid: str) -> str:
        """A task on its line: the work first ("Examine the English translations (corrects the
        agent)"), where :meth:`name` would open with "corrects the agent: " for a request that
        contradicted only what the agent said."""
        if self.corrects_only_agent(nid):
            return f"{self.g.nodes[nid].label} (corrects the agent)"
        return self.name(nid)

    def short(self, nid: str) -> str:
        """A linked item's name: a file by its base name (the full path is in its own line)."""
        node = self.g.nodes[nid]
        if node.kind == "file" and "/" in node.label.rstrip("/"):
            return node.label.rstrip("/").rsplit("/", 1)[-1]
        return clip(node.label, 60)

    def link_items(self, nid: str) -> list[tuple[str, str]]:
        """(text, other node id) of the strongest links of ``nid`` (asked twice per full item:
        kept for the render, during which the graph does not change)."""
        hit = self._links.get(nid)
        if hit is None:
            hit = self._links[nid] = self._link_items(nid)
        return list(hit)

    def _link_items(self, nid: str) -> list[tuple[str, str]]:
        out = []
        for e in self.incident(nid):
            if e.source == nid and e.target not in self.superseded_by:
                out.append((e.strength, f"{e.relationship} {self.short(e.target)}", e.target))
            elif e.target == nid and e.source not in self.superseded_by:
                out.append((e.strength, f"{self.short(e.source)} {e.relationship} it", e.source))
        out.sort(key=lambda t: (-t[0], t[1]))
        return [(text, other) for _, text, other in out[:MAX_LINKS]]

    def links(self, nid: str) -> list[str]:
        return [text for text, _ in self.link_items(nid)]

    def full(self, nid: str, *, compact: bool = False) -> str:
        node: Node = self.g.nodes[nid]
        if nid in self.superseded_by:
            news = ", ".join(sorted(self.g.nodes[n].label for n in self.superseded_by[nid]))
            head = f"{node.label} (superseded by {news})"
        else:
            head = self.name(nid)
        # Domain and kind only: a weight says nothing the agent can use, and costs tokens a line.
        meta = ", ".join(p for p in (node.domain, node.kind) if p)
        text = f"- {head} [{meta}]"
        if node.summary and not compact:
            text += f": {node.summary.rstrip('.')}."
        if not compact:
            links = self.links(nid)
            if links:
                text += " Links: " + "; ".join(links) + "."
        return text

    def with_why(self, text: str, why: str) -> str:
        return f"{text} (why: {why})" if self.show_why else text
