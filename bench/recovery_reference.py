"""The reference measurement (``../shared/eval/recovery.py``) over the project's own replays.

For every shared Claude Code transcript with a compaction boundary: replay it alone with the
offline probe (``rolling-graph replay``), hand its trace to the reference script, and print the
reference's per-file line and the means over all boundaries (block, recent-800, summary, what
the block adds over the summary), then the same with the addendum the first event after the
summary adds (``rolling_graph.render.addendum``) appended to the block. The reference counts tokens as characters // 4 and matches
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

from rolling_graph.render.addendum import HEAD as ADDENDUM_HEAD  # noqa: E402
from tests.shared_data import manifest_rows, shared_data_dir  # noqa: E402

REFERENCE = ROOT / ".." / "shared" / "eval" / "recovery.py"
KEYS = ("block_recall", "recent800_recall", "summary_recall", "block_adds_over_summary")


def _has_boundary(path: Path) -> bool:
    with path.open(errors="replace") as fh:
        return any('"compact_boundary"' in line for line in fh)


def _with_addendum(trace: Path, out: Path) -> None:
    """The trace with each SessionStart(compact) injection followed by the addendum the next
    event added (``rolling_graph.render.addendum``): what the model held after the summary."""
    recs = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    for i, rec in enumerate(recs):
        if rec.get("event") != "session_start" or rec.get("source") != "compact":
            continue
        nxt = recs[i + 1] if i + 1 < len(recs) else {}
        injected = nxt.get("injected") or ""
        if nxt.get("event") != "session_start" and ADDENDUM_HEAD in injected:
            rec["injected"] = (
                f"{rec.get('injected') or ''}\n{injected[injected.index(ADDENDUM_HEAD) :]}"
            )
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))


def _reference(path: Path, trace: Path) -> list[dict]:
    out = subprocess.run(
        [sys.executable, str(REFERENCE), str(path), "--trace", str(trace), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def _measure(path: Path) -> tuple[list[dict], list[dict]]:
    """The reference's rows for the compaction block alone, and with the addendum."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "rolling_graph", "replay", str(path), "--out", tmp, "-q"],
            check=True,
            capture_output=True,
        )
        trace = Path(tmp) / "trace.jsonl"
        _with_addendum(trace, Path(tmp) / "with_addendum.jsonl")
        return _reference(path, trace), _reference(path, Path(tmp) / "with_addendum.jsonl")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    data_dir = Path(args[0]) if args else shared_data_dir()
    if data_dir is None or not REFERENCE.is_file():
        print("shared data or ../shared/eval/recovery.py not found", file=sys.stderr)
        return 1
    rows: list[dict] = []
    plus: list[dict] = []
    for r in manifest_rows(data_dir, ("claude-code",)):
        if not _has_boundary(r.path):
            continue
        got, with_addendum = _measure(r.path)
        rows += got
        plus += with_addendum
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
    adds = sum(g["block_adds_over_summary"] for g in plus) / len(plus)
    both = sum(g["block_tokens"] for g in plus) / len(plus)
    print(
        f"with the addendum after the summary: block+addendum "
        f"{sum(g['block_recall'] for g in plus) / len(plus):.3f} at {both:.0f} tokens, "
        f"adds over summary {adds:.3f} (summary ∪ block ∪ addendum "
        f"{means['summary_recall'] + adds:.3f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
