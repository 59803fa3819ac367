"""The CLI skeleton: show, render, expand, sessions; clear errors and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path))
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    sess = HotSession.open(HotStore(tmp_path), "abc")
    sess.advance_turn()
    sess.apply(
        [
            {
                "op": "add",
                "path": "/nodes/payments",
                "value": {"label": "Payments", "domain": "project", "summary": "Stripe checkout"},
                "reason": "r",
            },
            {
                "op": "add",
                "path": "/nodes/stripe",
                "value": {"label": "Stripe", "domain": "technical"},
                "reason": "r",
            },
            {
                "op": "add",
                "path": "/edges/payments|uses|stripe",
                "value": {"source": "payments", "target": "stripe", "relationship": "uses"},
                "reason": "r",
            },
        ],
        PatchSource("t"),
    )
    sess.save()
    return tmp_path


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def test_help_everywhere() -> None:
    for cmd in ([], ["show"], ["render"], ["expand"], ["sessions"]):
        res = run(*cmd, "--help")
        assert res.exit_code == 0 and "Usage:" in res.output  # type: ignore[attr-defined]


def test_sessions_show_render(home: Path) -> None:
    res = run("sessions")
    head, row = res.output.splitlines()[:2]  # type: ignore[attr-defined]
    assert res.exit_code == 0 and head.split()[:5] == [
        "modified",
        "session",
        "turn",
        "nodes",
        "edges",
    ]  # type: ignore[attr-defined]
    assert row.split()[2] == "abc" and row.split()[4] == "2"  # session, nodes
    listed = json.loads(run("sessions", "--json").output)  # type: ignore[attr-defined]
    assert [(r["session_id"], r["nodes"], r["project"]) for r in listed] == [("abc", 2, "(none)")]
    res = run("show", "--json")
    assert json.loads(res.output)["nodes"]["payments"]["label"] == "Payments"  # type: ignore[attr-defined]
    res = run("show", "-s", "abc")
    assert "payments --uses--> stripe" in res.output  # type: ignore[attr-defined]
    res = run("render", "--why", "--budget", "300")
    assert "Payments [project]: Stripe checkout." in res.output and "(why: " in res.output  # type: ignore[attr-defined]
    data = json.loads(run("render", "--json", "--mention", "tell me about stripe").output)  # type: ignore[attr-defined]
    assert data["mentioned"] == ["stripe"] and data["tokens"] <= 800


def test_expand_activates_and_strengthens(home: Path) -> None:
    res = run("expand", "stripe")
    assert res.exit_code == 0 and "Stripe" in res.output  # type: ignore[attr-defined]
    g = HotSession.open(HotStore(home), "abc").graph
    assert g.nodes["stripe"].weight > 0.5


def test_bad_arguments_fail_clearly(home: Path) -> None:
    res = run("show", "-s", "missing")
    assert res.exit_code != 0 and "no session 'missing'" in res.output  # type: ignore[attr-defined]
    res = run("expand", "nothing-here")
    assert res.exit_code != 0 and "no node 'nothing-here'" in res.output  # type: ignore[attr-defined]
    res = run("render", "--budget", "5")
    assert res.exit_code == 2  # type: ignore[attr-defined]
    res = run("no-such-command")
    assert res.exit_code == 2  # type: ignore[attr-defined]
