"""The rule pipeline's array readers give what spaCy's own components give: the sentencizer's
sentence starts, the title-case runs a greedy Matcher finds, the domain lexicon over tokens,
and the text a doc was made from."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.nlp import analyse, classify_domain, get_nlp
from rolling_graph.nlp.domains import _token_domains, _word_domains
from rolling_graph.nlp.entities import _title_runs, doc_text

TEXTS = [
    "",
    "Hello there. This is it! And so? ok... yes.\n\nNew Para with Claude Code and AWS S3.",
    "We use OpenWeatherMap in src/app.py; the HotStore (core.hotstore) saves it. Thanks, Bob!",
    "  leading space. «Quoted» Über Straße — fine.\tTab\nLine: Two Words Title Case",
    "def parse_row(x):\n    return Row(x)  # TODO: Fix It. Then? Deploy To Render!",
    "My team lead and my wife both said the deadline moves to Friday; sorry, I'm frustrated.",
    "。Chinese text 便签小窗口。 Korean 한국어 문장입니다. Mixed Ünïcode Wörds Here.",
]
# Letters, title case, punctuation the sentencizer ends on, spaces and newlines.
_ALPHABET = st.sampled_from([*"aAbBzZ .!?;:\n\t-'\"()", "Ab", "CD", "x.y", "é", "É", "。", "…"])


@pytest.fixture(scope="module")
def reference() -> Any:
    import spacy
    from spacy.matcher import Matcher

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    matcher = Matcher(get_nlp("").vocab)
    matcher.add("PROPER", [[{"IS_TITLE": True, "IS_ALPHA": True, "OP": "+"}]], greedy="LONGEST")
    return nlp, matcher


def _check(text: str, reference: Any) -> None:
    nlp, matcher = reference
    doc = analyse(text)
    assert doc_text(doc) == doc.text == text
    assert [t.is_sent_start for t in doc] == [t.is_sent_start for t in nlp(text)]
    assert _title_runs(doc) == sorted((s, e) for _, s, e in matcher(doc))
    by_token = [
        (t.i, dom) for t in doc if t.is_alpha and t.i % 3 for dom in _word_domains(t.lower_)
    ]
    assert _token_domains(doc, {i for i in range(len(doc)) if i % 3 == 0}) == by_token


@pytest.mark.parametrize("text", TEXTS)
def test_arrays_match_spacy_components(text: str, reference: Any) -> None:
    _check(text, reference)


@settings(max_examples=150, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_arrays_match_spacy_components_on_any_text(reference: Any, text: str) -> None:
    _check(text, reference)


def test_domain_scores_read_the_noted_text() -> None:
    text = TEXTS[5]
    doc = analyse(text)
    assert classify_domain(text, doc=doc) == classify_domain(text)
    assert classify_domain(text).winner == "relationship"
