"""What the "still true when read" check costs at SessionStart: this repository's own modules as
file nodes and the names they define as symbol nodes (as observers record them), checked
against the work tree, up to ``freshness.MAX_ANCHORS``; then the same with a third of the files
missing (git is asked about renames). Prints milliseconds per check (median of runs).

.venv/bin/python bench/freshness.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rolling_graph.observe.tool_events import defined_names  # noqa: E402
from rolling_graph.render.freshness import MAX_ANCHORS, check  # noqa: E402


@dataclass
class N:
    id: str
    label: str
    kind: str
    summary: str | None = None


def nodes(missing: bool) -> list[N]:
    out: list[N] = []
    for i, p in enumerate(sorted((ROOT / "rolling_graph").glob("*.py"))):
        rel = str(p.relative_to(ROOT))
        gone = missing and i % 3 == 0
        out.append(N(f"f{i}", rel.replace(".py", "_gone.py") if gone else rel, "file"))
        for name in defined_names(p.read_text(), 2):
            out.append(N(f"s{i}-{name}", name, "entity", f"defined in {rel} (turn 1)"))
    return out[:MAX_ANCHORS]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    for missing in (False, True):
        ns = nodes(missing)
        times, fresh = [], None
        for _ in range(args.runs):
            started = time.perf_counter()
            fresh = check(ns, [], str(ROOT), budget_ms=2000)
            times.append((time.perf_counter() - started) * 1000)
        assert fresh is not None
        print(
            f"{len(ns)} anchors, {'a third of the files missing' if missing else 'all present'}: "
            f"{statistics.median(times):.1f} ms median, {max(times):.1f} ms max; "
            f"{fresh.report()}"
        )


if __name__ == "__main__":
    main()
