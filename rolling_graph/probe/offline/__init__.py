"""The ``offline`` probe: deterministic, no network, built on the gate's spaCy layer.

Rules, per user turn (assistant prose is ignored: it repeats and embellishes; files the agent
wrote count, from the tool digest):

- **entities → nodes**: files, packages, modules, identifiers, acronyms, proper nouns and
  people (:func:`rolling_graph.gate.nlp.extract_entities`) become nodes with slug ids; an entity
  already in the graph (label, alias or id) is strengthened instead.
- **co-mention → edges**: entities named in one sentence get ``relates-to``; a sentence that
  says "use"/"using"/"with" links the first non-tool entity to the tools with ``uses``.
- **decision language** ("let's use X", "we'll go with X", "switch to X", "the plan is to …")
  → a ``decision`` node ("Use X") with ``uses`` edges to what it names.
- **correction language** ("actually, Bento instead", "no, I meant …") → the new decision, a
  ``supersedes`` edge to the decision it replaces (the one whose object the sentence names,
  else the most recent live decision), and a strengthening of the named nodes. The engine
  weakens the superseded node: nothing is ever deleted.

Every op it emits is one the patch engine accepts (slug ids, known enums, size limits, edges
only between nodes that exist or are added earlier in the same patch, at most ``max_ops``).
"""

from __future__ import annotations

import time
from typing import Any

from rolling_graph.probe.base import ProbeBackend, ProbeReply, ProbeRequest
from rolling_graph.probe.offline.decisions import (
    USE_WORDS,
    decisions_in,
    live_decisions,
    replace_entities,
    replaced,
)
from rolling_graph.probe.offline.entities import (
    KIND_PRIORITY,
    entity_node,
    is_name_word,
    occurrences,
    useful,
)
from rolling_graph.probe.offline.plan import (
    MAX_DECISIONS,
    MAX_PAIR_ENTITIES,
    PROMPT_ID,
    REDACTED,
    Plan,
    kind_of,
    known_terms,
    label_of,
    quote,
)
from rolling_graph.probe.offline.prose import prose_activity
from rolling_graph.probe.offline.tools import tool_activity
from rolling_graph.slug import normalize_term

__all__ = ["PROMPT_ID", "OfflineBackend", "build_patch"]


def build_patch(req: ProbeRequest, model: str = "") -> dict[str, Any]:
    """The offline patch for ``req``: ``{"rationale": ..., "ops": [...]}``, always engine-valid."""
    from rolling_graph.gate import nlp as nlp_mod  # lazy: spaCy

    plan = Plan(req, known_terms(req))
    n_decisions = 0
    for t in req.turns:
        text = REDACTED.sub(" ", t.user or "")
        if text.strip():
            for sentence, ents, domain in sentences(text, nlp_mod, model):
                named = [e for e in ents if useful(e)]
                named.sort(key=lambda e: (KIND_PRIORITY.get(e.kind, 9), e.start))
                reason = f"turn {t.turn}: {quote(sentence)}"
                ids: list[str] = []
                for e in named:
                    nid = entity_node(plan, e, domain, f"named in {reason}")
                    if nid and nid not in ids:
                        ids.append(nid)
                # Nodes already in the graph, named by label or alias (any case): strengthened.
                norm_sentence = f" {normalize_term(sentence)} "
                existing = plan.existing
                for term, nid in plan.known.items():
                    if len(term) >= 3 and f" {term} " in norm_sentence and nid in existing:
                        label = label_of(req, nid)
                        # "Build", "Bento": a capitalised one-word name is mentioned only as
                        # written, not by its common-word homonym ("build it").
                        if (
                            is_name_word(label)
                            and term == normalize_term(label)
                            and not occurrences(label, sentence, exact_case=True)
                        ):
                            continue
                        plan.strengthen(nid, f"mentioned again in {reason}")
                        if nid not in ids:
                            ids.append(nid)
                # Cues: the gate's rules decide whether this sentence decides or corrects.
                is_decision = bool(nlp_mod.decision_cues(sentence))
                corrections = nlp_mod.correction_cues(sentence)
                stated = decisions_in(sentence, named) if (is_decision or corrections) else []
                for label, obj in stated[:2]:
                    if n_decisions >= MAX_DECISIONS:
                        break
                    candidates = live_decisions(plan, req.turn) if corrections else []
                    did = plan.node(
                        label,
                        "decision",
                        domain or "project",
                        f"decision in {reason}",
                        summary=sentence,
                    )
                    if did is None:
                        continue
                    n_decisions += 1
                    if did not in plan.decisions:
                        plan.decisions.append(did)
                    for e_id in ids:
                        if normalize_term(
                            plan.new.get(e_id, {}).get("label", "") or label_of(req, e_id)
                        ) in normalize_term(obj):
                            plan.edge(did, "uses", e_id, f"the decision names it ({reason})")
                    if corrections:
                        old = replaced(plan, req, sentence, did, candidates)
                        if old:
                            plan.edge(
                                did,
                                "supersedes",
                                old,
                                f"correction ({', '.join(corrections[:3])}) in {reason}",
                            )
                            replace_entities(plan, req, old, obj, ids, reason)
                            for e_id in ids:
                                plan.strengthen(e_id, f"named in a correction, {reason}")
                # Co-mention.
                pair = ids[:MAX_PAIR_ENTITIES]
                for i, a in enumerate(pair):
                    for b in pair[i + 1 :]:
                        plan.edge(a, "relates-to", b, f"named together in {reason}", symmetric=True)
                if len(ids) >= 2 and USE_WORDS.search(sentence):
                    tools = [i for i in ids if kind_of(plan, req, i) == "tool"]
                    users = [i for i in ids if kind_of(plan, req, i) not in ("tool", "decision")]
                    if tools and users:
                        for tool in tools[:2]:
                            plan.edge(users[0], "uses", tool, f"'use' with both named in {reason}")
    tool_activity(plan, req, nlp_mod, model)
    prose_activity(plan, req, nlp_mod, model)
    ops = plan.ops()
    added = sum(1 for op in ops if op["op"] == "add" and op["path"].startswith("/nodes/"))
    edges = sum(1 for op in ops if op["path"].startswith("/edges/"))
    rationale = (
        f"offline rules: {added} new nodes, {len(ops) - added - edges} strengthened, {edges} edges"
    )
    if plan.decisions:
        rationale += f"; decisions: {', '.join(plan.decisions[:3])}"
    return {"rationale": rationale, "ops": ops}


def sentences(text: str, nlp_mod: Any, model: str) -> list[tuple[str, list[Any], str]]:
    """(sentence, entities in it, its domain) for each sentence of ``text``."""
    doc = nlp_mod.analyse(text, model)
    ents = nlp_mod.entities_from_doc(doc)
    out = []
    for sent in doc.sents:
        s_text = sent.text.strip()
        if not s_text:
            continue
        s_ents = [e for e in ents if sent.start_char <= e.start < sent.end_char]
        out.append((s_text, s_ents, ""))
    dom = nlp_mod.classify_domain(text, doc=doc).winner
    return [(s, e, dom) for s, e, _ in out]


class OfflineBackend(ProbeBackend):
    name = "offline"

    def __init__(self, settings: Any = None) -> None:
        self.model: str = getattr(settings, "spacy_model", "") or ""

    def run(self, request: ProbeRequest) -> ProbeReply:
        started = time.perf_counter()
        patch = build_patch(request, self.model)
        return ProbeReply(
            raw=patch,
            backend=self.name,
            prompt_id=PROMPT_ID,
            prompt_hash=None,
            ms=(time.perf_counter() - started) * 1000,
        )
