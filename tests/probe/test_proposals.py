"""The person's own proposals: a clause done "instead" of something, a "can we …" counter-
proposal when the agent asked to choose, and what the person says they are building on.
Invented prompts."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.instruments import built_on
from rolling_graph.probe.offline.proposals import counter_proposal, instead
from tests.probe.helpers import kinds, say


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        (
            "the [beta] badge: I think we can just hide it, and tag the stable builds instead",
            "Tag the stable builds instead",
        ),
        ("let's archive the old invoices instead", "Archive the old invoices instead"),
        ("ok, we could simply pin the minor version instead.", "Pin the minor version instead"),
    ],
)
def test_a_clause_done_instead_of_another_is_a_choice(sentence: str, label: str) -> None:
    found = instead(sentence)
    assert found is not None and found[0] == label


@pytest.mark.parametrize(
    "sentence",
    [
        "should we tag the stable builds instead?",  # a question
        "do it instead",  # nothing named
        "the dashboard shows the totals instead of averages",  # no choice: a description
    ],
)
def test_no_instead_choice(sentence: str) -> None:
    assert instead(sentence) is None


def test_counter_proposal_said_as_a_statement() -> None:
    found = counter_proposal("can we cache the signing token for the whole shift, then re-ask")
    assert found is not None
    assert found[0].startswith("Cache the signing token for the whole shift")
    assert counter_proposal("can we cache the signing token?") is None  # asked, not proposed
    assert counter_proposal("can we not do that") is None


def test_counter_proposal_needs_the_agent_to_ask_for_a_choice() -> None:
    offer = "Two ways: 1. **Short-lived tokens** 2. **Device login**. Which approach do you prefer?"
    sess = HotSession.in_memory("s")
    say(sess, "can we reuse the badge reader to unlock the kiosk for a whole shift", before=offer)
    assert any("badge reader" in label for label in kinds(sess, "decision"))
    other = HotSession.in_memory("s")
    say(other, "can we reuse the badge reader to unlock the kiosk for a whole shift")
    assert not any("badge reader" in label for label in kinds(other, "decision"))


@pytest.mark.parametrize(
    ("sentence", "what"),
    [
        ("I'm building Tidepool — a tide chart app on Flutter for sailors", "Flutter"),
        ("we're writing the ingestion backend in Elixir, nothing fancy", "Elixir"),
    ],
)
def test_what_the_person_builds_on(sentence: str, what: str) -> None:
    assert built_on(sentence) == (f"Use {what}", what)


@pytest.mark.parametrize(
    "sentence",
    [
        "I built the exporter on Flutter last year",  # a report of work done
        "are we building this on Flutter?",  # a question
        "I'm building the report for the board",  # nothing named it is built on
    ],
)
def test_nothing_built_on(sentence: str) -> None:
    assert built_on(sentence) is None


def test_a_relative_clause_decides_nothing() -> None:
    from rolling_graph.probe.offline.proposals import in_relative_clause

    sentence = "Let's cut a release branch which we'll merge back into trunk after the audit."
    assert in_relative_clause(sentence, "merge back into trunk after the audit")
    assert not in_relative_clause("we'll merge back into trunk after the audit", "merge back")
    sess = HotSession.in_memory("s")
    say(sess, sentence)
    assert not any("trunk" in label for label in kinds(sess, "decision"))


def test_make_sure_is_no_choice() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "while the import runs, let's make sure we document the retry settings in the wiki")
    assert not kinds(sess, "decision")


SPEC = """nice. the changelog entries should look like this:
- one line per merged PR
- newest release on top
- link the author's handle

and keep the emoji out please"""


def test_items_after_a_spec_lead_are_decisions() -> None:
    from rolling_graph.probe.offline.proposals import spec_items

    items = [item for item, _ in spec_items(SPEC)]
    assert items == ["one line per merged PR", "newest release on top", "link the author's handle"]
    sess = HotSession.in_memory("s")
    say(sess, SPEC)
    node = kinds(sess, "decision")["Newest release on top"]
    assert "changelog" in node.summary


def test_a_plain_list_is_no_spec() -> None:
    from rolling_graph.probe.offline.proposals import spec_items

    assert spec_items("here are the points:\n- fast startup\n- small binary") == []
    assert spec_items("can you do these:\n- bump the version\n- tag it") == []


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        (
            "I'd say just go ahead with the rewrite of the billing loader",
            "Go ahead with the rewrite of the billing loader",
        ),
        ("my vote is the dark sidebar layout", "Use the dark sidebar layout"),
        ("i'd say that we should archive the cron jobs first", "Archive the cron jobs first"),
    ],
)
def test_a_choice_put_as_an_opinion(sentence: str, label: str) -> None:
    from rolling_graph.probe.offline.proposals import opinion_choice

    found = opinion_choice(sentence)
    assert found is not None and found[0] == label


@pytest.mark.parametrize(
    "sentence", ["I'd say it's fine", "I'd say no", "I say we ship it", "I'd say we go with it?"]
)
def test_no_opinion_choice(sentence: str) -> None:
    from rolling_graph.probe.offline.proposals import opinion_choice

    assert opinion_choice(sentence) is None


def test_steps_after_the_question_are_what_is_approved() -> None:
    # "Does that match? If so, I should: 1. … 2. …" (entireio__cli): the steps lead the label,
    # not the last heading of the explanation before the question
    before = (
        "**Where the logic should live:**\n- `report.py` reads the rows directly\n\n"
        "**The exporter's role:**\n- `export()` stays format-specific\n\n"
        "Does that match what you're thinking? If so, I should:\n"
        "1. Modify `report.py` to read rows from the store directly\n"
        "2. Add the date filter there\n3. Leave `export()` alone"
    )
    sess = HotSession.in_memory("s")
    say(sess, "yes, that makes sense", before=before)
    (label,) = [label for label in kinds(sess, "decision") if label.startswith("Approved:")]
    assert label.startswith("Approved: Modify report.py to read rows")
