"""Patches from what a model in the loop wrote: the harness's compaction summary and the
agent's ``memory_note`` calls (issue 28).

Both go through the offline probe's patch builder (:class:`~rolling_graph.probe.offline.plan.Plan`)
and then the patch engine, like any probe reply; what they add is merged with the graph first:
a task or decision the graph already holds (most of its meaning words) is strengthened, and
gets the new wording as an alias, or as its label where the graph's label is worse (clipped,
or one word). A decision is written only by the caller that checked it against the person's
words (:mod:`rolling_graph.privacy.injection`); otherwise it becomes an agent's claim, a concept that
never reads as a decision in force.
"""

from __future__ import annotations

from typing import Any

from rolling_graph.privacy.injection import meaning_words
from rolling_graph.probe.offline.labels import label_problems, shortened, tidy
from rolling_graph.probe.offline.plan import Plan, clip, known_terms

SIMILAR = 0.6  # share of the smaller word set two labels must have in common to be one item
CLAIM_HEAD = "Agent's claim: "
DECISIONS = ("decision", "correction", "preference")


def _open(view: Any) -> bool:
    return not view.superseded and (view.attrs or {}).get("status") != "completed"


class Writes:
    """One patch of model-written memory for ``graph``, from ``source`` ("summary", "agent")."""

    def __init__(self, graph: Any, source: str, *, max_ops: int = 64) -> None:
        from rolling_graph.probe.base import ProbeRequest
        from rolling_graph.probe.runner import graph_view

        nodes, edges = graph_view(graph)
        req = ProbeRequest(
            session_id=graph.session_id,
            turn=graph.turn,
            turns=[],
            nodes=nodes,
            edges=edges,
            max_ops=max_ops,
        )
        self.plan = Plan(req, known_terms(req))
        self.graph = graph
        self.source = source
        self.added: dict[str, list[str]] = {"task": [], "decision": [], "person": [], "claim": []}
        self.merged: list[str] = []
        self._words: dict[str, set[str]] = {}

    # -- lookups
    def similar(self, text: str, kinds: tuple[str, ...], but: str = "") -> str | None:
        """An open node of ``kinds`` (other than ``but``) that says most of what ``text`` says."""
        want = meaning_words(text)
        if not want:
            return None
        best, score = None, 0.0
        for view in self.plan.req.nodes:
            if view.kind not in kinds or not _open(view) or view.id == but:
                continue
            have = self._words.get(view.id)
            if have is None:  # cached: one patch compares many items with the same nodes
                have = self._words[view.id] = meaning_words(" ".join([view.label, *view.aliases]))
            common = len(want & have)
            if common < min(2, len(want)) or not have:
                continue
            s = common / min(len(want), len(have))
            if s > score:
                best, score = view.id, s
        for nid, value in self.plan.new.items():  # what this patch added already
            if value.get("kind") in kinds:
                have = meaning_words(value["label"])
                if have and len(want & have) / min(len(want), len(have)) >= SIMILAR:
                    return nid
        return best if score >= SIMILAR else None

    def _merge(self, nid: str, wording: str, reason: str) -> None:
        """The graph holds it: strengthen, and keep the new wording (label where worse)."""
        plan = self.plan
        plan.strengthen(nid, reason)
        view = plan.req.node(nid)
        wording = clip(wording, 80)
        worse = view is not None and (
            view.label.endswith("…") or len(meaning_words(view.label)) < 2
        )
        if worse and len(meaning_words(wording)) >= 2 and not wording.endswith("…"):
            plan.node_ops.append(
                {
                    "op": "replace",
                    "path": f"/nodes/{nid}/label",
                    "value": wording,
                    "reason": clip(f"a better wording from the {self.source}", 280),
                }
            )
            self.merged.append(nid)
            return
        plan.alias(nid, wording, reason)
        self.merged.append(nid)

    # -- writes
    def task(self, label: str, status: str, reason: str, due: str | None = None) -> str | None:
        attrs = {"status": status, **({"due": due} if due else {})}
        same = self.similar(label, ("task",))
        if same is not None:
            self._merge(same, label, reason)
            self.plan.set_attrs(same, attrs, reason)
            return same
        tid = self.plan.node(
            shortened(label, 80),
            "task",
            "project",
            reason,
            summary=label,
            attrs={**attrs, "source": self.source},
        )
        if tid:
            self.added["task"].append(tid)
        return tid

    def _replaced(self, replaces: str, kinds: tuple[str, ...]) -> str | None:
        return self.similar(replaces, kinds) if replaces else None

    def decision(self, label: str, reason: str, replaces: str = "") -> str | None:
        # What it replaces is not what it repeats: "B instead of A" is no repeat of "A".
        old = self._replaced(replaces, ("decision", "correction", "preference", "concept"))
        same = self.similar(
            label.replace(replaces, " ") if replaces else label, DECISIONS, old or ""
        )
        if same is not None:
            self._merge(same, label, reason)
            did: str | None = same
        else:
            text = clip(label, 80)
            if "not an imperative" in label_problems(tidy(text)):
                # A summary states what was chosen ("the streaming writer instead of pandas"):
                # the decision is to use it.
                keep = len(text) > 1 and (text[1].isupper() or not text[:1].isalpha())  # "SQS …"
                text = clip("Use " + (text if keep else text[:1].lower() + text[1:]), 80)
            did = self.plan.decision(text, reason, label)
            if did:
                self.added["decision"].append(did)
        if did and old and old != did:
            self.plan.edge(did, "supersedes", old, reason)
        return did

    def correction(self, label: str, reason: str, replaces: str) -> str | None:
        """What the person corrected, superseding what it replaces when the graph holds it."""
        old = self._replaced(replaces, ("decision", "correction", "preference", "concept", "task"))
        same = self.similar(label, ("correction", "decision"), old or "")
        if same is not None:
            self._merge(same, label, reason)
            cid: str | None = same
        else:
            cid = self.plan.node(clip(label, 80), "correction", "project", reason, summary=label)
            if cid:
                self.added["decision"].append(cid)
        if cid and old and old != cid:
            self.plan.edge(cid, "supersedes", old, reason)
        return cid

    def claim(self, label: str, reason: str) -> str | None:
        """What the agent or the summary says the person decided, without the person's words
        to show for it: kept, as a claim (a concept), never as a decision in force."""
        nid = self.plan.node(
            clip(CLAIM_HEAD + label, 80),
            "concept",
            "project",
            reason,
            summary=label,
            attrs={"source": self.source, "claim": "unsupported"},
        )
        if nid:
            self.added["claim"].append(nid)
        return nid

    def person(self, name: str, reason: str, role: str = "") -> str | None:
        from rolling_graph.probe.offline import intent

        if role:
            ids = intent.people(self.plan, f"{name}, our {role}", reason)
        else:
            ids = intent.people(self.plan, f"{name} said so", reason)
        if not ids:
            nid = self.plan.resolve(name) or self.plan.node(
                name, "person", "relationship", reason, attrs={"role": role} if role else None
            )
            ids = [nid] if nid else []
        for nid in ids:
            if nid in self.plan.new:
                self.added["person"].append(nid)
        return ids[0] if ids else None

    def patch(self, rationale: str) -> dict[str, Any] | None:
        ops = self.plan.ops()
        return {"ops": ops, "rationale": clip(rationale, 200)} if ops else None

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.added.items()}
