"""Marks taken out of the agent's and the person's words before they become labels, with
invented exchanges: emphasis and code marks go, a name's underscores and a version's dot stay."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.markup import unmark, without_console
from tests.probe.helpers import kinds, say


def test_unmark_takes_emphasis_and_code_marks_out_and_keeps_names() -> None:
    assert unmark("keyed on `created_at`") == "keyed on created_at"
    assert unmark("**Cursor** _pagination_ and __strong words__") == (
        "Cursor pagination and strong words"
    )
    assert unmark("snake_case_name and _private") == "snake_case_name and _private"
    assert unmark("# Title | cell", "#|", " ").split() == ["Title", "cell"]
    assert unmark("no marks here") == "no marks here"


OPTIONS = (
    "Two ways to page the results:\n\n"
    "1. **Offset pagination** with `?page=N`: simple, but slow on deep pages.\n"
    "2. **Cursor pagination** keyed on `created_at`: stable under inserts.\n\n"
    "Which do you prefer?"
)


def test_a_picked_options_label_keeps_the_names_underscores() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "2", OPTIONS)
    labels = list(kinds(sess, "decision"))
    assert any("created_at" in x for x in labels), labels


def test_a_decisions_label_keeps_a_version_and_a_file_name_whole() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "I've decided to drop Python 3.8 support")
    say(sess, "we'll keep the lint settings in pyproject.toml from now on")
    labels = list(kinds(sess, "decision"))
    assert "Drop Python 3.8 support" in labels, labels
    assert any("pyproject.toml" in x for x in labels), labels


def test_pasted_console_output_is_not_the_persons_words() -> None:
    prompt = (
        "this is what the console shows:\n"
        "⏺ Bash(npm run build)\n"
        "  ⎿  Error: Cannot find module 'vite'\n"
        "      remove the lockfile and reinstall the packages\n"
        "\n"
        "⏺ Update(package.json)\n"
        "  ⎿  Updated package.json with 2 additions\n"
        "please fix the build"
    )
    sess = HotSession.in_memory("s")
    say(sess, prompt, "I updated the build script.")
    assert set(kinds(sess, "task")) == {"Fix the build"}
    assert without_console(prompt).endswith("please fix the build")
    assert len(without_console(prompt)) == len(prompt)
