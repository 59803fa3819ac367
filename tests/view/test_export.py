"""Exporters (text tree, node detail, Mermaid, DOT), the audit history behind them, and the
``show --format`` / ``graph`` / ``view`` commands. Mermaid output is checked by the real
``mermaid`` parser and renderer in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.model import HotGraph
from rolling_graph.view import export
from rolling_graph.view.fold import layout
from rolling_graph.view.history import read_history
from rolling_graph.view.page import graph_payload, render_html

from .cdp import Browser
from .sample import SESSION, build_session


def _graph(home: Path) -> tuple[HotGraph, HotStore]:
    st = HotStore(home)
    return build_session(home).graph, st


def test_history_gives_creation_turns_and_reasons(tmp_path: Path) -> None:
    g, st = _graph(tmp_path)
    hist = read_history(st.audit(SESSION).records())
    assert hist.born("nodes", "use-resend") == 1
    assert hist.born("nodes", "dana") == 2
    assert hist.born("nodes", "use-bento") == 3
    assert hist.born("edges", "use-bento|supersedes|use-resend") == 3
    first = hist.nodes["use-bento"][0]
    assert (first.turn, first.op, first.field, first.source) == (3, "add", "", "offline")
    assert first.reason == "correction: actually, Bento instead of Resend"
    assert hist.last_turn == 4


def test_text_tree_groups_by_domain_and_marks_supersession(tmp_path: Path) -> None:
    g, _ = _graph(tmp_path)
    text = export.text_tree(g)
    lines = text.splitlines()
    assert lines[0] == f"session {SESSION} · turn 4 · 6 nodes, 3 edges"
    domains = [ln.split(" (")[0] for ln in lines if not ln.startswith(("├", "└", "│", " "))]
    assert domains[2:] == ["relationship", "project", "technical", "personal"]
    assert any("Use Resend" in ln and "superseded by Use Bento" in ln for ln in lines)
    assert "supersedes → Use Resend" in text
    assert "* Use Bento" in text  # focus marked
    # Long domains end with a count instead of every node.
    assert "… 1 more, weight" in export.text_tree(g, per_domain=1)


def test_text_node_shows_links_attributes_and_reasons(tmp_path: Path) -> None:
    g, st = _graph(tmp_path)
    text = export.text_node(g, "use-bento", read_history(st.audit(SESSION).records()))
    assert "summary: Bento instead of Resend (deliverability)" in text
    assert "supersedes → Use Resend" in text and "← informs Dana" in text
    assert "turn 3: add node (offline) — correction: actually, Bento instead of Resend" in text
    fake = SimpleNamespace(attrs={"status": "in progress", "due": "Friday"})
    assert export.node_attrs(fake) == {"status": "in progress", "due": "Friday"}  # type: ignore[arg-type]
    assert export.node_attrs(g.nodes["dana"]) == {}


def test_dot_output(tmp_path: Path) -> None:
    g, _ = _graph(tmp_path)
    dot = export.to_dot(g)
    assert dot.startswith('digraph "rolling-graph view-test" {') and dot.endswith("}")
    assert dot.count("subgraph ") == 4
    sup = next(ln for ln in dot.splitlines() if '"use-bento" -> "use-resend"' in ln)
    assert "style=dashed" in sup
    # Quotes in labels are escaped, so the statement stays one string.
    g.nodes["dana"] = g.nodes["dana"].model_copy(update={"label": 'Dana "DK" K'})
    assert 'label="Dana \\"DK\\" K"' in export.to_dot(g)


def test_layout_is_deterministic_and_separates_nodes(tmp_path: Path) -> None:
    from tests.helpers import random_graph

    g = random_graph(2000)
    pos, more = layout(g, [])
    assert (pos, more) == layout(g, [])
    assert len(set(pos.values())) == len(g.nodes)
    assert set(more) == {"project", "technical", "relationship", "personal"}  # all fold some


def test_payload_and_html_are_self_contained(tmp_path: Path) -> None:
    g, st = _graph(tmp_path)
    payload = graph_payload(g, read_history(st.audit(SESSION).records()))
    assert payload["turn"] == 4
    old = next(n for n in payload["nodes"] if n["id"] == "use-resend")
    assert old["superseded_by"] == ["use-bento"]
    page = render_html(g)
    assert "cytoscape" in page and "</script><b>" not in page
    assert "src=" not in page.split("<script>", 1)[0]  # no external script or style
    assert "https://" not in page.split("<script>", 1)[0]


def _mermaid(browser: Browser, mermaid_js: Path, tmp_path: Path, text: str) -> dict:
    host = tmp_path / "mermaid.html"
    host.write_text(
        f'<!doctype html><body><script src="{mermaid_js.as_uri()}"></script></body>',
        encoding="utf-8",
    )
    page = browser.new_page()
    page.goto(host.as_uri(), "typeof mermaid !== 'undefined'")
    return page.eval(
        f"""(async () => {{
          mermaid.initialize({{ startOnLoad: false }});
          const text = {json.dumps(text)};
          try {{ await mermaid.parse(text); }} catch (e) {{ return {{ error: String(e) }}; }}
          const {{ svg }} = await mermaid.render('g1', text);
          // As a Markdown preview does: the SVG goes into the page, entities are decoded.
          const doc = document.createElement('div');
          doc.innerHTML = svg;
          return {{ nodes: doc.querySelectorAll('g.node').length,
                    labels: [...doc.querySelectorAll('g.node')].map(n => n.textContent.trim()),
                    dashed: doc.querySelectorAll('path.edge-pattern-dotted').length }};
        }})()"""
    )


@pytest.mark.browser
def test_mermaid_parses_and_renders(
    browser: Browser, mermaid_js: Path, tmp_path: Path, view_home: Path
) -> None:
    g, _ = _graph(tmp_path / "g")
    g.nodes["dana"] = g.nodes["dana"].model_copy(update={"label": 'Dana "DK" [#1;] <b>&amp; (ops)'})
    text = export.to_mermaid(g)
    out = _mermaid(browser, mermaid_js, tmp_path, text)
    assert "error" not in out, (out, text)
    assert out["nodes"] == len(export.neighbourhood(g, export.focus_cluster(g), 30))
    assert 'Dana "DK" [#1;] <b>&amp; (ops)' in out["labels"]
    assert out["dashed"] == 1  # the supersedes edge
    # The parser really checks: an unescaped quote in a label is refused.
    broken = text.replace("&quot;", '"')
    assert "error" in _mermaid(browser, mermaid_js, tmp_path, broken)


def test_mermaid_keeps_to_the_neighbourhood() -> None:
    from tests.helpers import random_graph

    g = random_graph(500)
    text = export.to_mermaid(g)
    shown = [ln for ln in text.splitlines() if '["' in ln]
    near = export.neighbourhood(g, export.focus_cluster(g), export.MERMAID_MAX_NODES)
    assert len(shown) == len(near) <= export.MERMAID_MAX_NODES
    # Only edges among the shown nodes are drawn.
    assert all(
        ln.split()[0] in {f"n{i}" for i in range(len(near))}
        for ln in text.splitlines()
        if "-->" in ln
    )


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


def test_show_formats(view_home: Path) -> None:
    for fmt, marker in (
        ("text", "project (2)"),
        ("mermaid", "flowchart LR"),
        ("dot", "digraph"),
        ("list", "session view-test: turn 4"),
    ):
        res = run("show", "--format", fmt)
        assert res.exit_code == 0 and marker in res.output, (fmt, res.output)  # type: ignore[attr-defined]
    res = run("show", "--format", "json")
    assert json.loads(res.output)["turn"] == 4  # type: ignore[attr-defined]


def test_graph_command_as_slash_command_runs_it(view_home: Path) -> None:
    tree = run("graph")
    assert tree.exit_code == 0 and "supersedes → Use Resend" in tree.output  # type: ignore[attr-defined]
    # An unset ${CLAUDE_SESSION_ID} arrives empty: the most recent session is used.
    assert run("graph", "--session", "").output == tree.output  # type: ignore[attr-defined]
    other = run("graph", "--session", "not-recorded")
    assert other.output.startswith("(no graph for session not-recorded yet")  # type: ignore[attr-defined]
    assert other.output.endswith(tree.output)  # type: ignore[attr-defined]
    # Several words, as `/graph use bento` passes them, name one node (label, case-insensitive).
    before = json.loads(run("show", "--json").output)["nodes"]["use-bento"]  # type: ignore[attr-defined]
    node = run("graph", "use", "Bento")
    assert node.exit_code == 0 and "turn 3: add node (offline)" in node.output  # type: ignore[attr-defined]
    # Expanding a node counts as an activation, as `expand` does.
    after = json.loads(run("show", "--json").output)["nodes"]["use-bento"]  # type: ignore[attr-defined]
    assert after["last_activated"] == 4 and after["weight"] > before["weight"]
    missing = run("graph", "nothing-here")
    assert missing.exit_code == 1 and "no node 'nothing-here'" in missing.output  # type: ignore[attr-defined]
    viewed = run("graph", "view")
    path = Path(viewed.output.strip().rsplit(" ", 1)[-1])  # type: ignore[attr-defined]
    assert path == view_home / "views" / f"{SESSION}.html" and path.stat().st_size > 100_000


def test_view_rejects_two_sources(view_home: Path) -> None:
    res = run("view", "-s", SESSION, "--warm")
    assert res.exit_code == 2 and "at most one" in res.output  # type: ignore[attr-defined]


def test_view_of_a_projects_warm_graph(view_home: Path, tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    memory.write_text("- Deploys go through the staging cluster first\n- Use Bento for email\n")
    assert run("seed", str(memory), "--scope", "proj").exit_code == 0  # type: ignore[attr-defined]
    out = tmp_path / "warm.html"
    res = run("view", "--project", "proj", "--out", str(out))
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    page = out.read_text(encoding="utf-8")
    data = json.loads(
        page.split('<script id="graph-data" type="application/json">', 1)[1].split("</script>", 1)[
            0
        ]
    )
    assert data["title"] == "project proj (warm graph)"
    assert len(data["nodes"]) == 2 and all(n["anchor"] for n in data["nodes"])
    empty = run("view", "--project", "nobody", "--out", str(tmp_path / "empty.html"))
    assert empty.exit_code == 0 and "has no nodes yet" in empty.output  # type: ignore[attr-defined]
