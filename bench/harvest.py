"""What the compaction summary's harvest adds, on the shared transcripts (../shared/data).

Replays every shared transcript whose MANIFEST row counts a compaction and whose summary the
readers yield (Claude Code, its exports; Codex's shared compactions carry no summary text),
with the offline probe, and prints per boundary: the summary's pending items and how many of
them the graph holds as tasks just after it (and how many are notes about the person, not
tasks), whether its current work is the task in progress, what the harvest added (tasks, decisions, people), merged and refused. Then new
nodes per source over all replays (probe, observers, summary, agent notes), with
``--no-harvest`` for the same replays without it.

Usage: .venv/bin/python bench/harvest.py [--no-harvest] [--limit N] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.transcripts import detect_format  # noqa: E402
from tests.eval.harvest_replay import boundaries, held, source_counts  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402

READABLE = ("claude-code", "claude-code-simplified", "claude-code-export", "codex", "pi")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--no-harvest", action="store_true", help="replay with SUMMARY_HARVEST off")
    ap.add_argument("--limit", type=int, default=0, help="only the first N transcripts")
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    rows = [r for r in manifest_rows(data_dir, READABLE) if (r.compactions or 0) > 0]
    rows = rows[: a.limit] if a.limit else rows
    settings = {"summary_harvest": not a.no_harvest}
    totals: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    head = f"{'file':44} {'b':>2} {'pend':>4} {'held':>4} {'cur':>3} {'+task':>5} {'+dec':>4}"
    print(head + f" {'+ppl':>4} {'merged':>6} {'refused':>7} {'notes':>5}")
    print("-" * (len(head) + 20))
    with tempfile.TemporaryDirectory() as tmp:
        for i, row in enumerate(rows):
            out = Path(tmp) / f"r{i}"
            if detect_format(row.path) is None:
                totals.update(unreadable=1)
                continue
            for b in boundaries(row.path, out, settings=settings):
                rec = b.record
                added = rec.get("added", {})
                got, cur = held(b)
                name = b.file if len(b.file) <= 44 else b.file[:20] + "…" + b.file[-23:]
                print(
                    f"{name:44} {b.index:>2} {len(b.pending):>4} {got:>4} {'yes' if cur else 'no':>3}"
                    f" {added.get('task', 0):>5} {added.get('decision', 0):>4}"
                    f" {added.get('person', 0):>4} {rec.get('merged', 0):>6}"
                    f" {rec.get('refused', 0):>7} {rec.get('notes', 0):>5}"
                )
                totals.update(
                    boundaries=1,
                    pending=len(b.pending),
                    held=got,
                    current=int(bool(b.current)),
                    current_held=int(cur),
                    tasks=added.get("task", 0),
                    decisions=added.get("decision", 0),
                    people=added.get("person", 0),
                    refused=rec.get("refused", 0),
                    notes=rec.get("notes", 0),
                )
            sources.update(source_counts(out))
    print("-" * (len(head) + 20))
    print(
        f"boundaries {totals['boundaries']}: pending items {totals['pending']}, held as tasks "
        f"{totals['held']}, notes about the person {totals['notes']}; current work stated {totals['current']}, the task in progress "
        f"{totals['current_held']}; added tasks {totals['tasks']}, decisions "
        f"{totals['decisions']}, people {totals['people']}; lines refused {totals['refused']}; "
        f"transcripts in a format not read {totals['unreadable']}"
    )
    names = {"offline": "probe (offline)", "observer": "observers", "summary": "summary"}
    names["agent"] = "agent notes"
    print(
        "new nodes by source: "
        + ", ".join(
            f"{names.get(k, k)} {v}" for k, v in sorted(sources.items(), key=lambda kv: -kv[1])
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
