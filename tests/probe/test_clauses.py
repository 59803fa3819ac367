"""A request that follows a statement in one sentence ("let's keep X, can you add Y?") is read
as a clause of its own (invented exchanges): the statement still chooses, the request is work,
and the work keeps the whole sentence in its summary."""

from __future__ import annotations

from rolling_graph import nlp
from rolling_graph.eval.dialogue import replay_dialogue
from rolling_graph.probe.offline.prompts import sentences


def _nodes(prompt: str, before: str = "") -> dict[str, tuple[str, str]]:
    graph = replay_dialogue([(before, prompt)]).graph
    return {n.label: (n.kind, n.summary or "") for n in graph.nodes.values()}


def test_a_choice_then_a_request() -> None:
    got = _nodes("let's keep the old endpoint, can you add a deprecation warning?")
    assert got["Keep the old endpoint"][0] == "decision"
    kind, summary = got["Add a deprecation warning"]
    assert kind == "task" and summary.startswith("let's keep the old endpoint")


def test_a_plan_of_ones_own_then_a_question_of_work() -> None:
    before = "Shall I apply these fixes, or would you like to review the sheet first?"
    got = _nodes(
        "I'll review the sheet and confirm the fixes there - while I do that, could you "
        "check the scanned form and see if you can resolve the gap?",
        before,
    )
    assert any(kind == "task" and "scanned form" in label for label, (kind, _) in got.items())


def test_the_work_keeps_what_the_statement_said() -> None:
    got = _nodes("in vendor/parser there is an old copy of the parser, can you compare it to ours?")
    task = next(s for kind, s in got.values() if kind == "task")
    assert "vendor/parser" in task


def test_a_short_lead_is_not_a_clause_of_its_own() -> None:
    found = [s for s, *_ in sentences("ok, can you run the tests?", nlp, "")]
    assert found == ["ok, can you run the tests?"]
    found = [s for s, *_ in sentences("let's keep the old endpoint, can you add a test?", nlp, "")]
    assert found == ["let's keep the old endpoint", "can you add a test?"]


def test_a_typed_line_break_leaves_no_backslash_in_a_label() -> None:
    # Claude Code's input takes "\" + Enter as a line break; an /export keeps the backslash
    got = _nodes("thanks.\\\n\\\nplease add a retry to the uploader.\\\n")
    assert "Add a retry to the uploader" in got
    assert not any("\\" in label for label in got)


def test_a_label_keeps_the_quotes_it_opens_and_closes() -> None:
    from rolling_graph.probe.offline import clauses

    assert clauses.clause("the second 'K' 'Kit Marlowe'") == "the second 'K' 'Kit Marlowe'"
    assert clauses.clause("`uv` for packages") == "`uv` for packages"
    assert clauses.clause('"night mode", then ship') == '"night mode"'
    assert clauses.clause("let's go 'lean") == "let's go 'lean"  # one apostrophe is no quote
    assert clauses.clause("'lean") == "lean"  # a stray quote mark at an end goes
    decisions = replay_dialogue([("Done.", "ok, let's call the second 'K' 'Kit Marlowe'")])
    assert [label for _, label in decisions.decisions] == ["Call the second 'K' 'Kit Marlowe'"]


def test_a_pronoun_after_a_preposition_stays_with_it() -> None:
    # Dropping "it" strands "on", and dropping that leaves "Show me what's".
    got = _nodes("I'd like to check, can you show me what's in it?", "I wrote the release notes.")
    assert "Show me what's in it" in got
    assert "Add a test for it" in _nodes("could you add a test for it?", "The parser is done.")
    assert "Point me at them" in _nodes("can you point me at them?", "I found two configs.")
    # filler and a pronoun with no preposition still go
    assert "Update the docs" in _nodes("please update the docs as well", "Done.")


def test_a_phrase_cut_before_a_that_clause_ends_on_no_verb_of_saying() -> None:
    from rolling_graph.probe.offline import clauses

    said = "post a note in the release thread saying that the beta is paused until monday"
    assert clauses.clause(said, 9, before_subordinate=True) == "post a note in the release thread"
    # and on no word that lost its object either
    said = "send the logs to the vendor with which they can reproduce the crash"
    assert clauses.clause(said, 9, before_subordinate=True) == "send the logs to the vendor"
