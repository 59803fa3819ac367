"""The str.find whole-word search gives what the regex it replaces gives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.nlp.bounded import count_words, says

_ALPHABET = st.sampled_from(list("ab_.- 1\u00e9\u212aKk\nIiSs\u0131\u017f\u0130\u00c9\u2014"))
_TEXT = st.text(_ALPHABET, max_size=40)
_WORD = st.text(_ALPHABET, min_size=1, max_size=4)


def _regex_count(text: str, word: str, left: str, right: str, flags: int = 0) -> int:
    pattern = rf"(?<![\w{re.escape(left)}]){re.escape(word)}(?![\w{re.escape(right)}])"
    return len(re.findall(pattern, text, flags))


@settings(max_examples=400, deadline=None)
@given(_TEXT, _WORD, st.sampled_from(["", ".", ".-"]), st.sampled_from(["", "-"]), st.booleans())
def test_count_words_matches_the_regex(
    text: str, word: str, left: str, right: str, ignore_case: bool
) -> None:
    flags = re.I if ignore_case else 0
    got = count_words(text, word, left=left, right=right, ignore_case=ignore_case)
    assert got == _regex_count(text, word, left, right, flags)


@settings(max_examples=300, deadline=None)
@given(
    _TEXT, st.text(_ALPHABET, max_size=4), st.sampled_from(["", ".-"]), st.sampled_from(["", "-"])
)
def test_says_matches_the_regex(text: str, word: str, left: str, right: str) -> None:
    assert says(text, word, left=left, right=right) == (_regex_count(text, word, left, right) > 0)


def test_examples() -> None:
    assert count_words("x.name name names _name name", "name", left=".") == 2
    assert count_words("Bento bento BENTO", "bento", ignore_case=True) == 3
    assert not says("max_rows", "max")
    assert says("use max rows", "max")
