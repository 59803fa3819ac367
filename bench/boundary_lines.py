"""The work lines of the block at every compaction boundary of the shared transcripts.

Replays every transcript of ../shared/data whose MANIFEST row counts compactions (each
source with a warm store of its own, as bench/recovery.py does), and prints, for each
SessionStart(compact) block, its "Task in progress" (or "Last task (done)"), "Decisions in
force", "Corrects the agent" and "Open tasks" lines as rendered (or "—" where the block has none): what a reader
sees first after a compaction, to be read by hand.

Usage: .venv/bin/python bench/boundary_lines.py [--budget N] [--probe offline] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.core.slug import slugify  # noqa: E402
from rolling_graph.eval.replay import Replayer  # noqa: E402
from rolling_graph.transcripts import read_transcript  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402

HEADS = (
    "Task in progress:",
    "Decisions in force:",
    "Corrects the agent:",
    "Open tasks:",
)
#: with no task in progress the block names the task finished last in the task's place
SAME_PLACE = {"Last task (done):": "Task in progress:"}


def work_lines(block: str) -> dict[str, str]:
    """The block's line for each head (the first one that starts with it)."""
    out: dict[str, str] = {}
    for line in block.splitlines():
        for head in (*HEADS, *SAME_PLACE):
            slot = SAME_PLACE.get(head, head)
            if line.startswith(head) and slot not in out:
                out[slot] = line
    return out


def boundary_blocks(path: Path, where: Path, probe: str, budget: int | None) -> list[str]:
    """The blocks injected at SessionStart(compact) while replaying ``path``."""
    blocks: list[str] = []

    def on_record(rec: dict[str, Any]) -> None:
        if rec["event"] == "session_start" and rec["source"] == "compact":
            blocks.append(rec["injected"] or "")

    with Replayer(where, probe=probe, budget=budget) as rp:
        rp.replay_file(path, transcript=read_transcript(path), cut_every=0, on_record=on_record)
        rp.finish()
    return blocks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--probe", default="offline")
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    rows = [r for r in manifest_rows(data_dir) if (r.compactions or 0) > 0]
    boundaries = in_progress = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, row in enumerate(rows):
            where = Path(tmp) / f"{n:02d}-{slugify(row.path.parent.name)[:40]}"
            try:
                blocks = boundary_blocks(row.path, where, a.probe, a.budget)
            except ValueError as err:  # a format the replay cannot read
                print(f"== {row.name}: skipped ({err})\n")
                continue
            for b, block in enumerate(blocks):
                boundaries += 1
                lines = work_lines(block)
                in_progress += max(lines.get("Open tasks:", "").count("(in progress"), 0)
                print(f"== {row.name} · boundary {b + 1} of {len(blocks)}")
                for head in HEADS:
                    print(f"  {lines.get(head, head + ' —')}")
                print()
    print(f"{boundaries} boundaries; 'in progress' items on Open tasks lines: {in_progress}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
