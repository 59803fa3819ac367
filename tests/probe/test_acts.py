"""Acts, then objects: each rule of acts.toml on invented sentences, and what the probe makes of
invented exchanges with the shapes the rules are for (agreement with a named proposal, approval
of the agent's proposal without naming it, a request asked with "can we", a lead-in before a
request, a reply picking the agent's second option)."""

from __future__ import annotations

import re

import pytest

from rolling_graph.eval.dialogue import replay_dialogue
from rolling_graph.probe.offline import acts


def _acts(sentence: str) -> set[tuple[str, str]]:
    return {(a.act, a.rule) for a in acts.acts_of(sentence)}


@pytest.mark.parametrize(
    ("sentence", "act", "rule"),
    [
        ("the queue approach looks right to me", "agree", "appraisal"),
        ("ok that makes sense", "agree", "appraisal"),
        ("yeah, write the migration next", "agree", "assent"),
        ("could we cache the tokens per tenant?", "request", "modal-request"),
        ("hmm, can you rerun the linter", "request", "modal-request"),
        ("keep the old endpoint for now", "defer", "put-off"),
        ("nope, the other bucket", "reject", "refusal"),
        ("happy with the nightly schedule", "agree", "agree-with"),
        ("I like the second layout", "agree", "agree-with"),
        ("the batch importer is the way to go", "agree", "copula-approval"),
        ("a flat config file is preferable", "agree", "copula-approval"),
    ],
)
def test_each_rule_names_its_act(sentence: str, act: str, rule: str) -> None:
    assert (act, rule) in _acts(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "the tests are not good yet",  # an appraisal word without the appraising verb
        "what can we do about the flaky job",  # a modal inside a question, not opening it
        "is yes a valid value here",  # assent not opening the sentence
        "I know the answer",  # "no" only as a whole word
    ],
)
def test_rules_hold_their_shape_only(sentence: str) -> None:
    found = _acts(sentence)
    assert ("agree", "assent") not in found
    assert ("request", "modal-request") not in found
    assert ("reject", "refusal") not in found
    if "good" in sentence:
        assert ("agree", "appraisal") not in found


def test_every_rule_names_a_known_act_and_cites_two_repositories() -> None:
    for rule in acts.rules():
        assert rule["act"] in acts.ACTS, rule["name"]
        assert rule["patterns"], rule["name"]
        repos = {seen.split(":")[0].split("/")[0] for seen in rule["seen"]}
        assert len(repos) >= 2, (rule["name"], repos)


def test_lead_ins_are_stripped_before_reading() -> None:
    assert acts.strip_lead("One thing though, can you fix it?") == "can you fix it?"
    assert acts.strip_lead("ok so, hmm, add a test") == "add a test"
    assert acts.strip_lead("sorting matters") == "sorting matters"


def _graph(before: str, prompt: str) -> tuple[dict[str, str], set[tuple[str, str]]]:
    g = replay_dialogue([(before, prompt)]).graph
    kinds = {n.label: n.kind or "" for n in g.nodes.values()}
    sup = {(e.source, e.target) for e in g.edges.values() if e.relationship == "supersedes"}
    return kinds, sup


def test_agreement_with_a_named_proposal_is_a_decision() -> None:
    kinds, _ = _graph(
        "We could store the timestamps in UTC or in the user's local time.",
        "UTC timestamps make sense to me",
    )
    assert kinds.get("Use UTC timestamps") == "decision", kinds


def test_agreement_naming_what_the_agent_never_proposed_is_no_decision() -> None:
    kinds, _ = _graph("The deploy finished.", "the dashboard looks good")
    assert "decision" not in kinds.values(), kinds


def test_approval_that_goes_on_approves_the_agents_proposal() -> None:
    kinds, _ = _graph(
        "## Plan: split the importer\nFirst the parser, then the CLI wrapper. Does that sound right?",
        "sounds right, start with the parser",
    )
    decisions = [label for label, kind in kinds.items() if kind == "decision"]
    assert any("split the importer" in label.lower() for label in decisions), kinds


def test_the_second_option_is_the_agents_second_option() -> None:
    kinds, _ = _graph(
        "1. Rewrite the scheduler first\n2. Patch the retry loop\nWhich one?",
        "yes, your second option",
    )
    decisions = [label for label, kind in kinds.items() if kind == "decision"]
    assert any("Patch the retry loop" in label for label in decisions), kinds


def test_a_request_asked_with_can_we_is_a_task() -> None:
    kinds, _ = _graph("The CLI prints warnings.", "can we make the CLI exit non-zero on warnings?")
    assert kinds.get("Make the CLI exit non-zero on warnings") == "task", kinds


def test_a_lead_in_does_not_hide_the_request() -> None:
    kinds, _ = _graph("Done.", "One thing though, can you fix the flaky test in test_api.py?")
    assert kinds.get("Fix the flaky test in test_api.py") == "task", kinds


def test_a_tag_that_names_the_kind_of_message_is_a_lead_in() -> None:
    # "Q: …", "Note: …", "PS: …" say what kind of message follows, not what it says
    assert acts.strip_lead("Q: we should cache the config") == "we should cache the config"
    assert acts.strip_lead("update the docs") == "update the docs"  # no colon: the verb
    kinds, _ = _graph("Done.", "Note: use UTC for every timestamp")
    assert kinds.get("Use UTC for every timestamp") == "decision", kinds
    kinds, _ = _graph("Done.", "PS: can you also add a changelog entry?")
    assert kinds.get("Add a changelog entry") == "task", kinds
    kinds, sup = _graph(
        "I wrote the summariser over the whole log.",
        "Q: we should be summarising the checkpoint scope, not the entire log",
    )
    assert kinds.get("We should be summarising the checkpoint scope") == "correction", kinds
    assert not [label for label in kinds if label.startswith("Q:")], kinds


def test_a_question_to_the_agent_is_still_no_task() -> None:
    kinds, _ = _graph("Done.", "can you explain why the cache misses?")
    assert "task" not in kinds.values(), kinds


def test_tool_output_pasted_by_the_agent_is_not_the_persons_decision() -> None:
    """What the agent read (a tool result quoted in its message) is never read as the person's
    choice: only the person's prompt is."""
    before = "The linter said:\n```\nerror: use tabs, not spaces\n```\nShall I change it?"
    kinds, _ = _graph(before, "what does the linter config say?")
    assert "decision" not in kinds.values(), kinds


@pytest.mark.parametrize(
    ("before", "prompt", "label"),
    [
        (
            "I'd suggest a retry budget of three attempts, or we could retry forever.",
            "agreed on the retry budget",
            "Use the retry budget",
        ),
        (
            "Two ways: a queue approach with one worker, or a cron approach that polls.",
            "fine with the queue approach",
            "Use the queue approach",
        ),
        (
            "We could keep a lock file or a flat config file; I'd recommend the flat config file.",
            "ok, I agree, a flat config file is preferable",
            "Use a flat config file",
        ),
    ],
)
def test_agreement_naming_the_agents_proposal_is_a_decision(
    before: str, prompt: str, label: str
) -> None:
    kinds, _ = _graph(before, prompt)
    assert kinds.get(label) == "decision", kinds


def test_agreement_with_what_the_agent_never_proposed_is_no_decision() -> None:
    kinds, _ = _graph("The nightly job finished in four minutes.", "happy with the nightly job")
    assert "decision" not in kinds.values(), kinds
    kinds, _ = _graph("Done, the tests pass.", "the build is fine")
    assert "decision" not in kinds.values(), kinds


def test_liking_the_agents_recommendation_approves_its_proposal() -> None:
    kinds, _ = _graph(
        "## Plan: move the uploads to a background worker\nI recommend this. Does that sound right?",
        "I like your rec, go ahead",
    )
    decisions = [label for label, kind in kinds.items() if kind == "decision"]
    assert any("background worker" in label for label in decisions), kinds


@pytest.mark.parametrize(
    "sentence",
    [
        "correct the typo in the footer",
        "fine tune the ranking weights",
        "right-align the totals column",
        "perfect the wording of the error",
        "nice to have: a dark theme",
    ],
)
def test_a_word_of_assent_that_opens_an_imperative_is_no_lead_in(sentence: str) -> None:
    assert acts.strip_lead(sentence) == sentence
    assert ("agree", "assent") not in _acts(sentence)


@pytest.mark.parametrize("sentence", ["perfect, add the flag", "Correct. Ship it", "fine - go"])
def test_a_word_of_assent_set_apart_is_a_lead_in(sentence: str) -> None:
    assert acts.strip_lead(sentence).lower() in ("add the flag", "ship it", "go")


def test_the_yes_and_no_words_are_written_once() -> None:
    """speech.PREAMBLE, corrections' markers and the decision-object openers read the lexicon:
    a word added to acts.toml is read everywhere."""
    import inspect

    from rolling_graph.probe.offline import (
        asked_values,
        corrections,
        decisions,
        intent,
        options,
        speech,
    )

    for module in (speech, corrections, decisions, intent, asked_values, options):
        assert not re.search(r"\byep\b|\bnope\b", inspect.getsource(module)), module
    assert speech.task_phrase("lgtm, rename the flag") == "Rename the flag"
    assert corrections.unmarked("hold on, nah, keep the old name") == "keep the old name"


@pytest.mark.parametrize(
    ("before", "prompt", "label"),
    [
        (
            "My suggestion: keep the audit log in its own table. Want me to set that up?",
            "yes please",
            "Keep the audit log in its own table",
        ),
        (
            "I'd suggest we move the rate limiter into the gateway first.",
            "ok let's do it",
            "Move the rate limiter into the gateway first",
        ),
        (
            "The cleanest fix is to pin the parser version in the lock file.",
            "yes, that one",
            "Pin the parser version in the lock file",
        ),
    ],
)
def test_a_bare_approval_decides_the_agents_proposal(before: str, prompt: str, label: str) -> None:
    kinds, _ = _graph(before, prompt)
    assert kinds.get(label) == "decision", kinds


def test_going_with_the_recommendation_is_not_a_thing_named_your_recommendation() -> None:
    kinds, _ = _graph("Both work; I recommend B.", "go with your recommendation")
    assert not any("your recommendation" in label.lower() for label in kinds), kinds


@pytest.mark.parametrize(
    ("prompt", "label"),
    [
        ("yes, please proceed with Option B", "Option B: rebuild on write"),
        ("ok let's tackle 3", "Option 3: keep a delta log"),
    ],
)
def test_an_option_named_after_a_verb_of_work_is_picked(prompt: str, label: str) -> None:
    before = (
        "Option A: rebuild the index nightly.\nOption B: rebuild on write.\nWhich do you prefer?"
        if "Option" in prompt
        else "1. Rebuild nightly\n2. Rebuild on write\n3. Keep a delta log\nWhich one?"
    )
    kinds, _ = _graph(before, prompt)
    assert any(k.lower() == label.lower() and v == "decision" for k, v in kinds.items()), kinds
