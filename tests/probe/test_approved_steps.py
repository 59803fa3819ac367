"""An approval of a proposal that the agent followed with the steps it would take ("Does that
match? If so, I'll: 1. … 2. …"): the steps are what was approved, with invented exchanges."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from tests.probe.helpers import kinds, say

PROPOSAL = """So the invoices should be numbered per tenant:

**Invoice numbering**
- each tenant gets its own sequence
- gaps are allowed after a void

Does that match what you had in mind? If so, I'll:
1. Add a `tenant_seq` table with a row lock
2. Backfill sequences from existing invoices
3. Leave `legacy_number()` untouched for the old exports
"""


def test_yes_approves_the_steps_after_the_question() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "yes, that makes sense.", before=PROPOSAL)
    (node,) = kinds(sess, "decision").values()
    assert node.label == "Approved: Invoice numbering"
    assert "legacy_number()" in node.summary and "tenant_seq" in node.summary


def test_without_steps_the_proposal_itself_is_approved() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "yes, that makes sense.", before=PROPOSAL.split("If so")[0])
    (node,) = kinds(sess, "decision").values()
    assert "own sequence" in node.summary
