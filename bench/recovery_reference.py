"""The reference measurement (``../shared/eval/recovery.py``) over the project's own replays.

For every shared Claude Code transcript with a compaction boundary: replay it alone with the
offline probe (``rolling-graph replay``), hand its trace to the reference script, and print the
reference's per-file line and the means over all boundaries (block, recent-800, summary, what
the block adds over the summary). The reference counts tokens as characters // 4 and matches
terms as substrings, so its figures differ slightly from ``bench/recovery.py``'s.

Usage: .venv/bin/python bench/recovery_reference.py [DATA_DIR]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.shared_data import manifest_rows, shared_data_dir  # noqa: E402

REFERENCE = ROOT / ".." / "shared" / "eval" / "recovery.py"
KEYS = ("block_recall", "recent800_recall", "summary_recall", "block_adds_over_summary")


def _has_boundary(path: Path) -> bool:
    with path.open(errors="replace") as fh:
        return any('"compact_boundary"' in line for line in fh)


def _measure(path: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "rolling_graph", "replay", str(path), "--out", tmp, "-q"],
            check=True,
            capture_output=True,
        )
        out = subprocess.run(
            [sys.executable, str(REFERENCE), str(path), "--trace", f"{tmp}/trace.jsonl", "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    data_dir = Path(args[0]) if args else shared_data_dir()
    if data_dir is None or not REFERENCE.is_file():
        print("shared data or ../shared/eval/recovery.py not found", file=sys.stderr)
        return 1
    rows: list[dict] = []
    for r in manifest_rows(data_dir, ("claude-code",)):
        if not _has_boundary(r.path):
            continue
        got = _measure(r.path)
        rows += got
        for g in got:
            print(
                f"{r.path.name[:44]:<44} b{g['boundary']} "
                + " ".join(f"{k}={g.get(k, float('nan')):.2f}" for k in KEYS)
            )
    if not rows:
        print("no compaction boundaries found", file=sys.stderr)
        return 1
    means = {k: sum(g[k] for g in rows if g.get(k) is not None) / len(rows) for k in KEYS}
    tokens = sum(g["block_tokens"] for g in rows) / len(rows)
    print(
        f"reference over {len(rows)} boundaries: block {means['block_recall']:.3f} at "
        f"{tokens:.0f} tokens, recent-800 {means['recent800_recall']:.3f}, summary "
        f"{means['summary_recall']:.3f}, block adds over summary "
        f"{means['block_adds_over_summary']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
