"""The code patterns of the rule layer (rolling_graph.nlp.entities) that begin with a rare
character and check the boundary after it find exactly what their first forms found, with the
boundary check first: on invented code and prose, and on generated strings of the characters
that matter (issue numbers, scoped packages, acronyms)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.nlp import entities

# As first written: the boundary lookbehind before the first character (the reference).
REFERENCE = {
    "ISSUE": re.compile(
        r"(?<![\w&#/])#\d{1,7}\b|\b(?:GH|PR|gh|pr)-?\d{1,7}\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b"
    ),
    "PACKAGE": re.compile(r"(?<![\w/])@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*", re.I),
    "ACRONYM": re.compile(r"(?<![\w.-])[A-Z][A-Z0-9]{1,7}s?(?![\w-])"),
}
TEXTS = [
    "Fixes #12 and GH-7, see PR42 and JIRA-1234; not a#3, not x/#4, not &#38; or ##5.",
    "install @types/node and @scope/pkg.v2, mail me@host/x, a/@b/c, @ not/a",
    "The CI on ARM and the API's JSON (HTTPS) are MITs; x.CSV, -API, CI-1, OK, e.g. TODO.",
    "#1\n#22 PR-3 gh-44 Gh-5 pr6 XPR-7 ABCDEFGHIJK-1 AB-12345678",
    "",
]


def _found(label: str) -> re.Pattern[str]:
    return dict(entities._PATTERNS)[label]


@pytest.mark.parametrize("label", sorted(REFERENCE))
@pytest.mark.parametrize("text", TEXTS)
def test_the_same_matches_on_invented_text(label: str, text: str) -> None:
    assert _found(label).pattern != REFERENCE[label].pattern  # the reordered form is compiled
    got = [m.span() for m in _found(label).finditer(text)]
    assert got == [m.span() for m in REFERENCE[label].finditer(text)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="#@/-&._ aZAPRGHghpr0123456789sx\n", max_size=40))
def test_the_same_matches_on_generated_text(text: str) -> None:
    for label, ref in REFERENCE.items():
        got = [m.span() for m in _found(label).finditer(text)]
        assert got == [m.span() for m in ref.finditer(text)], label


def test_identifier_pattern_matches_as_its_backtracking_form_did() -> None:
    # possessive runs are a speed-up only: the same matches on any text
    import random

    before = re.compile(
        r"(?<![\w.])(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+"
        r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|_[A-Za-z]\w*|[A-Za-z_]\w*\(\)"
        r"|--?[a-z][a-z0-9-]{1,40})(?![\w])"
    )
    ident = dict(entities._PATTERNS)["IDENT"]
    rng = random.Random(3)
    for _ in range(5000):
        text = "".join(rng.choice("aBc_Z9 .-(x)é") for _ in range(rng.randint(0, 30)))
        assert [m.span() for m in ident.finditer(text)] == [
            m.span() for m in before.finditer(text)
        ], repr(text)
