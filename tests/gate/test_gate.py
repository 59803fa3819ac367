"""Gate unit tests: cues and false friends, each trigger, dead-man switches, state."""

from __future__ import annotations

import pytest

from rolling_graph.core.hotstore import HotStore
from rolling_graph.gate import Gate, GateState
from rolling_graph.gate.state import load_state, save_state
from rolling_graph.nlp import (
    classify_domain,
    correction_cues,
    decision_cues,
    extract_entities,
)


@pytest.mark.parametrize(
    "text",
    [
        "no problem, thanks",
        "No worries at all",
        "it actually works now",
        "wait for the build to finish",
        "no need to rush this",
        "I can't wait to see it",
        "not sure, what do you think?",
    ],
)
def test_correction_false_friends(text: str) -> None:
    assert correction_cues(text) == []


@pytest.mark.parametrize(
    "text,word",
    [
        ("No, use the other file", "no"),
        ("actually, make it blue", "actually"),
        ("wait, that's the wrong branch", "wait"),
        ("I meant the staging server", "i meant"),
        ("that's not what I asked", "that's not"),
        ("the test is still failing", "still failing"),
    ],
)
def test_correction_cues(text: str, word: str) -> None:
    assert word in correction_cues(text)


@pytest.mark.parametrize(
    "text",
    [
        "let's go with Postgres",
        "We'll use Redis for the cache",
        "switch to pnpm",
        "I decided to drop it",
        "2",
    ],
)
def test_decision_cues(text: str) -> None:
    assert decision_cues(text)


def test_decision_ignores_code() -> None:
    assert decision_cues("what does `let's go with` mean in ```\nswitch to x\n```?") == []


def test_entities_kinds() -> None:
    ents = {
        e.text: e.kind
        for e in extract_entities(
            "See src/app/main.py, rolling_graph.gate, @scope/pkg, HotStore, snake_case, "
            "https://x.org/a, #42, `npm run build` and talk to Alice Smith about Bento."
        )
    }
    assert ents["src/app/main.py"] == "file"
    assert ents["rolling_graph.gate"] == "module"
    assert ents["@scope/pkg"] == "package"
    assert ents["HotStore"] == "identifier"
    assert ents["snake_case"] == "identifier"
    assert ents["https://x.org/a"] == "url"
    assert ents["#42"] == "issue"
    assert ents["npm run build"] == "command"
    assert ents["Alice Smith"] == "proper"
    assert ents["Bento"] == "proper"


def test_domain_classifier_and_margin() -> None:
    tech = classify_domain("the function throws an exception in the database query, fix the test")
    assert tech.winner == "technical" and tech.confident
    rel = classify_domain("thanks, great job, I really appreciate it")
    assert rel.winner == "relationship"
    assert classify_domain("").winner == ""
    weak = classify_domain("hmm ok")
    assert not weak.confident


def test_new_entity_known_terms_and_seen() -> None:
    gate = Gate()
    state = GateState()
    d = gate.evaluate_prompt("Let me tell you about Bento", state, {"bento"})
    assert "new_entity" not in d.names()
    d = gate.evaluate_prompt("What about Resend?", state, set())
    assert any(t.name == "new_entity" and "Resend" in t.words for t in d.triggers)
    d = gate.evaluate_prompt("And Resend again?", state, set())
    assert "new_entity" not in d.names()


def test_domain_shift() -> None:
    gate = Gate()
    state = GateState()
    for text in [
        "fix the failing test in the database module",
        "the api endpoint returns a type error, debug the function",
        "refactor the parser class and run the tests",
    ]:
        gate.evaluate_prompt(text, state, set())
    d = gate.evaluate_prompt(
        "thanks team, great job, I really appreciate your feedback", state, set()
    )
    assert "domain_shift" in d.names()


def test_dead_man_turns() -> None:
    gate = Gate(dead_man_turns=8)
    state = GateState()
    fired = [gate.evaluate_prompt("ok", state, set()).fired for _ in range(17)]
    assert fired == [False] * 7 + [True] + [False] * 7 + [True, False]
    assert state.turns_since_probe == 1


def test_dead_man_steps_and_tool_rate() -> None:
    gate = Gate(dead_man_steps=25)
    state = GateState()
    fired = []
    for _ in range(100):
        d = gate.evaluate_tool("Read", {"file_path": "/a.py"}, {"content": "x"}, state)
        fired.append(d.fired)
    assert fired.count(True) == 4 and fired.index(True) == 24
    # Noisy tools (new files, errors every step) still give at most one probe per 20 steps.
    state = GateState()
    n = 0
    for i in range(200):
        d = gate.evaluate_tool("Write", {"file_path": f"/f{i}.py"}, {"error": "Error: boom"}, state)
        n += d.fired
        assert d.kind == "tool"
    assert n == 10
    assert gate.evaluate_tool("Bash", {"command": "ls"}, None, state, phase="pre").triggers == []


def test_tool_signals() -> None:
    gate = Gate()
    state = GateState()
    for _ in range(19):
        gate.evaluate_tool("Read", {"file_path": "/a.py"}, "", state)
    d = gate.evaluate_tool(
        "Bash",
        {"command": "cd x && pytest -q"},
        {"stderr": "Traceback (most recent call last)"},
        state,
    )
    assert {"tool_command", "tool_error"} <= d.names()
    assert next(t.words for t in d.triggers if t.name == "tool_command") == ("pytest",)


def test_prompt_probe_resets_step_counter() -> None:
    gate = Gate()
    state = GateState()
    for _ in range(15):
        gate.evaluate_tool("Read", {"file_path": "/a.py"}, "", state)
    gate.evaluate_prompt("let's go with Postgres", state, set())
    assert state.steps_since_probe == 0 and state.turns_since_probe == 0


def test_plugin_rules_and_broken_rules() -> None:
    class Rule:
        name = "todo"

        def check(self, text, doc, state, graph):
            return ["TODO"] if "TODO" in text else None

    class Broken:
        name = "broken"

        def check(self, text, doc, state, graph):
            raise RuntimeError("boom")

    errors = []
    gate = Gate(rules=[Rule(), Broken()], log_error=lambda n, e: errors.append(n))
    d = gate.evaluate_prompt("a TODO here", GateState(), set())
    assert "todo" in d.names() and errors == ["broken"]


def test_state_persistence(tmp_path) -> None:
    store = HotStore(tmp_path)
    gate = Gate()
    state = GateState()
    gate.evaluate_prompt("Let's use Bento", state, set())
    gate.evaluate_tool("Edit", {"file_path": "/x.py"}, {}, state)
    save_state(store, "s", state)
    again = load_state(store, "s")
    assert again.to_dict() == state.to_dict()
    assert again.knows("bento")
    store.write_state("s", "gate", {"turn": "bad", "seen": [1, "x"], "zzz": 1})
    odd = load_state(store, "s")
    assert odd.turn == 0 and odd.seen == ["x"]
    assert GateState.from_dict(None).turn == 0


def test_garbage_text_never_raises() -> None:
    gate = Gate()
    state = GateState()
    for text in ["", "\x00\x01", "`" * 1000, "a" * 100_000, "🙂" * 50, "```unterminated", None]:
        gate.evaluate_prompt(text, state, set())  # type: ignore[arg-type]
