"""Replay the real user prompts of the shared Claude Code transcripts through the offline probe
and the patch engine; print rejected patches and, for three sessions, the top 10 node labels.

Usage: .venv/bin/python bench/offline_probe.py [DATA_DIR] [--all]
(DATA_DIR defaults to ../shared/data or $ROLLING_GRAPH_SHARED_DATA; --all prints every session)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.eval.prompt_replay import replay_prompts  # noqa: E402
from rolling_graph.transcripts import UserPrompt, read_transcript  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402

SHOW = ("apanloco__random", "AlexandreVassard__will-it-rain", "ikihin__bhavana")


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    data_dir = data_dir_or_say(Path(args[0]) if args else None)
    if data_dir is None:
        return 1
    show_all = "--all" in argv
    total_prompts = total_rejected = 0
    t0 = time.perf_counter()
    for row in manifest_rows(data_dir, ("claude-code",)):
        prompts = [e.text for e in read_transcript(row.path).events if isinstance(e, UserPrompt)]
        res = replay_prompts(prompts, session_id=row.repo.replace("/", "__") or "s")
        total_prompts += len(prompts)
        total_rejected += len(res.rejected)
        g = res.session.graph
        print(
            f"{row.name[:70]:<70} prompts={len(prompts):>4} nodes={len(g.nodes):>4} "
            f"edges={len(g.edges):>4} rejected={len(res.rejected)}"
        )
        for err in res.rejected[:3]:
            print("   rejected:", err)
        if show_all or any(row.name.startswith(s) for s in SHOW):
            top = sorted(g.nodes.values(), key=lambda n: (-n.weight, -n.last_activated, n.id))[:10]
            print("   top 10:", " | ".join(f"{n.label} ({n.weight:.2f})" for n in top))
    dt = time.perf_counter() - t0
    print(f"{total_prompts} prompts, {total_rejected} rejected patches, {dt:.1f}s")
    return 1 if total_rejected else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
