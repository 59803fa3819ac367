"""The ``offline`` probe: deterministic, no network, built on the gate's spaCy layer.

Rules, per user turn (assistant prose is ignored: it repeats and embellishes; files the agent
wrote count, from the tool digest):

- **entities → nodes**: files, packages, modules, identifiers, acronyms, proper nouns and
  people (:func:`rolling_graph.nlp.extract_entities`) become nodes with slug ids; an entity
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
from rolling_graph.probe.offline import unread
from rolling_graph.probe.offline.pasted import pasted_activity
from rolling_graph.probe.offline.plan import PROMPT_ID, Plan, known_terms
from rolling_graph.probe.offline.prompts import prompt_activity
from rolling_graph.probe.offline.prose import prose_activity
from rolling_graph.probe.offline.tools import tool_activity

__all__ = ["PROMPT_ID", "OfflineBackend", "build_patch"]


def build_patch(req: ProbeRequest, model: str = "") -> dict[str, Any]:
    """The offline patch for ``req``: ``{"rationale": ..., "ops": [...]}``, always engine-valid."""
    from rolling_graph import nlp as nlp_mod  # lazy: spaCy

    plan = Plan(req, known_terms(req))
    prompt_activity(plan, req, nlp_mod, model)
    pasted_activity(plan, req)
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
    if plan.tasks:
        rationale += f"; tasks: {', '.join(plan.tasks[:3])}"
    rationale += unread.note(
        sum(1 for t in req.turns if t.user.strip() and not unread.readable(t.user))
    )
    return {"rationale": rationale, "ops": ops}


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
