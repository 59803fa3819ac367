"""A value given for what the agent asked ("Which region should it live in?" → "eu-west-1"):
a decision that names the slot and the value. Invented exchanges."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.asked_values import asked_slot, value_of
from tests.probe.helpers import kinds, say


@pytest.mark.parametrize(
    ("before", "reply", "label"),
    [
        (
            "The bucket is ready to create. Which region should it live in?",
            "eu-west-1",
            "Region: eu-west-1",
        ),
        (
            "Before I scaffold it: which network do you want to deploy to?",
            "testnet",
            "Network: testnet",
        ),
        (
            "What should the command-line tool be called?",
            "tidewatch",
            "Name of the command-line tool: tidewatch",
        ),
        (
            "I can wire storage next. Which database would you like for the prototype?",
            "DuckDB for now, we can move later",
            "Database: DuckDB",
        ),
    ],
)
def test_a_short_reply_fills_the_slot_the_agent_asked_for(
    before: str, reply: str, label: str
) -> None:
    sess = HotSession.in_memory("s")
    say(sess, reply, before=before)
    decisions = kinds(sess, "decision")
    assert label in decisions, decisions
    assert "?" in decisions[label].summary  # the question it answers


@pytest.mark.parametrize(
    "before",
    [
        "Should I keep the old endpoint?",  # a yes/no question: no slot
        "Do you want it in CSV or in JSON?",  # "A or B?": one side is picked elsewhere
        "What else should I look at?",  # asks for no value of a kind
        "Which one do you mean?",
        "Done: the importer is merged and the tests pass.",  # no question at all
    ],
)
def test_no_slot(before: str) -> None:
    assert asked_slot(before) is None


@pytest.mark.parametrize(
    "reply",
    [
        "yes",
        "not sure, what do you suggest?",
        "deploy it to the staging cluster first and then run the smoke tests",  # work, and long
        "whichever is cheapest?",
    ],
)
def test_no_value(reply: str) -> None:
    assert value_of(reply) is None


def test_a_value_among_the_alternatives_of_a_which_question() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "staging please", before="Which cluster should I roll it out to, staging or prod?")
    assert "Cluster: staging" in kinds(sess, "decision")
