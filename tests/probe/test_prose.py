"""The offline probe on prose: recurring names in what the person and the agent wrote become
nodes (labels as written), strengthened by recurrence; noise (stop words, generic verbs,
boilerplate, sentence-initial capitals, quoted regex alternations) stays out; op budgets hold."""

from __future__ import annotations

from typing import Any

from rolling_graph.core.patch import PatchSource, validate_patch
from rolling_graph.core.session import HotSession
from rolling_graph.observe.digest import key_identifiers
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import build_patch
from rolling_graph.probe.offline.tools import command_programs as _programs
from rolling_graph.probe.offline.tools import command_segments as _segments
from rolling_graph.probe.runner import graph_view


def probe(
    sess: HotSession, user: str = "", assistant: str = "", tools: list[str] | None = None
) -> dict[str, Any]:
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    req = ProbeRequest(
        "s", turn, [TurnDigest(turn, user, assistant=assistant, tools=tools or [])], nodes, edges
    )
    patch = build_patch(req)
    res = sess.apply(patch, PatchSource("offline", "offline.v1"))
    assert res.applied, res.error
    return patch


def labels(sess: HotSession) -> set[str]:
    return {n.label for n in sess.graph.nodes.values()}


def test_recurring_names_in_assistant_text_become_nodes_as_written() -> None:
    sess = HotSession.in_memory("s")
    probe(
        sess,
        user="add secret scanning to the repo",
        assistant=(
            "I configured the scanner with rules for Twilio and JWT tokens.\n"
            "The Twilio rule matches account SIDs; the JWT rule checks the `base64_header` part.\n"
            "Run it with `base64_header` unset to test. Stripe keys are covered once."
        ),
    )
    got = labels(sess)
    assert {"Twilio", "JWT", "base64_header"} <= got  # recurring: twice or more in the window
    assert "Stripe" not in got  # named once: not yet a topic
    assert sess.graph.nodes["jwt"].kind == "concept"  # an acronym
    assert sess.graph.nodes["twilio"].kind == "entity"


def test_a_name_in_text_and_in_a_tool_call_recurs() -> None:
    sess = HotSession.in_memory("s")
    probe(
        sess,
        assistant="Next I will wire the Gitleaks config into CI.",
        tools=["Bash: gitleaks detect --config .gitleaks.toml | ids: Gitleaks"],
    )
    assert "Gitleaks" in labels(sess)


def test_noise_stays_out() -> None:
    sess = HotSession.in_memory("s")
    probe(
        sess,
        user='claude "/build-with-claude Build the Bhavana program"',
        assistant=(
            "Done. Build passes. Build and Test are green.\n"
            "Perfect. Now the Summary: Build, Test, Deploy.\n"
            "git commit -m 'wip'\n\nCo-Authored-By: Claude Opus <noreply@anthropic.com>\n"
            "Co-Authored-By: Claude Opus <noreply@anthropic.com>\n"
            "Bhavana works; Bhavana ships."
        ),
    )
    got = {label.lower() for label in labels(sess)}
    assert "bhavana" in got
    for noise in ("build", "test", "deploy", "summary", "perfect", "done", "opus", "claude"):
        assert noise not in got, noise
    assert not any("authored" in x for x in got)


def test_recurrence_across_windows_strengthens_and_frequency_boosts() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, assistant="OpenVPN is up. OpenVPN routes the traffic.")
    w1 = sess.graph.nodes["openvpn"].weight
    probe(sess, assistant="Restarted OpenVPN on the router.")  # once, in a later window
    w2 = sess.graph.nodes["openvpn"].weight
    assert w2 > w1
    patch = probe(sess, assistant=" ".join(["OpenVPN reconnects."] * 5))
    steps = [op for op in patch["ops"] if op["path"] == "/nodes/openvpn/weight"]
    assert len(steps) >= 2  # named 5× in one window: the engine steps more than once
    assert sess.graph.nodes["openvpn"].weight > w2


def test_one_word_name_is_matched_as_written() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, user="The newsletter goes through Bento. Bento has the templates.")
    w = sess.graph.nodes["bento"].weight
    sess.advance_turn()
    probe(sess, user="please build a lunch bento box page")  # the common word, not the name
    assert sess.graph.nodes["bento"].weight <= w
    probe(sess, user="Does Bento support webhooks?")
    assert sess.graph.nodes["bento"].weight > w


def test_quoted_alternation_is_one_argument_not_programs() -> None:
    cmd = 'cat a.json 2>/dev/null | grep -i -E "rwa|real.?estate|property|tokeniz" || echo "NO"'
    assert len(_segments(cmd)) == 3
    assert [p for p, _ in _programs(cmd)] == []  # cat, grep, echo: trivial
    assert [p for p, _ in _programs("pytest -q 2>&1 && mix test; cargo build &")] == [
        "pytest",
        "mix",
        "cargo",
    ]
    assert _segments("echo 'a;b|c' && ls") == ["echo 'a;b|c' ", " ls"]


def test_many_names_stay_within_max_ops_with_new_nodes_first() -> None:
    sess = HotSession.in_memory("s")
    names = [f"Service{chr(65 + i)}{chr(97 + i)}x" for i in range(26)]
    text = "\n".join(f"We call {n} and then {n} again." for n in names)
    tools = [f"Edit src/m{i}.py | ids: {', '.join(names[i : i + 5])}" for i in range(20)]
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    req = ProbeRequest("s", turn, [TurnDigest(turn, "", text, tools)], nodes, edges)
    patch = build_patch(req)
    assert len(patch["ops"]) <= req.max_ops
    validate_patch(sess.graph, patch)
    kinds = [
        "add" if op["op"] == "add" and op["path"].startswith("/nodes/") else "other"
        for op in patch["ops"]
        if op["path"].startswith("/nodes/")
    ]
    # Boosts and summary refreshes are deferred: no node op after the first non-add one is
    # an add (new names are never crowded out by extra strengthening).
    first_other = kinds.index("other") if "other" in kinds else len(kinds)
    assert "add" not in kinds[first_other:]


def test_key_identifiers_keep_names_a_written_doc_repeats() -> None:
    doc = (
        "# Secret scanning\n\nWe block keys for Twilio, Stripe and OpenAI.\n"
        "- The Twilio rule matches SIDs.\n- The OpenAI rule matches sk- keys.\n"
        "Only one rule mentions Mailgun.\n"
    )
    ids = key_identifiers(doc)
    assert "Twilio" in ids and "OpenAI" in ids
    assert "Mailgun" not in ids  # once
    assert "Secret" not in ids and "The" not in ids


def test_boilerplate_lines_go_as_the_pattern_alone_takes_them() -> None:
    # the words' pre-check is a speed-up only: same text out, with or without the words, in
    # any case, and with letters that fold to ASCII only in a case-blind pattern
    from rolling_graph.probe.offline import prose

    texts = [
        "Fixed it.\nCo-Authored-By: Claude <noreply@anthropic.com>\nDone ✅",
        "no boilerplate here — just “quotes” and an emoji 🚀",
        "🤖 GENERATED WITH [Claude Code](https://claude.ai)\nrest",
        "ſigned-off-by: someone\nbody",
        "plain ascii text\nwith lines",
    ]
    for text in texts:
        assert prose._without_boilerplate(text) == prose._BOILERPLATE.sub(" ", text), text
