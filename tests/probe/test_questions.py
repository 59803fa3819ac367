"""Answers to the agent's numbered questions, with invented interviews: a lettered option per
question ("2. B", "1.A", "3: A + C"), free words for a question that offered alternatives, and
what is not an answer sheet (numbered points of the person's own, sections that ask nothing)."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import questions
from tests.probe.helpers import kinds, say

INTERVIEW = """Before I draft the schema, a few questions.

### 1. Storage
**Where should the recipes live?**
- **A) SQLite file** — simple, one file
- **B) Postgres** — shared with the shop backend
- **C) Flat JSON** — easy to diff

### 2. Units
**Metric only, or metric and imperial side by side?**

### 3. Images
How should photos be handled?
- **A) Resize on upload** — small and fast
- **B) Keep originals** — heavy
- **C) External CDN** — costs money

Answer what you can and I'll write the plan."""


def test_lettered_answers_are_the_options_they_name() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "1.B  2. metric only, we are in Europe  3: A + C", before=INTERVIEW)
    decisions = kinds(sess, "decision")
    assert "Storage: Postgres" in decisions
    assert "Units: metric only" in decisions
    assert "Images: Resize on upload + External CDN" in decisions
    assert "shared with the shop backend" in decisions["Storage: Postgres"].summary


def test_one_lettered_answer_is_enough() -> None:
    asked = questions.questions(INTERVIEW)
    (answer,) = questions.answers("3. B please, disk is cheap", asked)
    assert answer[1] == "Keep originals"


def test_points_of_the_persons_own_are_no_answers() -> None:
    asked = questions.questions(INTERVIEW)
    # A single numbered point with no letter is a list of the person's own.
    assert questions.answers("2. the scale only reads grams anyway", asked) == []
    # A free answer to a question that offered nothing to choose is not a decision.
    plan = "Plan:\n### 1. Migrate the table\nmove rows\n### 2. Backfill\ncopy data\n"
    assert questions.questions(plan) == {}


def test_an_answer_that_asks_back_is_not_a_choice() -> None:
    asked = questions.questions(INTERVIEW)
    got = questions.answers("1. what does B cost us? 2. metric only 3. A", asked)
    assert [(a[0].title, a[1]) for a in got] == [
        ("Units", "metric only"),
        ("Images", "Resize on upload"),
    ]


def test_an_answer_to_a_question_titled_as_a_question_is_labelled_by_its_topic() -> None:
    from rolling_graph.eval.dialogue import replay_dialogue
    from rolling_graph.probe.offline.questions import topic

    before = (
        "Could you clarify:\n1. Which branch should I deploy?\n"
        "2. What kind of rollout do you want - a canary or all at once?"
    )
    labels = [label for _, label in replay_dialogue([(before, "1. main   2. canary")]).decisions]
    assert "Rollout: canary" in labels
    assert topic("What sync operation do you need") == "Sync operation"
    assert topic("Scope & MVP") == "Scope & MVP"  # a heading stays as it is
