"""The offline backend: deterministic rules over the gate's spaCy layer, engine-valid patches."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rolling_graph.core.patch import PatchSource, validate_patch
from rolling_graph.core.session import HotSession
from rolling_graph.eval.prompt_replay import replay_prompts
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import OfflineBackend, build_patch
from rolling_graph.probe.prompt import PromptError, format_turns, load_prompt, render_probe_prompt
from rolling_graph.probe.runner import graph_view
from rolling_graph.render.lod import render_session


def probe(sess: HotSession, *texts: str, tools: list[str] | None = None) -> dict[str, Any]:
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    req = ProbeRequest(
        "s", turn, [TurnDigest(turn, t, tools=tools or []) for t in texts], nodes, edges
    )
    patch = OfflineBackend().run(req).raw
    res = sess.apply(patch, PatchSource("offline", "offline.v1"))
    assert res.applied, res.error
    return patch


def test_resend_then_bento_supersedes() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, "For the newsletter, let's use Resend for email delivery.")
    g = sess.graph
    old = "use-resend-for-email-delivery"  # the chosen thing and what it is for
    assert g.nodes[old].kind == "decision"
    assert f"{old}|uses|resend" in g.edges
    w_old = g.nodes[old].weight
    w_entity = g.nodes["resend"].weight
    probe(sess, "Actually, Bento instead.")
    assert g.nodes["use-bento"].kind == "decision"
    assert f"use-bento|supersedes|{old}" in g.edges
    assert "use-bento|uses|bento" in g.edges
    assert g.nodes[old].weight < w_old  # retired by weakening, never deleted
    assert g.nodes["resend"].weight == w_entity
    assert g.superseded_by() == {old: ["use-bento"]}


def test_correction_picks_the_negated_decision() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, "We'll use Postgres for storage.")
    probe(sess, "Let's go with Redis for the cache.")
    probe(sess, "No, not Postgres: switch to SQLite instead.")
    assert "use-sqlite|supersedes|use-postgres-for-storage" in sess.graph.edges
    assert "use-sqlite|supersedes|use-redis-for-the-cache" not in sess.graph.edges


def test_same_batch_correction() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, "let's use Resend for email", "actually, Bento instead")
    assert "use-bento|supersedes|use-resend-for-email" in sess.graph.edges


def test_correction_strengthens_named_nodes() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, "The Dashboard talks to Stripe.")
    w = sess.graph.nodes["stripe"].weight
    patch = probe(sess, "Actually, the Dashboard should use Stripe Checkout instead.")
    assert sess.graph.nodes["stripe"].weight > w or any(
        op["path"] == "/nodes/stripe/weight" for op in patch["ops"]
    )


def test_entities_and_co_mention() -> None:
    sess = HotSession.in_memory("s")
    patch = probe(sess, "The HotStore in rolling_graph/hotstore.py uses FileLock with PostgreSQL.")
    g = sess.graph
    assert "rolling-graph-hotstore-py" in g.nodes
    assert g.nodes["rolling-graph-hotstore-py"].kind == "file"
    assert "hotstore.py" in g.nodes["rolling-graph-hotstore-py"].aliases
    assert {"hotstore", "filelock", "postgresql"} <= set(g.nodes)
    assert any(e.relationship == "relates-to" for e in g.edges.values())
    assert all(op.get("reason") for op in patch["ops"])
    # Mentioned again: strengthened, not duplicated.
    w = g.nodes["hotstore"].weight
    patch2 = probe(sess, "Is the hotstore thread-safe?")
    assert g.nodes["hotstore"].weight > w
    assert not any(op["op"] == "add" and op["path"] == "/nodes/hotstore" for op in patch2["ops"])


def test_files_from_tool_digest() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, "fix it", tools=["Edit src/app/login.tsx", "Bash: npm test"])
    assert sess.graph.nodes["src-app-login-tsx"].kind == "file"


def test_noise_and_secrets_are_skipped() -> None:
    sess = HotSession.in_memory("s")
    probe(
        sess, "THANKS! key [REDACTED:openai-key] and crashes/restarts, run `npm run build` v1.2.3"
    )
    labels = {n.label for n in sess.graph.nodes.values()}
    assert not any("REDACTED" in x or x == "THANKS" or "/" in x for x in labels)


def test_deterministic_and_within_limits() -> None:
    text = " ".join(f"Module{i} talks to Service{i} via api_{i}." for i in range(60))
    req = ProbeRequest("s", 1, [TurnDigest(1, text)], max_ops=20)
    a, b = build_patch(req), build_patch(req)
    assert a == b and 0 < len(a["ops"]) <= 20
    validate_patch(HotSession.in_memory("s").graph, a)  # raises if the engine would refuse it


def test_empty_turns_give_empty_patch() -> None:
    patch = build_patch(ProbeRequest("s", 1, [TurnDigest(1, "ok")]))
    assert patch["ops"] == [] and patch["rationale"]


def test_replay_prompts_helper() -> None:
    res = replay_prompts(["let's use Resend", "actually Bento instead", "thanks!"])
    assert res.probes == 3 and res.rejected == []
    assert "use-bento" in res.session.graph.nodes


# -- the prompt file


def test_prompt_file_loads_and_renders() -> None:
    p = load_prompt("probe.v1")
    assert p.id == "probe.v1" and len(p.hash) == 64
    sess = HotSession.in_memory("s")
    probe(sess, "let's use Resend for email")
    nodes, edges = graph_view(sess.graph)
    req = ProbeRequest(
        "s", 2, [TurnDigest(2, "actually, Bento instead", tools=["Edit a.py"])], nodes, edges
    )
    prompt, text = render_probe_prompt(req)
    assert "$" not in text.replace("$$", "")  # every variable was filled
    # v3's slice names a node by id (its label only when the id is not the label's slug)
    assert "use-resend-for-email | decision | " in text and "actually, Bento instead" in text
    assert "supersedes" in text and "Edit a.py" in text


def test_prompt_missing_variable_is_an_error() -> None:
    with pytest.raises(PromptError, match="missing variable 'graph'"):
        load_prompt("probe.v2").render(turn=1)
    with pytest.raises(PromptError, match="missing variable 'domains'"):
        load_prompt("probe.v3").render(turn=1)


def test_turns_truncated_to_budget() -> None:
    turns = [TurnDigest(i, "x" * 5000, assistant="y" * 5000) for i in range(20)]
    text = format_turns(turns, budget=12_000)
    assert len(text) < 16_000 and "older turns left out" in text and "### Turn 19" in text


def test_schema_is_json() -> None:
    from rolling_graph.probe.base import patch_schema

    json.dumps(patch_schema())


def test_correction_retires_the_replaced_entity_too() -> None:
    from rolling_graph.eval.prompt_replay import replay_prompts

    r = replay_prompts(
        [
            "Let's use Resend for transactional email in email_config.py",
            "Now add the signup form",
            "Actually, Bento instead of Resend for transactional email.",
        ]
    )
    g = r.session.graph
    assert "use-bento|supersedes|use-resend-for-transactional-email-in-email-config-py" in g.edges
    assert "bento|supersedes|resend" in g.edges
    text = render_session(r.session).text
    assert "Bento (supersedes Resend)" in text
    assert not any(line.startswith("- Resend") for line in text.splitlines())
