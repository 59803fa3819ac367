"""Entities read from a text's characters (rolling_graph.nlp.char_entities), with invented
code and prose: exact identifiers where a doc's tokens dragged in their neighbours, the same code
patterns as the pipeline's rule layer, title-case words only mid-sentence."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph import nlp
from rolling_graph.nlp import char_entities
from rolling_graph.observe.digest import key_identifiers

CODE = """
export function buildReport(ctx: Context): Report {
  const rows = ctx.session_id ? loadRows(ctx.session_id) : [];
  // Stripe sends the invoice first. Stripe retries on a 5xx.
  expect(result.content).toContain("@everyone");
  return { rows, total: rows.length, mode: RENDER_MODE };
}
"""


def _names(text: str, kind: str) -> list[str]:
    return [e.text for e in nlp.text_entities(text) if e.kind == kind]


def test_identifiers_are_the_names_themselves() -> None:
    idents = _names(CODE, "identifier") + _names(CODE, "module")
    assert "buildReport" in idents and "loadRows" in idents
    assert "ctx.session_id" in idents and "result.content" in idents
    assert "RENDER_MODE" in idents


def test_the_same_code_patterns_as_the_pipeline_rule_layer() -> None:
    text = "See src/app/main.py and https://example.org/a, then run `make test all` (#42)."
    by_text = {(e.text, e.kind) for e in nlp.text_entities(text)}
    by_doc = {(e.text, e.kind) for e in nlp.extract_entities(text) if e.kind != "proper"}
    assert by_text == by_doc


def test_a_title_case_word_is_a_name_only_mid_sentence() -> None:
    proper = _names(
        "The parser runs. Then Stripe calls back; Checks pass.\n- Retry later", "proper"
    )
    assert proper == ["Stripe"]


def test_key_identifiers_rank_definitions_then_repeated_names() -> None:
    ids = key_identifiers(CODE)
    assert ids[0] == "buildReport"
    assert "Stripe" in ids  # a name the comment repeats
    assert "everyone" not in ids and "expect" not in ids


TEXTS = [
    "Thanks for the help with the release plan, the team loved the demo.",
    "Fixed the flaky test in tests/test_api.py: the retry in client.fetch() now backs off.",
    "My daughter's dentist appointment is on Tuesday, so I'm off in the afternoon.",
    "We moved the invoices to Stripe; the webhook in billing/hooks.py verifies signatures.",
]


def test_domain_scores_read_from_the_characters_agree_with_the_docs() -> None:
    for text in TEXTS:
        by_text = nlp.classify_domain_text(text, nlp.entity_spans(text))
        by_doc = nlp.classify_domain(text)
        assert by_text.winner == by_doc.winner, text
        assert by_text.scores == by_doc.scores, (text, by_text.scores, by_doc.scores)


def test_a_possessive_name_is_still_a_name() -> None:
    text = "We moved to Twilio's API last week, and Twilio sends the callbacks."
    assert "Twilio" in _names(text, "proper")


def test_a_name_in_another_script_is_a_name_as_in_the_doc() -> None:
    text = "Le temps: Dégagé le matin. Puis Zoë arrive, et Zoë repart."
    by_text = set(_names(text, "proper"))
    by_doc = {e.text for e in nlp.extract_entities(text) if e.kind == "proper"}
    assert "Zoë" in by_text and by_text == by_doc


# As first written: every word of letters, the boundary checked before it (the reference).
_WORD_REFERENCE = re.compile(r"(?<![\w.'’-])[^\W\d_]{2,}(?!\w|-|['’](?!s\b)|\.[^\W\d_])")


def _title_runs(pattern: re.Pattern[str], text: str) -> list[list[tuple[int, int]]]:
    saved = char_entities._WORD
    char_entities._WORD = pattern
    try:
        return [[m.span() for m in run] for run in char_entities._runs(text)]
    finally:
        char_entities._WORD = saved


@pytest.mark.parametrize(
    "text",
    [
        "Then Stripe calls back; Checks pass. McDonald and API, O'Neil, Twilio's hooks, x.Net",
        "Élan Vital and élan; İstanbul Office; 中文 Name; ǅemal Bey; a-Dash and Dash-b",
        "Foo",
        "",
    ],
)
def test_title_case_runs_are_those_of_the_first_form(text: str) -> None:
    assert _title_runs(char_entities._WORD, text) == _title_runs(_WORD_REFERENCE, text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Foo",
                "bar",
                "API",
                "Élan",
                "élan",
                "ǅx",
                "中文",
                "A",
                "I'm",
                "Twilio's",
                "x.",
                ".Net",
                "-",
                "'",
                " ",
                "\n",
                "İs",
                "ſt",
                "K",
                "a1",
                "Z9",
            ]
        ),
        max_size=12,
    ).map("".join)
)
def test_title_case_runs_on_generated_text(text: str) -> None:
    assert _title_runs(char_entities._WORD, text) == _title_runs(_WORD_REFERENCE, text)


# The word pattern as it was written first (one class for the first letter, every text): the
# faster forms must find the same words.
_PLAIN_WORD = re.compile(
    r"[^\W\d_a-z](?<![\w.'’-][^\W\d_a-z])[^\W\d_]+(?!\w|-|['’](?!s\b)|\.[^\W\d_])"
)
_PIECES = [
    "Stripe",
    "stripe",
    "Twilio's",
    "O'Neil",
    "x.Foo",
    "foo.Bar",
    "Dégagé",
    "ÉTÉ",
    "Ünïcode",
    "İstanbul",
    "ǅemal",
    "Ⅻ",
    "²",
    "ﬁ",
    "Σίσυφος",
    "ſ",
    "K",
    "_Foo",
    "9Lives",
    "٣Ab",
    "１Xy",
    "-Flag",
    "’Quote",
    "API",
    "JSON.parse",
    "GitHub",
    " ",
    "\n",
    ". ",
    "’s ",
    "'s",
    "-",
    ".",
    "a",
    "Z",
    "é",
]


_ASCII = string.ascii_letters + string.digits + " .'-_\n"
_MIXED = st.one_of(st.sampled_from(_PIECES), st.text(max_size=8), st.text(_ASCII, max_size=8))


@settings(max_examples=500, deadline=None)
@given(st.lists(_MIXED, max_size=20).map("".join))
def test_the_word_patterns_find_the_words_the_plain_pattern_finds(text: str) -> None:
    plain = [m.span() for m in _PLAIN_WORD.finditer(text)]
    assert [m.span() for m in char_entities._WORD.finditer(text)] == plain
    if text.isascii():
        assert [m.span() for m in char_entities._WORD_ASCII.finditer(text)] == plain
    runs = char_entities._runs(text)
    assert [[m.span() for m in run] for run in runs] == _plain_runs(text)


def _plain_runs(text: str) -> list[list[tuple[int, int]]]:
    runs: list[list[tuple[int, int]]] = []
    for m in _PLAIN_WORD.finditer(text):
        if m.group().istitle():
            if runs and text[runs[-1][-1][1] : m.start()] == " ":
                runs[-1].append(m.span())
            else:
                runs.append([m.span()])
    return runs
