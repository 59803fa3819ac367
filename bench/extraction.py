"""Extraction quality on the labelled shared transcripts (tests/fixtures/extraction).

Replays each labelled session through the whole pipeline (hook events, observers, the offline
probe, the patch engine), each in a fresh replay, and prints precision and recall per kind
against the labels, then per transcript: nodes by domain and kind, supersedes and
cross-domain edges. ``--missed`` lists the labels not found.

Usage: .venv/bin/python bench/extraction.py [--missed] [--json FILE] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rolling_graph.eval.extraction import (  # noqa: E402
    KINDS,
    graph_stats,
    load_labels,
    replay_graphs,
    score,
)
from tests.shared_data import shared_data_dir  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "extraction"


def _f(v: float | None) -> str:
    return "   —" if v is None else f"{v:4.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--labels", type=Path, default=FIXTURES / "labels.jsonl")
    ap.add_argument("--missed", action="store_true", help="list the labels not found")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    ap.add_argument("--probe", default="offline")
    a = ap.parse_args(argv)
    data_dir = a.data_dir or shared_data_dir()
    if data_dir is None:
        print(
            "shared data not found (../shared/data or $ROLLING_GRAPH_SHARED_DATA)", file=sys.stderr
        )
        return 1
    labels = load_labels(a.labels)
    files = [s["file"] for s in json.loads((a.labels.parent / "sessions.json").read_text())]
    graphs = replay_graphs(files, data_dir, a.probe)
    scores = score(labels, graphs)
    print(f"{'kind':<11} {'labels':>6} {'found':>5} {'recall':>6} {'pred':>5} {'prec':>5}")
    for k in KINDS:
        s = scores[k]
        print(
            f"{k:<11} {s.labels:>6} {s.found:>5} {_f(s.recall):>6} {s.predicted:>5} "
            f"{_f(s.precision):>5}"
        )
    print()
    print(
        f"{'file':<46} {'nodes':>5} {'tech':>4} {'proj':>4} {'rel':>3} {'pers':>4} "
        f"{'dec':>3} {'task':>4} {'pers':>4} {'sup':>3} {'xdom':>4}"
    )
    stats = {}
    for name, g in graphs.items():
        st = graph_stats(g)
        stats[name] = st
        d, k = st["domains"], st["kinds"]
        short = name if len(name) <= 46 else name[:20] + "…" + name[-25:]
        print(
            f"{short:<46} {st['nodes']:>5} {d['technical']:>4} {d['project']:>4} "
            f"{d['relationship']:>3} {d['personal']:>4} {k['decision']:>3} {k['task']:>4} "
            f"{k['person']:>4} {st['supersedes']:>3} {st['cross_domain']:>4}"
        )
    if a.missed:
        for k in KINDS:
            for m in scores[k].missed:
                print("missed", m)
            for m in scores[k].wrong:
                print("wrong", k, m)
    if a.json:
        a.json.write_text(
            json.dumps(
                {
                    "scores": {
                        k: {"labels": s.labels, "recall": s.recall, "precision": s.precision}
                        for k, s in scores.items()
                    },
                    "stats": {
                        n: {
                            **st,
                            "domains": dict(st["domains"]),
                            "kinds": dict(st["kinds"]),
                            "relationships": dict(st["relationships"]),
                        }
                        for n, st in stats.items()
                    },
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
