"""Names in code text read from its characters (rolling_graph.nlp.code_text), with invented
code: exact identifiers where a doc's tokens dragged in their neighbours, the same code
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
    return [e.text for e in nlp.code_entities(text) if e.kind == kind]


def test_identifiers_are_the_names_themselves() -> None:
    idents = _names(CODE, "identifier") + _names(CODE, "module")
    assert "buildReport" in idents and "loadRows" in idents
    assert "ctx.session_id" in idents and "result.content" in idents
    assert "RENDER_MODE" in idents


def test_the_same_code_patterns_as_the_pipeline_rule_layer() -> None:
    text = "See src/app/main.py and https://example.org/a, then run `make test all` (#42)."
    by_text = {(e.text, e.kind) for e in nlp.code_entities(text)}
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
