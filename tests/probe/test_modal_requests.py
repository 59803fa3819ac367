"""Work asked for as a question (speech.task_phrase): "could we …" asks as "can we …" does
("Could we make a comprehensive list …" in saross__trap-extraction, "could we change the shadow
commits …?" in entireio__cli); a hedge still makes a suggestion of it. Invented exchanges."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import speech
from tests.probe.helpers import kinds, say


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
