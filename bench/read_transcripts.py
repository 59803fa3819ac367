"""Read every shared transcript we support and print per-file counts and throughput.

Usage: .venv/bin/python bench/read_transcripts.py [DATA_DIR] [KIND…]
(DATA_DIR defaults to ../shared/data or $ROLLING_GRAPH_SHARED_DATA; KIND, e.g. ``pi``, keeps
only those MANIFEST kinds)

``cmds`` counts the slash and shell commands the person typed: for pi, the exports and aider,
MANIFEST's human_prompts counts them with the prompts (prompts + cmds should equal it).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.transcripts import (  # noqa: E402
    CompactBoundary,
    SlashCommand,
    ToolUse,
    UserPrompt,
    UserShellCommand,
    read_transcript,
)
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402

KINDS = ("claude-code", "claude-code-simplified", "codex", "pi", "claude-code-export", "aider")


def main(argv: list[str]) -> int:
    data_dir = data_dir_or_say(Path(argv[1]) if len(argv) > 1 else None)
    if data_dir is None:
        return 1
    kinds = tuple(argv[2:]) or KINDS
    rows = manifest_rows(data_dir, kinds)
    if not rows:
        print(f"no shared transcripts of kinds {', '.join(kinds)}", file=sys.stderr)
        return 1
    header = f"{'file':<62} {'format':<18} {'prompts':>7} {'cmds':>4} {'(man)':>5} {'tools':>5} {'(man)':>5} {'comp':>4} {'(man)':>5} {'invalid':>7} {'events':>6}"
    print(header)
    print("-" * len(header))
    total_events = total_bytes = 0
    elapsed = 0.0
    for row in rows:
        t0 = time.perf_counter()
        tr = read_transcript(row.path)
        elapsed += time.perf_counter() - t0
        total_events += len(tr.events)
        total_bytes += row.path.stat().st_size
        prompts = sum(isinstance(e, UserPrompt) for e in tr.events)
        cmds = sum(isinstance(e, SlashCommand | UserShellCommand) for e in tr.events)
        tools = sum(isinstance(e, ToolUse) for e in tr.events)
        comps = sum(isinstance(e, CompactBoundary) for e in tr.events)
        name = row.name if len(row.name) <= 62 else row.name[:29] + "…" + row.name[-32:]
        print(
            f"{name:<62} {tr.format:<18} {prompts:>7} {cmds:>4} {row.human_prompts!s:>5} {tools:>5} "
            f"{row.tool_calls!s:>5} {comps:>4} {row.compactions!s:>5} "
            f"{tr.stats.invalid_lines:>7} {len(tr.events):>6}"
        )
    print("-" * len(header))
    print(
        f"{len(rows)} files, {total_bytes / 1e6:.1f} MB, {total_events} events in {elapsed:.3f}s: "
        f"{total_events / elapsed:,.0f} events/s, {total_bytes / 1e6 / elapsed:.1f} MB/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
