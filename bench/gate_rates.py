"""Gate fire rates on every real Claude Code transcript, and precision/recall on the labels.

Usage: .venv/bin/python bench/gate_rates.py [DATA_DIR] [--no-labels]

Per file: real user turns (typed prompts only: no tool results, meta lines, command wrappers,
compaction summaries — ``rolling_graph.transcripts``' UserPrompt events), how often the gate
fired on them, tool steps (tool results), and tool-triggered probes per 20 steps. Prompts and
tool steps are replayed interleaved, in transcript order, through one gate state per file —
as the hook sees them. Goals (issue 3): prompt fire rate 15–25 % pooled; ≤ 1 tool probe per
20 steps.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.gate import Gate  # noqa: E402
from tests.gate.labels import replay_rates  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    data_dir = data_dir_or_say(Path(args[0]) if args else None)
    if data_dir is None:
        return 1
    gate = Gate()
    rows = manifest_rows(data_dir, ("claude-code",))
    print(
        f"{'file':<64} {'turns':>5} {'fired':>5} {'rate':>6} {'steps':>5} {'tprobes':>7} {'/20st':>6}"
    )
    tot: Counter[str] = Counter()
    trig: Counter[str] = Counter()
    for row in rows:
        r = replay_rates(row.path, gate)
        turns, fired, steps, tp = (int(r[k]) for k in ("turns", "fired", "steps", "tool_probes"))  # type: ignore[call-overload]
        tot.update({"turns": turns, "fired": fired, "steps": steps, "tool_probes": tp})
        trig.update(r["triggers"])  # type: ignore[arg-type]
        name = row.name if len(row.name) <= 64 else row.name[:30] + "…" + row.name[-33:]
        rate = f"{fired / turns:.0%}" if turns else "-"
        per20 = f"{20 * tp / steps:.2f}" if steps else "-"
        print(f"{name:<64} {turns:>5} {fired:>5} {rate:>6} {steps:>5} {tp:>7} {per20:>6}")
    print("-" * 100)
    t, f, s, p = tot["turns"], tot["fired"], tot["steps"], tot["tool_probes"]
    print(
        f"{'POOLED':<64} {t:>5} {f:>5} {f / max(1, t):>6.0%} {s:>5} {p:>7} {20 * p / max(1, s):>6.2f}"
    )
    print("trigger counts:", dict(sorted(trig.items())))
    if "--no-labels" not in argv:
        from tests.gate.labels import LABELS, evaluate, table

        if LABELS.exists():
            print("\nLabelled turns (tests/fixtures/gate_labels.jsonl):")
            print(table(evaluate(gate=gate)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
