"""A task asked again in other words keeps the new words as an alias of the open task, with
invented prompts: what the person calls it later finds it."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from tests.probe.helpers import kinds, say


def test_asked_again_in_other_words_the_task_learns_them() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "add a retry to the upload worker")
    say(sess, "let's add the upload worker retry together with jitter")
    (task,) = kinds(sess, "task").values()
    assert task.label == "Add a retry to the upload worker"
    assert any("jitter" in a for a in task.aliases), task.aliases


def test_the_same_words_again_add_no_alias() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "add a retry to the upload worker")
    say(sess, "add a retry to the upload worker")
    (task,) = kinds(sess, "task").values()
    assert task.aliases == []


def test_approving_an_offer_in_its_own_words_asks_for_it_once() -> None:
    # "yes install ccusage" to "Want me to install ccusage for you?" (shape seen in
    # M-Thisness__M-Claude and saross__trap-extraction); the exchanges here are invented.
    cases = [
        ("The stats tool is missing. Want me to install ripgrep for you?", "yes install ripgrep"),
        ("Would you like me to apply these two fixes?", "yes apply both fixes"),
        ("Shall I proceed with Phase 2 (the export module)?", "yes, please proceed with phase 2"),
    ]
    for before, reply in cases:
        sess = HotSession.in_memory("s")
        say(sess, reply, before)
        assert len(kinds(sess, "task")) == 1, (reply, list(kinds(sess, "task")))


def test_distinct_work_beside_an_approved_offer_stays_its_own_task() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "yes, and then deploy the docs site", "Want me to install ripgrep for you?")
    assert set(kinds(sess, "task")) == {"Install ripgrep", "Deploy the docs site"}


def test_an_offer_for_you_is_the_work_alone() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "yes please", "Want me to set up the SSH config for you?")
    assert list(kinds(sess, "task")) == ["Set up the SSH config"]
