"""Values with a shape and the agent's statement a correction's value replaces, with invented
exchanges: "Mar 14 should be Mar 15", "I meant report_v2.pdf"."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.values import replaced_statement, values
from tests.probe.helpers import say, superseded


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("it ran on 4 April", [("date", "apr 4")]),
        ("the 4th of April", [("date", "apr 4")]),
        ("dated 4-Apr", [("date", "apr 4")]),
        ("Sept. 3 and March 3rd", [("date", "sep 3"), ("date", "mar 3")]),
        ("exported 2010-04-08", [("date", "2010-04-08")]),
        ("see report_v2.pdf", [("file", "report_v2.pdf")]),
        ("units 30025-30034", [("range", "30025-30034")]),
        ("run /compact now", [("command", "/compact")]),
        ("pin v2.3.1", [("version", "v2.3.1")]),
        ("the UI shows +582 −0", [("number", "582")]),
    ],
)
def test_each_shape_is_read_once(text: str, found: list[tuple[str, str]]) -> None:
    assert list(values(text)) == found


def test_abbreviations_and_single_digits_are_no_values() -> None:
    assert values("e.g. this, i.e. that, step 3 of 5") == ()


BEFORE = (
    "I checked the March invoices. The batch is dated Mar 14 and went to invoices_0314.csv. "
    "The totals match the ledger."
)


def test_a_correction_naming_both_values_replaces_the_statement_of_the_old_one() -> None:
    sentence = "Mar 14 should be Mar 15, the export ran after midnight"
    statements = [
        "I checked the March invoices.",
        "The batch is dated Mar 14 and went to invoices_0314.csv.",
        "The totals match the ledger.",
    ]
    assert replaced_statement(sentence, statements, BEFORE) == statements[1]
    # the weak form is for corrections that name only their own value
    assert replaced_statement(sentence, statements, BEFORE, named=False) is None


def test_a_new_value_alone_replaces_the_statement_with_the_likest_value() -> None:
    before = "I read report_v1.pdf and summarised it. The summary is in notes.md for you."
    statements = ["I read report_v1.pdf and summarised it.", "The summary is in notes.md for you."]
    got = replaced_statement("wrong one, I meant report_v2.pdf", statements, before, named=False)
    assert got == statements[0]
    # nothing of a shape the agent gave: no statement
    assert replaced_statement("I meant the other one", statements, before, named=False) is None


def test_the_graph_supersedes_the_agents_statement_of_the_old_value() -> None:
    """The statement holding the old date, not the one sharing a word ("error") with it."""
    before = (
        "The survey sheet for Team B is dated Apr 4. "
        "One error still needs action: the duplicate unit 61549."
    )
    sess = HotSession.in_memory("s")
    say(sess, "I found an error in the imported work, Apr 4 should be Apr 3!", before=before)
    assert set(superseded(sess).values()) == {"Agent: The survey sheet for Team B"}
