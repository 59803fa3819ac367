"""Work asked for in the person's words (speech.task_phrase), invented exchanges:

- a request opened by "please": the lead-in words are set aside before the request is read,
  and "please" among them still asks for work, whatever the verb ("please compose …" in
  saross__trap-extraction, "please provide …" in M-Thisness__M-Claude);
- "could we …" asks as "can we …" does ("Could we make a comprehensive list …" in
  saross__trap-extraction, "could we change the shadow commits …?" in entireio__cli); a hedge
  still makes a suggestion of it.
"""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import speech
from tests.probe.helpers import kinds, say


@pytest.mark.parametrize(
    ("sentence", "task"),
    [
        ("please compose a short release note", "Compose a short release note"),
        (
            "ok, please sketch the schema for the audit table",
            "Sketch the schema for the audit table",
        ),
        ("thanks, pls provide the exact config you used", "Provide the exact config you used"),
        ("Please consult the vendor docs first", "Consult the vendor docs first"),
        # a verb of the work list was read before, and still is
        ("please check the cron schedule", "Check the cron schedule"),
    ],
)
def test_please_asks_for_work(sentence: str, task: str) -> None:
    assert speech.task_phrase(sentence) == task


@pytest.mark.parametrize(
    "sentence",
    [
        "please confirm the cache is warm",  # asks for an answer: a talk verb
        "please tell me what you see",
        "please let me know if anything is unclear",
        "please, whatever you do, keep the API stable",  # a clause, not an imperative
        "please use the staging bucket",  # a choice: the decision rules read it
        "please don't touch the fixtures",  # a negative imperative asks for no work
        "sketch the schema for the audit table",  # no "please", a verb off the work list
    ],
)
def test_please_does_not_make_everything_work(sentence: str) -> None:
    assert speech.task_phrase(sentence) is None


def test_a_please_request_is_a_task_in_the_graph() -> None:
    s = HotSession.in_memory("s")
    say(s, "ok, please compose a one-paragraph summary for the wiki", before="The import is done.")
    assert list(kinds(s, "task")) == ["Compose a one-paragraph summary for the wiki"]


@pytest.mark.parametrize(
    ("sentence", "task"),
    [
        ("could we split the settings page into tabs?", "Split the settings page into tabs"),
        ("ok, could we rerun the flaky suite tonight?", "Rerun the flaky suite tonight"),
        ("can we add a retry to the upload step?", "Add a retry to the upload step"),
    ],
)
def test_could_we_asks_for_work(sentence: str, task: str) -> None:
    assert speech.task_phrase(sentence) == task


@pytest.mark.parametrize(
    "sentence",
    [
        "could we maybe split the settings page?",  # a hedge besides the modal
        "should we split the settings page?",  # asks whether, not for the work
        "what if we split the settings page",
        "could we use SQLite here?",  # a choice put as a question: neither task nor decision
    ],
)
def test_a_hedged_question_asks_for_no_work(sentence: str) -> None:
    assert speech.task_phrase(sentence) is None


def test_a_could_we_request_is_a_task_in_the_graph() -> None:
    s = HotSession.in_memory("s")
    say(s, "could we split the settings page into tabs?", before="The settings page is done.")
    assert list(kinds(s, "task")) == ["Split the settings page into tabs"]
    assert kinds(s, "decision") == {}
