"""Validation signals: cross-domain surfacings (from a real render), turns to the first injection
after a resume or compaction, graduation outcomes from a real SQLite warm store, and the
``stats`` command that prints them per session and per project."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.model import Edge, HotGraph, Node
from rolling_graph.core.signals import graduation_outcomes, inject_record, session_signals
from rolling_graph.render.lod import render


def _node(nid: str, label: str, domain: str, turn: int, weight: float = 0.6) -> Node:
    return Node(id=nid, label=label, domain=domain, weight=weight, last_activated=turn)  # type: ignore[arg-type]


def _graph() -> HotGraph:
    g = HotGraph(session_id="s", turn=10)
    for n in (
        _node("schema", "Database schema", "technical", 10),
        _node("migrations", "Alembic migrations", "technical", 10),
        _node("ci", "CI pipeline", "technical", 9),
        _node("marathon", "Marathon training", "personal", 1, 0.4),
        _node("orm", "SQLAlchemy ORM", "technical", 2, 0.4),
    ):
        g.nodes[n.id] = n
    e = Edge(source="schema", target="migrations", relationship="uses", strength=0.5)
    g.edges[e.key] = e
    return g


def test_a_snapped_node_from_another_domain_is_a_cross_domain_surfacing() -> None:
    g = _graph()
    rendered = render(g, prompt="how is the marathon training going?", focus_size=3)
    rec = inject_record(rendered, g, "prompt_submit")
    assert rec["focus_domains"] == ["technical"]
    assert {"id": "marathon", "domain": "personal", "how": "snap"} in rec["surfaced"]
    assert rec["cross_domain"] == 1
    # A same-domain snap surfaces the node but links no domains.
    same = inject_record(render(g, prompt="the SQLAlchemy ORM", focus_size=3), g, "prompt_submit")
    assert [s["id"] for s in same["surfaced"]] == ["orm"] and same["cross_domain"] == 0


def test_turns_to_first_injection_after_restarts() -> None:
    records = [
        {"type": "session_start", "source": "startup", "turn": 0},
        {"type": "inject", "turn": 0, "cross_domain": 0},
        {"type": "session_start", "source": "compact", "turn": 7},
        {"type": "turn", "turn": 8},
        {"type": "inject", "turn": 9, "cross_domain": 2},
        {"type": "session_start", "source": "resume", "turn": 12},
        {"type": "inject", "turn": 12, "cross_domain": 0},
        {"type": "session_start", "source": "resume", "turn": 15},  # nothing injected since
    ]
    sig = session_signals(records)
    assert (sig.injections, sig.cross_domain, sig.restarts) == (3, 2, 3)
    assert sig.turns_to_inject == [2, 0, None]


def _drafts(home: Path, now: datetime) -> Path:
    from rolling_graph.warm import open_store
    from rolling_graph.warm.graduation import review

    flat = home / "MEMORY.md"
    with open_store(None, home) as warm:
        for nid, action in (
            ("use-bento", "approve"),
            ("dana", "approve"),
            ("old-one", "approve"),
            ("ci", "reject"),
            ("tabs", "edit"),
            ("pending", None),
        ):
            warm.put_draft(nid, f"- memory about {nid}", scope="proj", now=now)
            if action:
                when = now - timedelta(days=40) if nid == "old-one" else now - timedelta(days=3)
                text = "- tabs, not spaces" if action == "edit" else None
                review(warm, nid, action, flat_memory=flat, scope="proj", text=text, now=when)
    # The person deletes two graduated memories: one reviewed 3 days ago, one 40 days ago.
    kept = [
        ln for ln in flat.read_text().splitlines() if "use-bento" not in ln and "old-one" not in ln
    ]
    flat.write_text("\n".join(kept) + "\n")
    return flat


def test_graduation_outcomes(tmp_path: Path) -> None:
    from rolling_graph.warm import open_store

    now = datetime.now(UTC)
    flat = _drafts(tmp_path, now)
    with open_store(None, tmp_path) as warm:
        out = graduation_outcomes(warm.list_drafts(scope="proj"), flat, now)
    assert out.as_dict() == {
        "pending": 1,
        "approved": 3,
        "edited": 1,
        "rejected": 1,
        "deleted_30d": 1,  # the 40-day-old deletion cannot be dated inside the window
    }


def test_stats_prints_signals_per_session_and_project(tmp_path: Path, monkeypatch: object) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(home))  # type: ignore[attr-defined]
    st = HotStore(home)
    for sid, records in (
        (
            "s1",
            [
                {"type": "session_start", "source": "compact", "turn": 3},
                {"type": "inject", "turn": 4, "cross_domain": 1},
            ],
        ),
        ("s2", [{"type": "inject", "turn": 1, "cross_domain": 2}]),
    ):
        for rec in records:
            st.audit(sid).append(rec)
        st.write_state(sid, "warm", {"scope": "proj"})
    _drafts(home, datetime.now(UTC))
    runner = CliRunner()
    per_session = json.loads(runner.invoke(cli, ["stats", "--json"]).output)
    assert {r["session_id"]: r["signals"]["cross_domain"] for r in per_session} == {
        "s1": 1,
        "s2": 2,
    }
    assert [r["project"] for r in per_session] == ["proj", "proj"]
    projects = json.loads(runner.invoke(cli, ["stats", "--by-project", "--json"]).output)
    assert projects == [
        {
            "project": "proj",
            "sessions": 2,
            "injections": 2,
            "cross_domain": 3,
            "restarts": 1,
            "turns_to_inject": [1],
            "graduation": {
                "pending": 1,
                "approved": 3,
                "edited": 1,
                "rejected": 1,
                "deleted_30d": 1,
            },
        }
    ]
    text = runner.invoke(cli, ["stats", "--by-project"]).output
    assert "proj" in text and "3/1/1/1/1" in text
