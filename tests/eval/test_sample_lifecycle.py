"""The project's sample, replayed as a new user would (issue 27): "Decisions in force" holds no
"supersedes Agent: …" chain, Bento and Resend are superseded in one order only, and at most
one task is in progress, in every session's graph and in the rendered block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.model import AGENT_CLAIM, HotGraph
from rolling_graph.core.patch.history import closes_cycle
from rolling_graph.render.lod import render


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory, samples: list[Path]) -> list[HotGraph]:
    out = tmp_path_factory.mktemp("sample")
    res = CliRunner().invoke(cli, ["replay", *map(str, samples), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return [
        HotGraph.model_validate(json.loads(p.read_text()))
        for p in sorted((out / "graphs").glob("*.json"))
    ]


def _line(text: str, head: str) -> str:
    return next((ln for ln in text.splitlines() if ln.startswith(head)), "")


def newsletter(graphs: list[HotGraph]) -> HotGraph:
    found = [g for g in graphs if "bento" in g.nodes and "resend" in g.nodes and g.turn > 10]
    assert len(found) == 1
    return found[0]


def test_supersedes_edges_form_no_cycle(graphs: list[HotGraph]) -> None:
    for g in graphs:
        pairs: dict[str, tuple[str, str]] = {}
        for key, e in g.edges.items():
            if e.relationship == "supersedes":
                assert not closes_cycle(pairs, e.source, e.target), (g.session_id, key)
                pairs[key] = (e.source, e.target)


def test_bento_and_resend_in_one_order(graphs: list[HotGraph]) -> None:
    g = newsletter(graphs)
    assert "bento|supersedes|resend" in g.edges
    assert "resend|supersedes|bento" not in g.edges
    assert "bento" not in g.superseded_by()


def test_decisions_in_force_hold_no_agent_supersedes_chain(graphs: list[HotGraph]) -> None:
    g = newsletter(graphs)
    text = render(g, budget=800).text
    decisions = _line(text, "Decisions in force:")
    assert decisions
    assert f"(supersedes {AGENT_CLAIM}" not in decisions
    # What the person said against the agent's claim is said in words, on its own line: it
    # replaced no choice, so it is not a decision.
    assert "corrects the agent" not in decisions.lower()
    assert _line(text, "Corrects the agent:")
    assert "supersedes Resend" not in decisions or "supersedes Bento" not in decisions
    # "put them in .env.example, not as settings defaults": what is superseded is the thing,
    # not its preposition
    assert "(supersedes settings defaults)" in decisions


def test_at_most_one_task_in_progress(graphs: list[HotGraph]) -> None:
    for g in graphs:
        running = [
            n.id
            for n in g.nodes.values()
            if n.kind == "task" and (n.attrs or {}).get("status") == "in_progress"
        ]
        assert len(running) <= 1, (g.session_id, running)
        text = render(g, budget=800).text
        assert "(in progress" not in _line(text, "Open tasks:")
    g = newsletter(graphs)
    assert _line(render(g, budget=800).text, "Task in progress:").startswith(
        "Task in progress: Update HANDOFF.md"
    )
    assert (g.nodes["run-the-tests"].attrs or {}).get("status") == "completed"
