"""Extraction quality on the labelled shared transcripts (tests/fixtures/extraction).

Replays each labelled session through the whole pipeline (hook events, observers, the probe,
the patch engine), each in a fresh replay, and prints precision and recall per kind against
the labels: for the development set (tests/fixtures/extraction) and the second development set
(tests/fixtures/extraction/dev-2/, sessions labelled later), then, as a table of its own,
for the frozen held-out set (tests/fixtures/extraction/heldout/, when present), then for any
set named with ``--labels``. Under each table: the worst sessions (lowest recall over
decisions, corrections and tasks) with their decision labels (``--blocks``: and the
"Decisions in force" line of their final block), and per transcript the nodes by
domain and kind, supersedes and cross-domain edges. ``--missed`` lists the labels not found
(development sets only: a frozen held-out set's misses are never listed).

``--probe anthropic|openai|claude-cli`` runs the same sets through that backend (a key or an
endpoint must be at hand: ANTHROPIC_API_KEY; openai_base_url or OPENAI_API_KEY; ``claude`` on
PATH) and adds its calls and tokens under each table.

Usage: .venv/bin/python bench/extraction.py [--missed] [--json FILE] [--probe NAME]
       [--labels DIR_OR_FILE] [--worst N] [--blocks] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rolling_graph.eval.extraction import (  # noqa: E402
    KINDS,
    graph_stats,
    load_labels,
    replay_graphs,
    score,
)
from tests.shared_data import data_dir_or_say  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "extraction"
HELDOUT = FIXTURES / "heldout"
PROBES = ("offline", "anthropic", "openai", "claude-cli")
WORST_KINDS = ("decision", "correction", "task")


def _f(v: float | None) -> str:
    return "   —" if v is None else f"{v:4.2f}"


def label_set(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """(labels, session files) of a set: a folder with labels.jsonl and sessions.json, or a
    labels file with sessions.json beside it."""
    labels_file = path / "labels.jsonl" if path.is_dir() else path
    sessions = json.loads((labels_file.parent / "sessions.json").read_text(encoding="utf-8"))
    return load_labels(labels_file), [s["file"] for s in sessions]


def backend_missing(probe: str) -> str | None:
    """Why ``probe`` cannot run here, or ``None``."""
    if probe == "anthropic" and not os.environ.get("ANTHROPIC_API_KEY"):
        return "ANTHROPIC_API_KEY is not set"
    if probe == "openai" and not (
        os.environ.get("ROLLING_GRAPH_OPENAI_BASE_URL")
        or os.environ.get("OPENAI_BASE_URL")
        or os.environ.get("OPENAI_API_KEY")
    ):
        return (
            "no OpenAI endpoint (ROLLING_GRAPH_OPENAI_BASE_URL, OPENAI_BASE_URL or OPENAI_API_KEY)"
        )
    if probe == "claude-cli" and not shutil.which("claude"):
        return "the claude executable is not on PATH"
    return None


def _table(scores: dict[str, Any]) -> None:
    print(f"{'kind':<11} {'labels':>6} {'found':>5} {'recall':>6} {'pred':>5} {'prec':>5}")
    for k in KINDS:
        s = scores[k]
        print(
            f"{k:<11} {s.labels:>6} {s.found:>5} {_f(s.recall):>6} {s.predicted:>5} "
            f"{_f(s.precision):>5}"
        )


def worst_sessions(
    labels: list[dict[str, Any]], graphs: dict[str, dict[str, Any]], n: int
) -> list[tuple[str, int, int, list[str]]]:
    """(file, found, labelled, decision labels) of the ``n`` sessions with the lowest recall over
    decisions, corrections and tasks."""
    rows = []
    for name, graph in graphs.items():
        mine = [lab for lab in labels if lab["file"] == name and lab["kind"] in WORST_KINDS]
        if not mine:
            continue
        sc = score(mine, {name: graph})
        found = sum(sc[k].found for k in WORST_KINDS)
        decisions = [nd["label"] for nd in graph["nodes"].values() if nd.get("kind") == "decision"]
        rows.append((name, found, len(mine), decisions))
    rows.sort(key=lambda r: (r[1] / r[2], r[0]))
    return rows[:n]


def decisions_line(graph: dict[str, Any]) -> str:
    """The "Decisions in force" line of the block rendered from a final graph document, as a
    reader of the session's next prompt sees it ("—" when the block has none)."""
    from rolling_graph.core.model import HotGraph
    from rolling_graph.render.lod import render

    text = render(HotGraph.model_validate(graph)).text
    return next((x for x in text.splitlines() if x.startswith("Decisions in force:")), "—")


def _stats_table(graphs: dict[str, dict[str, Any]]) -> dict[str, Any]:
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
    return stats


def frozen(path: Path) -> bool:
    """A held-out set says so in the title of its README ("... (frozen)"): its misses are
    never listed, so that nobody writes a rule from them."""
    readme = (path if path.is_dir() else path.parent) / "README.md"
    if not readme.is_file():
        return False
    first = readme.read_text(encoding="utf-8").lstrip().split("\n", 1)[0]
    return "(frozen)" in first.lower()


def run_set(title: str, path: Path, data_dir: Path, a: argparse.Namespace) -> dict[str, Any]:
    """Replay one labelled set and print its tables; the figures, for ``--json``."""
    labels, files = label_set(path)
    usage: Counter[str] = Counter()
    graphs = replay_graphs(files, data_dir, a.probe, usage)
    scores = score(labels, graphs)
    print(f"== {title}: {len(files)} sessions, {len(labels)} labels, probe {a.probe}")
    _table(scores)
    if a.probe != "offline":
        print(
            f"calls {usage['calls']}  tokens in {usage['tokens_in']}  tokens out "
            f"{usage['tokens_out']}  probes {usage['probes']}  offline fallbacks "
            f"{usage['fallbacks']}"
        )
    print("\nworst sessions (recall over decisions, corrections, tasks):")
    for name, found, total, decisions in worst_sessions(labels, graphs, a.worst):
        print(f"  {found}/{total}  {name}")
        print(f"        decisions: {'; '.join(decisions[:6]) or '(none)'}")
        if a.blocks:
            print(f"        block: {decisions_line(graphs[name])}")
    print()
    stats = _stats_table(graphs)
    if a.missed and frozen(path):
        print("--missed: not listed for a frozen held-out set (rules are never tuned on it)")
    elif a.missed:
        for k in KINDS:
            for m in scores[k].missed:
                print("missed", m)
            for m in scores[k].wrong:
                print("wrong", k, m)
    print()
    return {
        "scores": {
            k: {"labels": s.labels, "recall": s.recall, "precision": s.precision}
            for k, s in scores.items()
        },
        "usage": dict(usage),
        "stats": {
            n: {
                **st,
                "domains": dict(st["domains"]),
                "kinds": dict(st["kinds"]),
                "relationships": dict(st["relationships"]),
            }
            for n, st in stats.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--labels", type=Path, default=None, help="a further labelled set")
    ap.add_argument("--missed", action="store_true", help="list the labels not found")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    ap.add_argument("--probe", choices=PROBES, default="offline")
    ap.add_argument("--worst", type=int, default=3, help="worst sessions listed per set")
    ap.add_argument(
        "--blocks",
        action="store_true",
        help="the 'Decisions in force' line of each worst session's final block",
    )
    ap.add_argument("--dev", type=Path, default=FIXTURES, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    missing = backend_missing(a.probe)
    if missing:
        print(f"--probe {a.probe}: {missing}", file=sys.stderr)
        return 2
    sets = [("development set", a.dev)]
    dev2 = FIXTURES / "dev-2"  # sessions labelled after the first set had been fitted
    if (dev2 / "labels.jsonl").is_file() and a.dev == FIXTURES:
        sets.append(("development set 2 (new sessions, labelled 2026-11-27)", dev2))
    if (HELDOUT / "labels.jsonl").is_file() and a.dev == FIXTURES:
        sets.append(("held-out set", HELDOUT))
    if a.labels is not None:
        sets.append((f"labels {a.labels}", a.labels))
    figures = {title: run_set(title, path, data_dir, a) for title, path in sets}
    if a.json:
        a.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
