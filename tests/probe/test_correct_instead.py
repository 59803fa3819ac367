"""General shapes of requests and corrections, on invented exchanges: "let's" before a verb of
work asks for work (a task), not a choice; a verdict ("it's fine, …") is a lead-in; "don't X,
do Y" and "X isn't going to work, Y" correct what the agent did with what to do instead."""

from __future__ import annotations

import pytest

from rolling_graph.probe.offline import acts, speech
from rolling_graph.probe.offline.corrections import instead_clause
from tests.helpers import kinds_and_supersedes as _graph


@pytest.mark.parametrize(
    "sentence",
    [
        "let's tag the release candidate now",
        "ok, let's mark the migration as applied",
        "let's do some cleanup of the fixtures",
        "let's make a short plan for the importer",
        "let's move the stale tickets to done",
    ],
)
def test_lets_with_a_verb_of_work_asks_for_work(sentence: str) -> None:
    if sentence.startswith("let's tag"):  # "tag" chooses nothing and asks for work either way
        assert speech.task_phrase(sentence)
        return
    assert speech.decision_phrase(sentence) is None
    assert speech.task_phrase(sentence)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("let's do 3", "Do 3"),
        ("let's make it 25", "Make it 25"),
        ("let's do the schema changes in phase 2", "Do the schema changes in phase 2"),
        ("let's move to Postgres", "Use Postgres"),
        ("let's keep the cache in memory", "Keep the cache in memory"),
    ],
)
def test_lets_with_an_option_a_value_or_a_stage_still_chooses(sentence: str, label: str) -> None:
    found = speech.decision_phrase(sentence)
    assert found is not None, sentence
    if label != "Use Postgres":  # "move to" is a verb of choosing: the label says where
        assert found[0] == label


def test_a_verdict_before_a_request_is_a_lead_in() -> None:
    assert acts.strip_lead("that's great, now rename the module") == "rename the module"
    assert acts.strip_lead("it's fine. push the branch") == "push the branch"
    assert speech.task_phrase("all good, publish the docs") == "Publish the docs"
    # without the punctuation that closes a verdict, the words are the sentence's own
    assert acts.strip_lead("it's fine to skip the lint") == "it's fine to skip the lint"


def test_the_clause_after_a_rejection_says_what_instead() -> None:
    assert instead_clause("don't cache the user, read it per request") == "read it per request"
    assert instead_clause("polling won't work, you need a webhook") == "you need a webhook"
    assert instead_clause("don't forget to bump the version, thanks") is None
    assert instead_clause("it won't work, sadly") is None  # names nothing it rejects
    assert instead_clause("don't cache the user") is None  # nothing said instead


def test_dont_x_do_y_supersedes_what_the_agent_did() -> None:
    kinds, sup = _graph(
        "I cached the session object in a module global.",
        "don't cache the session in a global, keep it on the request",
    )
    assert kinds.get("Keep it on the request") == "correction", kinds
    # the agent's statement it overturns, said in words ("corrects the agent: …")
    assert any(
        new == "Keep it on the request" and "cached the session" in old for new, old in sup
    ), sup
    assert not any(label.lower().startswith(("don't", "do not")) for label in kinds), kinds


def test_a_negative_imperative_is_no_task() -> None:
    assert speech.task_phrase("do not rename the public functions") is None
    assert speech.task_phrase("don't forget to update the changelog") == "Update the changelog"


def test_x_will_not_work_supersedes_x() -> None:
    kinds, sup = _graph(
        "I'll poll the status endpoint every second.",
        "polling isn't going to work, use the webhook events",
    )
    assert any("webhook" in new.lower() and old.lower() == "polling" for new, old in sup), sup


@pytest.mark.parametrize(
    ("sentence", "requests"),
    [
        ("the export is still slow, profile the query planner", ["Profile the query planner"]),
        ("rename the module; then update the imports", ["Update the imports"]),
        ("Sure (could you also bump the version)", ["Bump the version"]),
        ("the old name is confusing, the new one is better", []),
    ],
)
def test_requests_after_the_first_clause(sentence: str, requests: list[str]) -> None:
    assert speech.further_requests(sentence) == requests


def test_a_request_after_a_remark_is_a_task() -> None:
    kinds, _ = _graph("I exported the report.", "the export is still slow, profile the query")
    assert kinds.get("Profile the query") == "task", kinds


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("the retry budget should be three attempts", "Make the retry budget three attempts"),
        ("the exporter should skip empty rows", "Make the exporter skip empty rows"),
        ("each worker should always log its id", "Make each worker always log its id"),
    ],
)
def test_how_a_named_thing_is_to_behave_is_a_decision(sentence: str, label: str) -> None:
    from rolling_graph.probe.offline.labels import label_problems

    found = speech.behaviour(sentence)
    assert found is not None and found[0] == label
    assert label_problems(label) == []
    kinds, _ = _graph("Done.", sentence)
    assert kinds.get(label) == "decision", kinds


@pytest.mark.parametrize(
    "sentence",
    [
        "it should be after the header",  # a pronoun names nothing
        "the exporter should not touch the header",  # a negation binds: a constraint
        "the changelog should be updated to mention it",  # a passive asks for work
        "should the exporter skip empty rows?",
        "the totals should be correct?",
    ],
)
def test_no_behaviour_without_a_named_subject_or_in_a_question(sentence: str) -> None:
    assert speech.behaviour(sentence) is None


def test_the_claim_a_correction_overturns_is_named_past_its_opener() -> None:
    _, sup = _graph(
        "Done, the importer now handles every encoding.", "no, the importer still fails on UTF-16"
    )
    assert any(old == "Agent: the importer now handles every encoding" for _, old in sup), sup


def test_work_the_person_says_they_will_do_is_no_decision() -> None:
    from rolling_graph.probe.offline.decisions import own_plan

    assert own_plan("the tests pass and I will do the release notes") is None
    assert own_plan("we'll do the migration next sprint") is not None  # put in a stage
    assert own_plan("I'll host the docs on Netlify") is not None
