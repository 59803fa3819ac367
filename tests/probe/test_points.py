"""Point-by-point replies (invented exchanges): an approving point adopts the agent's suggestion
of the same number; observations, refusals and unnumbered replies adopt nothing."""

from __future__ import annotations

from rolling_graph.eval.dialogue import replay_dialogue
from rolling_graph.probe.offline import acts, points

SUGGESTIONS = """Here is what I found in the retry code.

Suggested changes:

1. Cap the retry budget at five attempts
Unbounded retries kept the worker busy for an hour.

2. Move the backoff into a helper: the three call sites copy it.

3. Log each retry with its delay
So a slow upstream shows in the logs.

Should I go ahead?"""

OBSERVATIONS = """Status of the importer:

1. The CSV reader handles quoted fields
2. Dates are parsed in local time
3. Two fixtures are stale

Anything else?"""


def _decisions(before: str, prompt: str) -> list[str]:
    return [label for _, label in replay_dialogue([(before, prompt)]).decisions]


def test_approving_points_adopt_the_suggestions_of_their_number() -> None:
    got = _decisions(SUGGESTIONS, "(1) great idea; (2) no, leave the call sites; (3) perfect, yes")
    assert "Approved: Cap the retry budget at five attempts" in got
    assert "Approved: Log each retry with its delay" in got
    assert not any("backoff" in label.lower() for label in got)


def test_a_point_keeps_the_persons_words_and_the_suggestion() -> None:
    graph = replay_dialogue([(SUGGESTIONS, "1. yes, a good idea 2. later")]).graph
    decisions = [n for n in graph.nodes.values() if n.kind == "decision"]
    assert [n.label for n in decisions] == ["Approved: Cap the retry budget at five attempts"]
    assert "(1) yes, a good idea" in (decisions[0].summary or "")
    assert "Unbounded retries" in (decisions[0].summary or "")


def test_agreeing_with_observations_decides_nothing() -> None:
    assert _decisions(OBSERVATIONS, "(1) agree. (2) yes, that is fine. (3) ok") == []


def test_reply_points_need_two_points_in_order() -> None:
    assert points.reply_points("(1) great idea; (2) later") == {1: "great idea", 2: "later"}
    assert points.reply_points("use version 2. then ship") == {}
    assert points.reply_points("1. yes") == {}


def test_the_list_that_holds_every_point_is_read() -> None:
    two_lists = SUGGESTIONS + "\n\nOpen questions:\n1. Which queue?\n"
    found = points.agent_points(two_lists, {1, 2, 3})
    assert found is not None and found[3][0] == "Log each retry with its delay"


def test_good_idea_is_agreement() -> None:
    assert acts.has("B seems like a good idea", "agree") is not None
    assert acts.has("that idea is broken", "agree") is None
