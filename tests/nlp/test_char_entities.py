"""Entities read from a text's characters (rolling_graph.nlp.char_entities), with invented
code and prose: exact identifiers where a doc's tokens dragged in their neighbours, the same code
patterns as the pipeline's rule layer, title-case words only mid-sentence."""

from __future__ import annotations

from rolling_graph import nlp
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
