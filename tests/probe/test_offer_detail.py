"""An approval of an offer that names no work ("Want me to fix this?") approves the statement
that spells out what the agent would do; invented exchanges."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from tests.probe.helpers import kinds, say


def approved(sess: HotSession) -> list[str]:
    return [label for label in kinds(sess, "decision") if label.startswith("Approved:")]


def test_a_vague_offer_approves_the_statement_after_it() -> None:
    before = (
        "The report double-counts refunds.\n\nShall I change that? The query would subtract "
        "refunded orders before the monthly totals are summed."
    )
    sess = HotSession.in_memory("s")
    say(sess, "sure", before=before)
    # the work, not who would do it
    assert approved(sess) == ["Approved: Subtract refunded orders before the monthly totals"]


def test_the_statement_before_a_vague_offer_counts_too() -> None:
    before = "I'd move the cron job into the worker so it retries on its own. Want me to do it?"
    sess = HotSession.in_memory("s")
    say(sess, "yes please", before=before)
    assert any("move the cron job into the worker" in label.lower() for label in approved(sess))


def test_no_detail_decision_for_a_concrete_offer_or_a_plain_remark() -> None:
    for before in (
        "Want me to add a retry to the upload client? It would back off for 2 seconds.",
        "Want me to do that? It took a while last time.",
        "Should I go ahead? What do you think about the naming?",
    ):
        sess = HotSession.in_memory("s")
        say(sess, "yes", before=before)
        assert not approved(sess), (before, approved(sess))


def test_an_offer_to_go_ahead_is_no_task_of_its_own() -> None:
    # "Want me to go ahead?" (entireio__cli) offers the work said before it; "go ahead" is not
    # work. Invented exchange.
    before = "I'd inline the helper here instead of adding a module. Want me to go ahead?"
    for reply in ("yes", "yeah let's do it"):
        sess = HotSession.in_memory("s")
        say(sess, reply, before)
        assert kinds(sess, "task") == {}, reply
        assert list(kinds(sess, "decision")) == ["Approved: Inline the helper here"]


def test_a_long_offer_of_steps_is_its_first_step() -> None:
    # "Shall I X and then Y?" too long for a label (ElixirTrials__medgemma-hackathon,
    # saross__trap-extraction): the task is X, not X cut off after "and then"'s verb.
    before = "Shall I update the notes with these findings and then proceed to the cache work?"
    sess = HotSession.in_memory("s")
    say(sess, "yes please", before)
    assert list(kinds(sess, "task")) == ["Update the notes with these findings"]
    sess = HotSession.in_memory("s")
    say(sess, "yes", "Shall I build the wheel and then run the tests?")
    assert list(kinds(sess, "task")) == ["Build the wheel and then run the tests"]


def test_the_task_of_a_vague_offer_says_what_it_is_about() -> None:
    # "apply them", "fix this": the task keeps the agent's statement the pronoun points back to
    before = (
        "The review left 12 comments on the schema migration.\n\nWould you like me to apply them?"
    )
    sess = HotSession.in_memory("s")
    say(sess, "yes please", before=before)
    assert "Apply them — The review left 12 comments on the schema migration" in kinds(sess, "task")
    before = (
        "The totals are off. We count every line of the file instead of the changed lines.\n\n"
        "What we need:\n```\nchanged = diff(base, head)\n```\n\nWant me to fix this?"
    )
    sess = HotSession.in_memory("s")
    say(sess, "go ahead", before=before)
    # the statement, not the line that leads into the code ("What we need:")
    assert list(kinds(sess, "task")) == ["Fix this — We count every line of the file"]
