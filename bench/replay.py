"""Replay every shared Claude Code transcript (../shared/data) with the offline probe.

Prints one row per file (user turns, tool steps, probes, probe rate per 60 user turns,
injected tokens max, nodes) and the overall throughput in hook events per second, transcript
reading, the pipeline and output writing all included; ``ev/cpu-s`` divides by the process's
CPU time for the file instead of wall time (steadier on a shared machine). Goal: >= 200
events/s on every file (issue 31). A subagent's file (sidechain lines only) is not a session:
the replay refuses it, and it is listed as skipped below the table.

Process start-up (imports, building the spaCy pipeline, the first compiled patterns) is paid
once per process, not per file: it is taken first, by replaying the project's own sample
``transcripts/flaky-ci.jsonl`` into a separate, throw-away output directory (so no shared file
reads a store it left), and printed on its own line; ``--cold`` leaves it on the first file
instead, as before.

Usage: .venv/bin/python bench/replay.py [--out DIR] [--budget N] [--match TEXT] [--cold] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.eval.replay import NotASessionError, Replayer  # noqa: E402
from tests.shared_data import manifest_rows, shared_data_dir  # noqa: E402

WARM_UP = Path(__file__).resolve().parents[1] / "transcripts" / "flaky-ci.jsonl"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="keep outputs here (default: temp)")
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--probe", default="offline")
    ap.add_argument("--match", default="", help="only the files whose name contains this")
    ap.add_argument("--cold", action="store_true", help="start-up counted in the first file")
    a = ap.parse_args(argv)
    data_dir = a.data_dir or shared_data_dir()
    if data_dir is None:
        print(
            "shared data not found (../shared/data or $ROLLING_GRAPH_SHARED_DATA)", file=sys.stderr
        )
        return 1
    rows = [r for r in manifest_rows(data_dir, ("claude-code",)) if a.match in r.name]
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or Path(tmp) / "out"
        c0 = time.process_time()
        if not a.cold:
            with Replayer(Path(tmp) / "warm-up", probe=a.probe, budget=a.budget) as rp:
                rp.replay_file(WARM_UP)
        startup = time.process_time() - c0
        t0 = time.perf_counter()
        cpu: list[float] = []
        skipped: list[str] = []
        with Replayer(out, probe=a.probe, budget=a.budget) as rp:
            for row in list(rows):
                c0 = time.process_time()
                try:
                    rp.replay_file(row.path)
                except NotASessionError as err:  # a subagent's file: no hook event of its own
                    skipped.append(str(err))
                    rows.remove(row)
                    continue
                cpu.append(time.process_time() - c0)
            doc = rp.finish()
        wall = time.perf_counter() - t0
    head = (
        f"{'file':<58} {'turns':>5} {'tools':>5} {'probes':>6} {'p/60':>5} "
        f"{'inj max':>7} {'nodes':>5} {'edges':>5} {'ev/s':>6} {'ev/cpu-s':>8}"
    )
    print(head)
    print("-" * len(head))
    for s, row, c in zip(doc["sessions"], rows, cpu, strict=True):
        name = row.name if len(row.name) <= 58 else row.name[:26] + "…" + row.name[-31:]
        print(
            f"{name:<58} {s['user_turns']:>5} {s['tool_steps']:>5} {s['probes']:>6} "
            f"{s['probe_rate_per_60']:>5.1f} {s['injected_tokens_max']:>7} {s['nodes']:>5} "
            f"{s['edges']:>5} {s['events_per_second']:>6.0f} {s['hook_events'] / c:>8.0f}"
        )
    o = doc["overall"]
    print("-" * len(head))
    print(
        f"{'all (' + str(len(rows)) + ' files)':<58} {o['user_turns']:>5} {o['tool_steps']:>5} "
        f"{o['probes']:>6} {o['probe_rate_per_60']:>5.1f} {o['injected_tokens_max']:>7} "
        f"{o['nodes']:>5} {o['edges']:>5} {o['events_per_second']:>6.0f} "
        f"{o['hook_events'] / sum(cpu):>8.0f}"
    )
    print(f"triggers: {o['triggers']}")
    for why in skipped:
        print(f"skipped {why}")
    if not a.cold:
        print(f"start-up (once per process, in no row): {startup:.2f}s CPU")
    print(
        f"{o['hook_events']} hook events in {wall:.1f}s wall"
        f"{' (start-up included)' if a.cold else ''}: "
        f"{o['hook_events'] / wall:.0f} events/s; {o['events_per_second']:.0f} events/s excluding "
        f"start-up; pipeline alone {o['hook_events'] / (o['handle_ms'] / 1000):.0f} events/s; "
        f"rejected patches {o['rejected_patches']}, supersedes edges {o['supersedes_edges']}, "
        f"cross-domain edges {o['cross_domain_edges']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
