"""LOD rendering (DESIGN §5) and the spec's Resend → Bento scenario."""

from __future__ import annotations

import random
import re

from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.render.lod import render, render_session
from tests.helpers import graph_of, node, random_graph

SRC = PatchSource(probe="test")


def _resend_then_bento() -> HotSession:
    s = HotSession.in_memory("spec")
    s.advance_turn()
    r = s.apply(
        [
            {
                "op": "add",
                "path": "/nodes/use-resend",
                "value": {
                    "label": "Use Resend for email",
                    "domain": "project",
                    "kind": "decision",
                    "aliases": ["resend"],
                },
                "reason": "let's use Resend",
            },
            {
                "op": "add",
                "path": "/nodes/email-sending",
                "value": {"label": "Email sending", "domain": "technical"},
                "reason": "topic",
            },
            {
                "op": "add",
                "path": "/edges/use-resend|part-of|email-sending",
                "value": {
                    "source": "use-resend",
                    "target": "email-sending",
                    "relationship": "part-of",
                },
                "reason": "co-mention",
            },
        ],
        SRC,
    )
    assert r.applied, r.error
    for _ in range(3):
        s.advance_turn()
        s.decay()
    r = s.apply(
        {
            "rationale": "decision changed",
            "ops": [
                {
                    "op": "add",
                    "path": "/nodes/use-bento",
                    "value": {
                        "label": "Use Bento for email",
                        "domain": "project",
                        "kind": "decision",
                        "summary": "Chosen over Resend",
                        "aliases": ["bento"],
                    },
                    "reason": "use Bento instead",
                },
                {
                    "op": "add",
                    "path": "/edges/use-bento|supersedes|use-resend",
                    "value": {
                        "source": "use-bento",
                        "target": "use-resend",
                        "relationship": "supersedes",
                    },
                    "reason": "replaces Resend",
                },
                {
                    "op": "add",
                    "path": "/edges/use-bento|part-of|email-sending",
                    "value": {
                        "source": "use-bento",
                        "target": "email-sending",
                        "relationship": "part-of",
                    },
                    "reason": "same topic",
                },
            ],
        },
        SRC,
    )
    assert r.applied, r.error
    return s


def test_resend_then_bento_keeps_both_and_renders_bento_as_current() -> None:
    s = _resend_then_bento()
    g = s.graph
    assert {"use-resend", "use-bento"} <= set(g.nodes)
    assert "use-bento|supersedes|use-resend" in g.edges
    assert g.nodes["use-resend"].weight < g.nodes["use-bento"].weight
    text = render_session(s).text
    assert "Use Bento for email (supersedes Use Resend for email)" in text
    # Resend appears only inside the supersedes phrase, never as a line of its own.
    assert text.count("Use Resend for email") == 1
    assert not any(line.startswith("- Use Resend") for line in text.splitlines())


def test_superseded_node_is_shown_when_named() -> None:
    s = _resend_then_bento()
    text = render_session(s, "why did we drop resend?").text
    assert "- Use Resend for email (superseded by Use Bento for email)" in text


def test_300_node_graph_fits_800_tokens_and_shows_focus_in_full() -> None:
    g = random_graph(300, seed=3)
    out = render(g, budget=800)
    assert out.tokens <= 800 and estimate_tokens(out.text) <= 800
    assert len(out.focus) == 5
    for nid in out.focus:
        n = g.nodes[nid]
        assert f"- {n.label} [{n.domain}" in out.text
        if n.summary:
            assert n.summary.rstrip(".") in out.text
    assert "Also known, not shown:" in out.text
    for dom in ("relationship", "project", "technical", "personal"):
        assert f" in {dom}" in out.text.splitlines()[-1]  # counts per domain, last


def test_budget_is_respected_at_every_size() -> None:
    rnd = random.Random(1)
    for n in (1, 5, 30, 300, 2000):
        g = random_graph(n, seed=rnd.randrange(1000))
        for budget in (200, 500, 800):
            for why in (False, True):
                out = render(
                    g,
                    budget=budget,
                    prompt="what about concept 12 api and the deploy budget?",
                    show_why=why,
                    in_play=[f"name_{i}" for i in range(400)],
                )
                assert out.tokens <= budget, (n, budget, why, out.tokens)


def test_mention_snaps_branch_to_full_detail_and_overlap_gives_hint() -> None:
    nodes = [node(f"f{i}", turn=9, weight=0.9) for i in range(5)]
    nodes += [
        node(
            "billing-service",
            "project",
            0.3,
            turn=1,
            summary="Charges customers monthly through Stripe",
        ),
        node("stripe-webhooks", "technical", 0.3, turn=1, summary="Webhook handler"),
        node("deploy-pipeline", "technical", 0.2, turn=1),
    ]
    g = graph_of(nodes, [("billing-service", "uses", "stripe-webhooks")], turn=10)
    out = render(g, prompt="Let's look at the billing service again", show_why=True)
    assert "billing-service" in out.mentioned
    assert "- Billing Service [project]: Charges customers monthly through Stripe." in out.text
    assert "- Stripe Webhooks [technical" in out.text  # the branch snapped to full detail too
    assert "named in the prompt" in out.text
    hint = render(g, prompt="the pipeline keeps failing", breadth=False)
    assert hint.hints == ["deploy-pipeline"]
    assert "Related (pipeline): Deploy Pipeline (technical); ask to expand." in hint.text


def test_render_is_deterministic() -> None:
    g = random_graph(200, seed=11)
    assert (
        render(g, prompt="concept 5").text
        == render(g.model_copy(deep=True), prompt="concept 5").text
    )


def test_empty_graph_renders_nothing() -> None:
    assert render(graph_of([])).text == ""


def _scattered(n: int = 240) -> HotGraph:
    """Five connected focus nodes and ``n`` unconnected ones of varied age and weight."""
    nodes = [node(f"focus-{i}", weight=0.9, turn=20) for i in range(5)]
    nodes += [
        node(f"item-{i:02d}", "technical" if i % 3 else "project", 0.2 + (i % 7) / 10, turn=i % 19)
        for i in range(n)
    ]
    edges = [(f"focus-{i}", "relates-to", f"focus-{i + 1}") for i in range(4)]
    return graph_of(nodes, edges, turn=20)


def test_breadth_spends_the_budget_on_recent_items_before_the_counts() -> None:
    g = _scattered()
    full = render(g, budget=800)
    compact = render(g, budget=800, breadth=False)
    assert "Recent (" not in compact.text
    assert full.tokens > compact.tokens and full.tokens <= 800
    lines = full.text.splitlines()
    play = [i for i, x in enumerate(lines) if x.startswith("Recent (")]
    assert play and lines[-1].startswith("Also known, not shown:")  # counts stay last
    assert max(play) < len(lines) - 1
    # Brief items: labels, with the domain said once per line.
    assert any(x.startswith("Recent (technical): ") for x in lines)
    assert "Item 18" in full.text  # the most recently active come first…
    shown = {nid for it in full.items if it.section == "breadth" for nid in it.node_ids}
    hidden = set(g.nodes) - shown - {n for it in full.items for n in it.node_ids}
    newest_hidden = max((g.nodes[n].last_activated for n in hidden), default=-1)
    assert all(g.nodes[n].last_activated >= newest_hidden for n in shown)  # …then the older
    # The compact block starts like the full one (same focus, same order).
    focus_full = [x for x in lines if x.startswith("- ")]
    assert focus_full == [x for x in compact.text.splitlines() if x.startswith("- ")]


def test_breadth_respects_every_budget_and_is_deterministic() -> None:
    rnd = random.Random(5)
    for n in (3, 40, 400):
        g = random_graph(n, seed=rnd.randrange(1000))
        for budget in (200, 500, 800):
            out = render(g, budget=budget)
            assert out.tokens <= budget and len(out.text) < 9_000, (n, budget)
        assert render(g).text == render(g.model_copy(deep=True)).text


def test_breadth_never_lists_a_superseded_decision() -> None:
    s = _resend_then_bento()
    for i in range(30):
        s.apply(
            [
                {
                    "op": "add",
                    "path": f"/nodes/extra-{i}",
                    "value": {"label": f"Extra {i}", "domain": "technical"},
                    "reason": "filler",
                }
            ],
            SRC,
        )
    text = render_session(s).text
    assert "Recent (technical)" in text
    assert text.count("Use Resend for email") == 1  # only as "(supersedes …)"


def test_header_says_where_the_facts_come_from() -> None:
    g = graph_of([node("bento", turn=0)], turn=0)
    assert render(g).text.startswith(
        "Rolling memory from earlier sessions of this project (1 items)."
    )
    g.turn = 3
    assert render(g).text.startswith("Rolling memory of this session (turn 3, 1 items).")


def _hub(n_neighbours: int = 10) -> HotGraph:
    """Five connected focus nodes; the first one linked to ``n_neighbours`` older nodes."""
    nodes = [node(f"focus-{i}", weight=0.9, turn=20) for i in range(5)]
    nodes += [node(f"nb-{i:02d}", weight=0.5 + i / 100, turn=10) for i in range(n_neighbours)]
    edges = [(f"focus-{i}", "relates-to", f"focus-{i + 1}") for i in range(4)]
    edges += [("focus-0", "uses", f"nb-{i:02d}") for i in range(n_neighbours)]
    return graph_of(nodes, edges, turn=20)


def test_nearby_lists_labels_once_with_the_domain_in_the_head() -> None:
    g = _hub()
    out = render(g, budget=800, breadth=False)
    nearby = [x for x in out.text.splitlines() if x.startswith("Nearby (")]
    assert nearby
    for line in nearby:
        # "Nearby (technical): Nb 04, Nb 05." — the domain once, no weights.
        assert re.fullmatch(r"Nearby \(technical\): [^;()]+\.", line)
    # Every neighbour is named exactly once: in a focus item's links or in a Nearby line.
    for i in range(10):
        assert out.text.count(f"Nb {i:02d}") == 1, i
    linked = {f"nb-{i:02d}" for i in range(10) if f"uses Nb {i:02d}" in out.text}
    listed = {n for it in out.items if it.section == "neighbour" for n in it.node_ids}
    assert linked and listed and not linked & listed


def test_breadth_items_are_a_comma_separated_label_list() -> None:
    full = render(_scattered(), budget=800)
    play = [x for x in full.text.splitlines() if x.startswith("Recent (")]
    assert play and all("; " not in x and x.endswith(".") for x in play)
    assert any(", " in x for x in play)
    # Compact lists carry more labels than "label (domain, weight)" items would.
    n_items = sum(len(it.node_ids) for it in full.items if it.section == "breadth")
    assert n_items >= 40


def test_a_line_ending_in_a_question_takes_no_full_stop_after_it() -> None:
    """A task the agent worked on may be a question ("How's the deploy doing?"): the lines that
    list it end with its question mark, not "?." (rolling_graph.nlp.text.closed)."""
    done = {"status": "completed", "source": "prompt"}
    g = graph_of(
        [
            node(
                "t1", "project", 0.6, 3, kind="task", label="Add a retry to the upload", attrs=done
            ),
            node("t2", "project", 0.7, 4, kind="task", label="How's the deploy doing?", attrs=done),
            node(
                "t3",
                "project",
                0.9,
                5,
                kind="task",
                label="Is the cache warm?",
                attrs={"status": "in_progress", "source": "prompt"},
            ),
            node("f1", "technical", 0.5, 5, kind="file", label="src/cache.py"),
        ],
        [("t3", "uses", "f1")],
        turn=5,
    )
    text = render(g).text
    done_line = next(line for line in text.splitlines() if line.startswith("Done:"))
    assert done_line.endswith("How's the deploy doing?") or "doing?;" in done_line, done_line
    assert "?." not in text, text
    task = next(line for line in text.splitlines() if line.startswith("Task in progress:"))
    assert task.startswith("Task in progress: Is the cache warm? Files: src/cache.py"), task


def test_a_task_that_corrects_the_agent_names_the_work_first() -> None:
    """A request that contradicted what the agent said ("no, examine the English translations",
    after "I will only read the Bulgarian diaries") is the task in progress: its line opens with
    the work, then says that it corrects the agent, not "Task in progress: corrects the agent:
    …" (three final blocks of saross__trap-extraction read so). Invented exchange."""
    work = "Examine the English translations of the diaries"
    claim = "Agent: I will only read the Bulgarian diaries"
    doing = {"status": "in_progress", "source": "prompt"}
    task = node("t1", "project", 0.9, 4, kind="task", label=work, attrs=doing)
    said = node("c1", "project", 0.4, 3, kind="concept", label=claim, attrs={"said_by": "agent"})
    g = graph_of([task, said], [("t1", "supersedes", "c1")], turn=4)
    line = next(x for x in render(g).text.splitlines() if x.startswith("Task in progress"))
    assert line.startswith(f"Task in progress: {work} (corrects the agent)"), line
