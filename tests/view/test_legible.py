"""The view of a big session is readable without zooming: the story is labelled on the first
screen at a legible size with no label over another, identifiers are folded into their files
until a double-click, search and selection reach folded nodes, and a warm graph (no turns)
has no slider. Labels are read from Cytoscape in the page (``story.legible_labels``)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.view.page import render_html

from .cdp import Browser, Page
from .story import legible_labels, story_graph

pytestmark = pytest.mark.browser

READY = "document.body && document.body.dataset.ready === '1'"
MIN_PX = 10


def _open(browser: Browser, tmp_path: Path, n: int) -> tuple[Page, dict[str, str | None]]:
    g, hist = story_graph(n)
    path = tmp_path / f"view-{n}.html"
    path.write_text(render_html(g, hist), encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri(), READY, timeout=120)
    assert page.events("Runtime.exceptionThrown") == []
    return page, {nid: x.kind for nid, x in g.nodes.items()}


def _shown(page: Page, ids: list[str]) -> list[bool]:
    return page.eval(
        f"{json.dumps(ids)}.map(id => rgView.cy.getElementById(id).style('display') !== 'none')"
    )


def test_first_screen_of_1000_nodes_labels_the_story(browser: Browser, tmp_path: Path) -> None:
    page, kinds = _open(browser, tmp_path, 1000)
    legible = legible_labels(page, MIN_PX)
    ids = [x["id"] for x in legible]
    assert len(ids) == len(set(ids)) >= 60, legible
    by_kind = Counter(kinds.get(i) for i in ids)
    story = sum(by_kind[k] for k in ("decision", "correction", "task", "person"))
    assert story >= 25, by_kind
    assert by_kind["decision"] >= 5 and by_kind["task"] >= 5, by_kind
    assert by_kind["person"] == sum(k == "person" for k in kinds.values()) == 5  # every one
    # Identifiers (no kind, part-of a file) are folded: none is drawn, so none is labelled.
    focus = set(page.eval("rgView.data.focus"))
    identifiers = [i for i, k in kinds.items() if k is None and i not in focus]
    assert not any(_shown(page, identifiers))
    # Zoomed in, labels keep their size on screen and more of them fit.
    page.eval(
        "rgView.cy.zoom({ level: rgView.cy.zoom() * 2.5, renderedPosition: "
        "{ x: rgView.cy.width() / 2, y: rgView.cy.height() / 2 } }); rgView.placeLabels()"
    )
    closer = legible_labels(page, MIN_PX)
    assert {x["px"] for x in closer} == {11.0, 12.0}
    assert len(closer) >= 20


def test_legibility_probe_sees_small_and_overlapping_labels(
    browser: Browser, tmp_path: Path
) -> None:
    # The probe can fail: a label drawn at 4 px is not legible, nor are two labels on each other.
    page, _ = _open(browser, tmp_path, 100)
    before = [x["id"] for x in legible_labels(page, MIN_PX)]
    assert len(before) >= 20
    a, b = before[:2]
    page.eval(
        f"rgView.cy.getElementById({json.dumps(a)})"
        ".style({ 'font-size': 4 / rgView.cy.zoom(), 'min-zoomed-font-size': 0 }); 0"
    )
    assert a in [x["id"] for x in legible_labels(page, 3.9)]
    assert a not in [x["id"] for x in legible_labels(page, MIN_PX)]
    page.eval(
        f"""(() => {{ const cy = rgView.cy;
          const under = {{ 'font-size': 12 / cy.zoom(), 'text-valign': 'bottom',
                          'text-halign': 'center', 'text-margin-x': 0 }};
          cy.getElementById({json.dumps(a)}).style(under);
          cy.getElementById({json.dumps(b)}).style(under)
            .position(cy.getElementById({json.dumps(a)}).position());
        }})()"""
    )
    after = [x["id"] for x in legible_labels(page, MIN_PX)]
    assert a not in after and b not in after
    assert set(after) < set(before)


def _dblclick(page: Page, nid: str, apart: float = 0.1) -> None:
    """Two clicks ``apart`` seconds apart by their event timestamps (not by when they arrive:
    a loaded machine must not turn a double-click into two clicks)."""
    x, y = page.eval(
        f"""(() => {{
          const box = document.getElementById('cy').getBoundingClientRect();
          const p = rgView.cy.getElementById({json.dumps(nid)}).renderedPosition();
          return [box.left + p.x, box.top + p.y];
        }})()"""
    )
    t = time.time()
    page.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y, "timestamp": t})
    for count in (1, 2):
        for kind in ("mousePressed", "mouseReleased"):
            t += 0.02 if kind == "mouseReleased" else (apart if count == 2 else 0.02)
            page.call(
                "Input.dispatchMouseEvent",
                {
                    "type": kind,
                    "x": x,
                    "y": y,
                    "button": "left",
                    "clickCount": count,
                    "timestamp": t,
                },
            )


def test_double_click_unfolds_a_file_and_folds_it_again(browser: Browser, tmp_path: Path) -> None:
    page, kinds = _open(browser, tmp_path, 100)
    host = page.eval(
        "rgView.cy.nodes('.host').filter(n => n.visible()).max(n => "
        "rgView.data.nodes.filter(m => m.parent === n.id()).length).ele.id()"
    )
    kids = page.eval(
        f"rgView.data.nodes.filter(m => m.parent === {json.dumps(host)}).map(m => m.id)"
    )
    assert len(kids) >= 3 and not any(_shown(page, kids))
    assert page.eval(f"rgView.cy.getElementById({json.dumps(host)}).data('text')").endswith(
        f"+{len(kids)}"
    )
    _dblclick(page, host)
    page.wait_for(f"rgView.cy.getElementById({json.dumps(kids[0])}).visible()")
    assert all(_shown(page, kids))
    # They appear around their file, not wherever the layout left them.
    far = page.eval(
        f"""(() => {{ const h = rgView.cy.getElementById({json.dumps(host)}).position();
            return {json.dumps(kids)}.map(id => {{ const p = rgView.cy.getElementById(id).position();
              return Math.hypot(p.x - h.x, p.y - h.y); }}); }})()"""
    )
    assert max(far) < 200, far
    page.eval("new Promise(r => setTimeout(r, 800))")  # not part of the first double-click
    _dblclick(page, host)
    page.wait_for(f"!rgView.cy.getElementById({json.dumps(kids[0])}).visible()")
    assert not any(_shown(page, kids))


def test_domain_more_node_search_and_select_reach_folded_nodes(
    browser: Browser, tmp_path: Path
) -> None:
    page, kinds = _open(browser, tmp_path, 1000)
    text = page.eval("rgView.cy.getElementById('more:technical').data('text')")
    count = int(text.split(": ", 1)[1].split()[0])
    deep = page.eval(
        "rgView.data.nodes.filter(n => n.in_domain && n.domain === 'technical').map(n => n.id)"
    )
    assert count == len(deep) > 50 and not any(_shown(page, deep))
    assert page.eval("rgView.toggle('more:technical')") is True
    assert all(_shown(page, deep))
    assert page.eval("rgView.cy.getElementById('more:technical').data('text')") == (
        f"technical: fold {count}"
    )
    # Brought into view: every unfolded node is on the canvas.
    on = page.eval(
        f"""{json.dumps(deep)}.every(id => {{ const p = rgView.cy.getElementById(id).renderedPosition();
              return p.x >= 0 && p.y >= 0 && p.x <= rgView.cy.width() && p.y <= rgView.cy.height(); }})"""
    )
    assert on is True
    assert page.eval("rgView.toggle('more:technical')") is False
    assert not any(_shown(page, deep))
    # A folded identifier is found by search and shown where its file would put it.
    ident = next(i for i, k in kinds.items() if k is None)
    label = page.eval(f"rgView.cy.getElementById({json.dumps(ident)}).data('label')")
    assert page.eval(f"rgView.search({json.dumps(label)})") == [ident]
    assert _shown(page, [ident]) == [True]
    page.eval("rgView.search('')")
    assert _shown(page, [ident]) == [False]
    # Selecting it (a search result, a link in the panel) unfolds its file, centred, labelled.
    assert page.eval(f"rgView.select({json.dumps(ident)}, true)") is True
    assert _shown(page, [ident]) == [True]
    assert ident in [x["id"] for x in legible_labels(page, MIN_PX)]
    assert page.eval("document.querySelector('#panel h2').textContent").strip() == label


def test_a_warm_graph_has_no_turn_slider(browser: Browser, view_home: Path, tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    memory.write_text("- Deploys go through the staging cluster first\n- Use Bento for email\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["seed", str(memory), "--scope", "proj"]).exit_code == 0
    out = tmp_path / "warm.html"
    assert runner.invoke(cli, ["view", "--project", "proj", "--out", str(out)]).exit_code == 0
    page = browser.new_page()
    page.goto(out.as_uri(), READY)
    assert page.eval("document.getElementById('turn-box').offsetParent === null") is True
    # A session's page keeps it.
    session = tmp_path / "session.html"
    assert runner.invoke(cli, ["view", "--out", str(session)]).exit_code == 0
    page.goto(session.as_uri(), READY)
    assert page.eval("document.getElementById('turn-box').offsetParent !== null") is True
    assert page.eval("document.getElementById('turn-value').textContent") == "4 / 4"
