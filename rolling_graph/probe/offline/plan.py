"""The patch the offline probe is building: node ops, then edges, then deferred refreshes,
each deduplicated and kept within the engine's limits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.model import MAX_ALIASES
from rolling_graph.core.slug import normalize_term, slugify
from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline.labels import label_problems, tidy

PROMPT_ID = "offline.v1"  # the rules in this module are the "prompt"; bump when they change

MAX_NEW_NODES = 10
MAX_STRENGTHEN = 10
MAX_DECISIONS = 3
MAX_PAIR_ENTITIES = 4  # co-mention edges among the first N entities of a sentence
RECENT_DECISION_TURNS = 20  # a correction only supersedes a decision this recent
EDGE_ROOM = 16  # ops kept free for edges when node ops pile up
MAX_PROSE_NEW = 12  # recurring names from what the person and the agent wrote, per patch
MAX_PROSE_STRENGTHEN = 16

REDACTED = re.compile(r"\[REDACTED:[^\]]{0,40}\]")


@dataclass
class Plan:
    """The patch being built: node ops first, then edge ops, each deduplicated."""

    req: ProbeRequest
    known: dict[str, str]  # normalized label/alias/id → node id
    node_ops: list[dict[str, Any]] = field(default_factory=list)
    edge_ops: list[dict[str, Any]] = field(default_factory=list)
    new: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → value of nodes we add
    touched: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    decisions: list[str] = field(default_factory=list)  # decisions added/strengthened, in order
    tasks: list[str] = field(default_factory=list)  # tasks the person asked for, in order
    offered: set[str] = field(default_factory=set)  # tasks of the agent's offer this approved
    notes: list[str] = field(default_factory=list)
    deferred: list[dict[str, Any]] = field(default_factory=list)  # boosts, summary refreshes
    n_added: int = 0
    n_strengthened: int = 0

    def defer_boost(self, nid: str, times: int, reason: str) -> None:
        """Extra strengthening for a node seen many times in this window: frequency becomes
        weight through the engine's own step, applied once per op. Deferred: ops are scarce
        (a patch has ``max_ops``), and a name the graph lacks matters more than a heavier one."""
        for _ in range(times):
            self.deferred.append(
                {
                    "op": "replace",
                    "path": f"/nodes/{nid}/weight",
                    "value": "strengthen",
                    "reason": clip(reason, 280),
                }
            )

    def set_summary(self, nid: str, summary: str, reason: str) -> None:
        """A new node carries its summary in the add; an existing one gets a replace."""
        summary = clip(summary, 190)
        if nid in self.new:
            self.new[nid]["summary"] = summary
        elif self.req.node(nid) is not None:
            self.deferred.append(  # a refresh: after new nodes and edges, if there is room
                {
                    "op": "replace",
                    "path": f"/nodes/{nid}/summary",
                    "value": summary,
                    "reason": clip(reason, 280),
                }
            )

    @property
    def existing(self) -> set[str]:
        return {n.id for n in self.req.nodes}

    def exists(self, nid: str) -> bool:
        return nid in self.new or self.req.node(nid) is not None

    def resolve(self, label: str) -> str | None:
        norm = normalize_term(label)
        if norm in self.known:
            return self.known[norm]
        sid = slugify(label)
        return sid if self.exists(sid) else None

    def prompt_of(self, text: str) -> str:
        """The prompt a sentence of the person's belongs to."""
        return next((t.user for t in reversed(self.req.turns) if text[:40] in (t.user or "")), "")

    def node(
        self,
        label: str,
        kind: str,
        domain: str,
        reason: str,
        *,
        summary: str = "",
        aliases: list[str] | None = None,
        cap: int = MAX_NEW_NODES,
        attrs: dict[str, str] | None = None,
    ) -> str | None:
        label = " ".join(label.split())
        if kind == "decision":  # the choice, as a reader trusts it (offline/labels.py)
            label = tidy(label)
            if label_problems(label):
                return None
        if len(label) > 80:
            label = "…" + label[-79:]
        if not normalize_term(label):
            return None
        nid = self.resolve(label)
        if nid is not None:
            self.strengthen(nid, reason, cap=cap)
            if attrs:
                self.set_attrs(nid, attrs, reason)
            return nid
        nid = slugify(label)
        if self.n_added >= cap:
            return None
        value: dict[str, Any] = {"id": nid, "label": label, "domain": domain, "kind": kind}
        if summary:
            value["summary"] = clip(summary, 190)
        if attrs:
            value["attrs"] = {k: clip(v, 80) for k, v in attrs.items() if v}
        clean = [
            a
            for a in dict.fromkeys(" ".join(x.split()) for x in aliases or [])
            if a and a != label and len(a) <= 80
        ]
        if clean:
            value["aliases"] = clean[:MAX_ALIASES]
        self.new[nid] = value
        self.known[normalize_term(label)] = nid
        for a in clean:
            self.known.setdefault(normalize_term(a), nid)
        self.touched.add(nid)
        self.n_added += 1
        self.node_ops.append(
            {"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": clip(reason, 280)}
        )
        return nid

    def decision(self, label: str, reason: str, summary: str) -> str | None:
        """A decision (project domain), added or strengthened, and recorded once in
        :attr:`decisions`."""
        did = self.node(clip(label, 80), "decision", "project", reason, summary=summary)
        if did and did not in self.decisions:
            self.decisions.append(did)
        return did

    def alias(self, nid: str, alias: str, reason: str) -> None:
        """Another name for an existing node ("Review the PR comments together" for the review
        task asked again in other words), within the alias limit."""
        alias = clip(alias, 80)
        if nid in self.new:
            have = self.new[nid].setdefault("aliases", [])
            label = self.new[nid]["label"]
        else:
            view = self.req.node(nid)
            if view is None:
                return
            have, label = list(view.aliases), view.label
            have += [op["value"] for op in self.node_ops if op["path"] == f"/nodes/{nid}/aliases/-"]
        norm = normalize_term(alias)
        if not norm or norm == normalize_term(label) or norm in map(normalize_term, have):
            return
        if len(have) >= MAX_ALIASES:
            return
        if nid in self.new:
            have.append(alias)
            return
        self.node_ops.append(
            {
                "op": "add",
                "path": f"/nodes/{nid}/aliases/-",
                "value": alias,
                "reason": clip(reason, 280),
            }
        )

    def set_attrs(self, nid: str, attrs: dict[str, str], reason: str) -> None:
        """Facts that belong to a node (status, due date, role): merged into what it has."""
        attrs = {k: clip(v, 80) for k, v in attrs.items()}
        if nid in self.new:
            merged = {**self.new[nid].get("attrs", {}), **attrs}
            self.new[nid]["attrs"] = {k: v for k, v in merged.items() if v}
            return
        view = self.req.node(nid)
        if view is None or all((view.attrs or {}).get(k) == v for k, v in attrs.items()):
            return
        self.node_ops.append(
            {
                "op": "replace",
                "path": f"/nodes/{nid}/attrs",
                "value": attrs,
                "reason": clip(reason, 280),
            }
        )

    def strengthen(self, nid: str, reason: str, *, cap: int = MAX_STRENGTHEN) -> None:
        if nid in self.touched:
            return
        if self.n_strengthened >= cap:
            return
        self.touched.add(nid)
        self.n_strengthened += 1
        self.node_ops.append(
            {
                "op": "replace",
                "path": f"/nodes/{nid}/weight",
                "value": "strengthen",
                "reason": clip(reason, 280),
            }
        )

    def edge(
        self, source: str, rel: str, target: str, reason: str, *, symmetric: bool = False
    ) -> None:
        if source == target or rel not in self.req.relationships:
            return
        if symmetric and source > target:
            source, target = target, source
        key = f"{source}|{rel}|{target}"
        if symmetric:
            rev = f"{target}|{rel}|{source}"
            if rev in self.edges or (target, rel, source) in self._live_edges:
                key = rev
        if key in self.edges:
            return
        self.edges.add(key)
        s, r, t = key.split("|")
        self.edge_ops.append(
            {
                "op": "add",
                "path": f"/edges/{key}",
                "value": {"source": s, "relationship": r, "target": t},
                "reason": clip(reason, 280),
            }
        )

    def replaced(self, nid: str) -> bool:
        """Whether ``nid`` already supersedes something (in this patch or the graph)."""
        return any(k.startswith(f"{nid}|supersedes|") for k in self.edges) or any(
            s == nid and r == "supersedes" for s, r, _ in self.req.edges
        )

    @property
    def _live_edges(self) -> set[tuple[str, str, str]]:
        return set(self.req.edges)

    def ops(self) -> list[dict[str, Any]]:
        """Node ops, then the edges whose ends exist, within ``max_ops``."""
        out = list(self.node_ops[: self.req.max_ops])
        kept_new = {op["path"].split("/")[2] for op in out if op["op"] == "add"}
        for op in self.edge_ops:
            if len(out) >= self.req.max_ops:
                break
            v = op["value"]
            if all(
                end in kept_new or self.req.node(end) is not None
                for end in (v["source"], v["target"])
            ):
                out.append(op)
        for op in self.deferred:  # what room is left: boosts and summary refreshes
            if len(out) >= self.req.max_ops:
                break
            nid = op["path"].split("/")[2]
            if nid in kept_new or self.req.node(nid) is not None:
                out.append(op)
        return out


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote(text: str) -> str:
    return "'" + clip(text, 80) + "'"


class _ViewTerms:
    """A node view's terms (its id's, its aliases', its label's), kept while the view and those
    fields are what they were: the runner hands out the same view of an unchanged node to every
    probe (probe.runner.graph_view), and each probe asked for every node's terms again."""

    MAX = 20_000  # views kept (a 10,000-node graph twice over); when full, emptied

    def __init__(self) -> None:
        self.kept: dict[int, tuple[Any, str, str, list[str], tuple[str, tuple[str, ...], str]]]
        self.kept = {}

    def __call__(self, n: Any) -> tuple[str, tuple[str, ...], str]:
        hit = self.kept.get(id(n))
        if (
            hit is None
            or hit[0] is not n
            or hit[1] != n.id
            or hit[2] != n.label
            or hit[3] != n.aliases
        ):
            if len(self.kept) >= self.MAX:
                self.kept.clear()
            terms = (
                normalize_term(n.id.replace("-", " ")),
                tuple(normalize_term(a) for a in n.aliases),
                normalize_term(n.label),
            )
            hit = self.kept[id(n)] = (n, n.id, n.label, list(n.aliases), terms)
        return hit[4]


_terms_of = _ViewTerms()


def known_terms(req: ProbeRequest) -> dict[str, str]:
    known: dict[str, str] = {}
    terms = [(n.id, _terms_of(n)) for n in req.nodes]
    for nid, (of_id, of_aliases, _) in terms:
        known.setdefault(of_id, nid)
        for a in of_aliases:
            known.setdefault(a, nid)
    for nid, (_, _, of_label) in terms:  # labels win over aliases and ids
        known[of_label] = nid
    known.pop("", None)
    return known


def label_of(req: ProbeRequest, nid: str) -> str:
    n = req.node(nid)
    return n.label if n else nid


def kind_of(plan: Plan, req: ProbeRequest, nid: str) -> str | None:
    if nid in plan.new:
        return plan.new[nid].get("kind")
    n = req.node(nid)
    return n.kind if n else None
