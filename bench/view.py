"""How the HTML view scales: build the file, open it in headless Chromium, search, slide the turn.

Sizes 1,000 and 5,000 nodes (``tests/view/story.py``: the mix of a real session, about 1.1 edges
per node) against a 100-node page in the same run (the baseline). Per size, medians over ``--reps`` fresh
pages: Python time to write the HTML, file size, time from navigation until the graph is drawn
(the page's own ``renderMs``, and the wall time seen from here), then a search and turn-slider
moves, each until it is on screen (half the graph at once, and one step of a drag). Needs Debian's ``chromium``.
Also, on the first page of each size as it opens: the node labels legible without zooming
(``legible``: drawn at >= 10 px on screen, on the canvas, overlapping no other label) and how
many of them are decisions, corrections, tasks or people (``story``, out of ``of``).

    .venv/bin/python bench/view.py [--reps 5] [--sizes 100,1000,5000] [--shot DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.view.page import render_html  # noqa: E402
from tests.view.cdp import Browser, find_chromium  # noqa: E402
from tests.view.story import STORY_KINDS, legible_labels, story_graph  # noqa: E402

READY = "document.body && document.body.dataset.ready === '1'"


def timed_eval(page, expression: str) -> float:  # type: ignore[no-untyped-def]
    """Milliseconds from the action to the second frame after it (the change is on screen),
    starting once earlier drawing has finished."""
    return float(
        page.eval(
            f"""(async () => {{
              const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
              await frames();
              const t = performance.now();
              {expression};
              await frames();
              return performance.now() - t;
            }})()"""
        )
    )


def measure(browser: Browser, n: int, reps: int, work: Path, shot: Path | None) -> dict:
    g, hist = story_graph(n, turns=100)
    story = {nid for nid, x in g.nodes.items() if x.kind in STORY_KINDS}
    build = []
    for _ in range(reps):
        t0 = time.perf_counter()
        html = render_html(g, hist)
        build.append((time.perf_counter() - t0) * 1000)
    path = work / f"view-{n}.html"
    path.write_text(html, encoding="utf-8")
    page_ms, wall_ms, search_ms, slide_ms, step_ms = [], [], [], [], []
    for i in range(reps):
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto(path.as_uri(), READY, timeout=180)
        wall_ms.append((time.perf_counter() - t0) * 1000)
        page_ms.append(float(page.eval("rgView.renderMs")))
        if i == 0:  # the first screen, as it opens
            legible = [x["id"] for x in legible_labels(page)]
            if shot:
                page.screenshot(shot / f"view-{n}.png")
        assert page.eval("rgView.cy.nodes().not('.more').length") == n
        assert page.eval("rgView.setTurn(100)") == n
        search_ms.append(timed_eval(page, "rgView.search('billing')"))
        slide_ms.append(timed_eval(page, "rgView.search(''); rgView.setTurn(50)"))  # half at once
        step_ms.append(timed_eval(page, "rgView.setTurn(49)"))  # one step of a drag
        assert page.eval("rgView.cy.nodes().not('.future').not('.more').length") == n * 50 // 100
        page.call("Page.close")
    return {
        "n": n,
        "edges": len(g.edges),
        "mb": path.stat().st_size / 1e6,
        "build": statistics.median(build),
        "page": statistics.median(page_ms),
        "wall": statistics.median(wall_ms),
        "search": statistics.median(search_ms),
        "slide": statistics.median(slide_ms),
        "step": statistics.median(step_ms),
        "legible": len(legible),
        "story": len(story.intersection(legible)),
        "of": len(story),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", default="100,1000,5000", help="the first size is the baseline")
    ap.add_argument("--shot", type=Path, default=None, help="save one screenshot per size here")
    args = ap.parse_args()
    exe = find_chromium()
    if exe is None:
        sys.exit("chromium not found (apt-get install chromium)")
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.shot:
        args.shot.mkdir(parents=True, exist_ok=True)
    browser = Browser(exe, timeout=180)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rows = [measure(browser, n, args.reps, Path(tmp), args.shot) for n in sizes]
    finally:
        browser.close()
    base = rows[0]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"medians over {args.reps} pages; baseline = {base['n']} nodes (same run)")
    print(f"load average {load} on {os.cpu_count()} CPUs (software rendering, no GPU)")
    print(
        f"{'nodes':>6} {'edges':>6} {'MB':>5} {'build ms':>9} {'drawn ms':>9} {'× base':>7}"
        f" {'wall ms':>8} {'search ms':>10} {'slide ½ ms':>10} {'step ms':>8}"
        f" {'legible':>7} {'story':>5} {'of':>4}"
    )
    for r in rows:
        print(
            f"{r['n']:>6} {r['edges']:>6} {r['mb']:>5.1f} {r['build']:>9.1f} {r['page']:>9.1f}"
            f" {r['page'] / base['page']:>7.2f} {r['wall']:>8.1f} {r['search']:>10.1f}"
            f" {r['slide']:>10.1f} {r['step']:>8.1f}"
            f" {r['legible']:>7} {r['story']:>5} {r['of']:>4}"
        )


if __name__ == "__main__":
    main()
