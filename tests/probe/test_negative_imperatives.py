"""A sentence opened by "do" or "have" asks a question only when its subject follows ("do we
need a cache", "don't you think …", "have you checked …"); followed by a verb or an object it is
an imperative ("don't forget to push", "Do NOT use v5", "dont use /tmp", "have a look"), seen in
saross__trap-extraction, yashpunmiya__Solsmile, SWORDIntel__claude-backups and
AlexandreVassard__will-it-rain. Invented exchanges."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import speech
from tests.probe.helpers import kinds, say


@pytest.mark.parametrize(
    "sentence",
    [
        "don't forget to tag the release",
        "Do NOT bundle the test fixtures into the wheel",
        "dont write temp files outside the build dir",
        "do not touch the generated client",
        "Do run the migrations before the seed script",
        "have a look at the slow query log",
    ],
)
def test_an_imperative_is_not_a_question(sentence: str) -> None:
    assert not speech.is_question(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "do we need a second worker",
        "don't you think the cache is warm",
        "do the integration tests pass on main",
        "doesn't it retry on its own",
        "have you rebased the branch",
        "is the queue shared between workers",
        "do it",  # as before: a bare "do it" is read as a question, not a request of its own
    ],
)
def test_a_question_still_is(sentence: str) -> None:
    assert speech.is_question(sentence)


def test_dont_forget_asks_for_the_work() -> None:
    s = HotSession.in_memory("s")
    say(s, "don't forget to tag the release when CI is green", before="The fix is merged.")
    assert list(kinds(s, "task")) == ["Tag the release when CI is green"]
