"""Per-turn cost of the core: apply a probe patch + decay + render, on 100 / 1,000 / 10,000 nodes.

Baseline in the same run: re-validating the whole graph document with pydantic once (what a
naive "patch the JSON, then validate everything" engine pays per turn), so the ratio shows
what validating only the touched entities buys.

    .venv/bin/python bench/core.py [--turns 40] [--clock cpu]

``--clock cpu`` times with the process's CPU clock instead of the wall clock: steadier on a
shared machine, where the wall clock also counts the time other processes held the core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.core.decay import DecayParams, decay_step  # noqa: E402
from rolling_graph.core.model import HotGraph  # noqa: E402
from rolling_graph.core.patch import PatchSource, apply_patch  # noqa: E402
from rolling_graph.render.lod import render  # noqa: E402
from tests.helpers import random_graph  # noqa: E402

SRC = PatchSource(probe="bench")


def patch_for(turn: int, n: int) -> list[dict]:
    a, b = f"n{(turn * 7) % n}", f"n{(turn * 13 + 1) % n}"
    new = f"topic-{turn}"
    return [
        {
            "op": "add",
            "path": f"/nodes/{new}",
            "value": {"label": f"Topic {turn}", "domain": "technical", "summary": "new this turn"},
            "reason": "new entity",
        },
        {
            "op": "add",
            "path": f"/edges/{new}|relates-to|{a}",
            "value": {"source": new, "target": a, "relationship": "relates-to"},
            "reason": "co-mention",
        },
        {
            "op": "replace",
            "path": f"/nodes/{a}/weight",
            "value": "strengthen",
            "reason": "mentioned",
        },
        {"op": "replace", "path": f"/nodes/{b}/weight", "value": "weaken", "reason": "dropped"},
        {
            "op": "add",
            "path": f"/nodes/{a}/aliases/-",
            "value": f"alias {turn}",
            "reason": "named so",
        },
    ]


CLOCK = time.perf_counter


def bench(n: int, turns: int) -> dict[str, float]:
    g = random_graph(n, seed=n)
    doc = g.to_json_dict()
    params = DecayParams()
    render(g)  # warm caches (networkx import, adjacency)
    per_turn, applies, decays, renders, baseline = [], [], [], [], []
    for t in range(turns):
        g.turn += 1
        t0 = CLOCK()
        r = apply_patch(g, patch_for(t, n), source=SRC)
        t1 = CLOCK()
        decay_step(g, params)
        t2 = CLOCK()
        out = render(g, budget=800, prompt=f"what about concept {t} api?")
        t3 = CLOCK()
        assert r.applied, r.error
        assert out.tokens <= 800
        applies.append(t1 - t0)
        decays.append(t2 - t1)
        renders.append(t3 - t2)
        per_turn.append(t3 - t0)
        if t < 5 or n <= 1000:
            b0 = CLOCK()
            HotGraph.model_validate(doc)
            baseline.append(CLOCK() - b0)
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    return {
        "nodes": n,
        "turn_ms": ms(per_turn),
        "apply_ms": ms(applies),
        "decay_ms": ms(decays),
        "render_ms": ms(renders),
        "full_validate_ms": ms(baseline),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(
        f"{'nodes':>7} {'turn p50':>9} {'apply':>7} {'decay':>7} {'render':>7} | {'baseline: full validate':>24} {'ratio':>6}"
    )
    for n in (100, 1_000, 10_000):
        r = bench(n, args.turns if n < 10_000 else max(10, args.turns // 4))
        print(
            f"{r['nodes']:>7} {r['turn_ms']:>7.2f}ms {r['apply_ms']:>5.2f}ms {r['decay_ms']:>5.2f}ms {r['render_ms']:>5.2f}ms | "
            f"{r['full_validate_ms']:>22.2f}ms {r['turn_ms'] / r['full_validate_ms']:>6.2f}"
        )


if __name__ == "__main__":
    main()
