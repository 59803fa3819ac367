"""The HTML view in a real headless Chromium: it loads from file:// with no network, draws every
node, searches, shows a node's panel with its audit reasons, styles supersedes edges, and the
turn slider replays the graph. Screenshots go to tmp_path (and to $ROLLING_GRAPH_VIEW_SHOTS)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli

from .cdp import Browser, Page
from .sample import SESSION

pytestmark = pytest.mark.browser

READY = "document.body && document.body.dataset.ready === '1'"


def _write_view(tmp_path: Path) -> Path:
    out = tmp_path / "view.html"
    res = CliRunner().invoke(cli, ["view", "-s", SESSION, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert Path(res.output.strip()) == out.resolve()
    return out


def _keep_shot(page: Page, tmp_path: Path, name: str) -> Path:
    shot = page.screenshot(tmp_path / name)
    keep = os.environ.get("ROLLING_GRAPH_VIEW_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / name)
    return shot


@pytest.fixture
def page(browser: Browser, view_home: Path, tmp_path: Path) -> Page:
    p = browser.new_page()
    p.goto(_write_view(tmp_path).as_uri(), READY)
    return p


def _click_node(page: Page, nid: str) -> None:
    x, y = page.eval(
        f"""(() => {{
          const box = document.getElementById('cy').getBoundingClientRect();
          const p = rgView.cy.getElementById({json.dumps(nid)}).renderedPosition();
          return [box.left + p.x, box.top + p.y];
        }})()"""
    )
    page.click(x, y)


def test_loads_offline_and_draws_every_node(page: Page, tmp_path: Path) -> None:
    requests = [e["request"]["url"] for e in page.events("Network.requestWillBeSent")]
    assert requests and all(u.startswith("file://") for u in requests), requests
    assert len(requests) == 1  # the page itself: library, data and script are inline
    assert page.events("Runtime.exceptionThrown") == []
    assert page.eval("rgView.cy.nodes().length") == 6
    assert page.eval("rgView.cy.edges().length") == 3
    assert page.eval("document.getElementById('counts').textContent") == "6 nodes, 3 edges"
    # Drawn on the canvas, not just in the model: every node sits inside the visible viewport.
    inside = page.eval(
        """rgView.cy.nodes().every(n => { const p = n.renderedPosition();
             return p.x > 0 && p.y > 0 && p.x < rgView.cy.width() && p.y < rgView.cy.height(); })"""
    )
    assert inside is True
    # The hostile label is text, not markup: the page still works and shows it verbatim.
    assert page.eval("rgView.cy.getElementById('xss').data('label')") == (
        "</script><b>not markup</b>"
    )
    assert page.eval("document.querySelectorAll('b').length") == 0
    shot = _keep_shot(page, tmp_path, "view-overview.png")
    assert shot.stat().st_size > 10_000


def test_supersedes_edge_and_focus_are_drawn_distinctly(page: Page) -> None:
    styles = page.eval(
        """rgView.cy.edges().map(e => [e.data('rel'), e.style('line-style'),
             e.style('line-color')])"""
    )
    by_rel = {rel: (style, colour) for rel, style, colour in styles}
    assert by_rel["supersedes"][0] == "dashed"
    assert by_rel["uses"][0] == "solid"
    assert by_rel["supersedes"][1] != by_rel["uses"][1]
    assert float(page.eval("rgView.cy.getElementById('use-resend').style('opacity')")) < 0.5
    assert float(page.eval("rgView.cy.getElementById('use-bento').style('opacity')")) == 1.0
    focus = page.eval("rgView.cy.nodes('.focus').map(n => n.id())")
    assert "use-bento" in focus and "use-resend" not in focus


def test_search_box_finds_nodes(page: Page) -> None:
    page.eval("document.getElementById('search').focus()")
    page.type_text("bento")
    page.wait_for("document.getElementById('match-count').textContent !== ''")
    assert page.eval("document.getElementById('match-count').textContent") == "1 match"
    ids = page.eval("[...document.querySelectorAll('#results li')].map(li => li.dataset.id)")
    assert ids == ["use-bento"]
    assert page.eval("rgView.cy.nodes('.match').map(n => n.id())") == ["use-bento"]
    # A word found only in a summary counts too ("owns the mail domain").
    page.eval(
        """(() => { const s = document.getElementById('search'); s.value = '';
             s.dispatchEvent(new Event('input')); })()"""
    )
    page.wait_for("document.getElementById('match-count').textContent === ''")
    page.type_text("mail domain")
    page.wait_for("document.getElementById('match-count').textContent === '1 match'")
    assert page.eval("rgView.cy.nodes('.match').map(n => n.id())") == ["dana"]


def test_clicking_a_node_shows_its_panel_with_audit_reasons(page: Page, tmp_path: Path) -> None:
    _click_node(page, "use-bento")
    page.wait_for("document.querySelector('#panel h2') !== null")
    text = page.eval("document.getElementById('panel').innerText")
    assert "Use Bento" in text
    assert "Bento instead of Resend (deliverability)" in text  # summary
    assert "project · decision" in text
    assert "supersedes → Use Resend" in text
    assert "← informs Dana" in text
    assert "turn 3: add node (offline) — correction: actually, Bento instead of Resend" in text
    _keep_shot(page, tmp_path, "view-panel.png")
    # The old decision's panel says what replaced it.
    _click_node(page, "use-resend")
    page.wait_for("document.getElementById('panel').innerText.includes('superseded by')")
    links = page.eval("[...document.querySelectorAll('#panel dd a')].map(a => a.textContent)")
    assert links == ["Use Bento"]


def test_turn_slider_replays_growth(page: Page) -> None:
    assert page.eval("document.getElementById('turn').max") == "4"

    def slide(turn: int) -> tuple[int, str]:
        page.eval(
            f"""(() => {{ const s = document.getElementById('turn'); s.value = '{turn}';
                s.dispatchEvent(new Event('input')); }})()"""
        )
        return (
            page.eval("rgView.cy.nodes().filter(n => n.style('display') !== 'none').length"),
            page.eval("document.getElementById('counts').textContent"),
        )

    assert slide(1) == (2, "2 nodes, 1 edges")
    assert slide(2) == (4, "4 nodes, 1 edges")
    assert page.eval("rgView.cy.getElementById('use-bento').style('display')") == "none"
    assert slide(3) == (5, "5 nodes, 3 edges")
    assert slide(4) == (6, "6 nodes, 3 edges")
    assert slide(2) == (4, "4 nodes, 1 edges")  # and back again


def test_panel_lists_node_attributes(
    browser: Browser, view_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nodes are about to gain an optional ``attrs`` dict (status, due, role…); the page shows
    # whatever ``node_attrs`` returns, so stand in for the new field here.
    from rolling_graph.view import page as page_mod

    attrs = {"use-bento": {"status": "in progress", "due": "2026-12-01"}}
    monkeypatch.setattr(page_mod, "node_attrs", lambda n: attrs.get(n.id, {}))
    p = browser.new_page()
    p.goto(_write_view(tmp_path).as_uri(), READY)
    _click_node(p, "use-bento")
    p.wait_for("document.querySelector('#panel h2') !== null")
    rows = p.eval(
        "[...document.querySelectorAll('#panel dt')].map(dt => [dt.textContent, "
        "dt.nextElementSibling.textContent])"
    )
    assert ["status", "in progress"] in rows and ["due", "2026-12-01"] in rows
