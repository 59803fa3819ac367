"""Plain-text helpers: the questions of a text are found in one pass, as the unanchored pattern
finds them."""

from __future__ import annotations

import random
import re

from rolling_graph.nlp.text import questions_in

_REFERENCE = re.compile(r"[^.!?\n]*\?")


def test_questions_are_the_runs_the_unanchored_pattern_finds() -> None:
    rng = random.Random(7)
    alphabet = "ab c.!?\n d"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        want = [m.span() for m in _REFERENCE.finditer(text)]
        assert [m.span() for m in questions_in(text)] == want, repr(text)


def test_questions_of_an_agent_message() -> None:
    text = "Done. The tests pass.\nShould I push the branch, or open a PR first? Or wait?"
    assert [m.group(0) for m in questions_in(text)] == [
        "Should I push the branch, or open a PR first?",
        " Or wait?",
    ]
    assert questions_in("No question here. None at all.") == []


def test_past_forms_and_the_verbs_that_end_like_them() -> None:
    from rolling_graph.nlp.text import is_past_form

    past = ["created", "Re-added", "FIXED", "dispatched", "rewritten", "built", "done"]
    not_past = ["proceed", "speed", "embed", "red", "run", "set", "fixing", "Tailscale"]
    assert [w for w in past if not is_past_form(w)] == []
    assert [w for w in not_past if is_past_form(w)] == []
