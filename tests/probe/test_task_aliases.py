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
