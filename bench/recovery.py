"""Recovery at compaction on the shared Claude Code transcripts (../shared/data).

Replays every Claude Code transcript with the offline probe and prints, per compaction
boundary: block recall (block <= budget tokens), the recent-N baseline at equal tokens and at
the budget (recent-800), the harness summary's recall and tokens, summary ∪ block recall and
the gain of the block over the summary, the addendum's tokens and summary ∪ block ∪ addendum
(rolling_graph.render.addendum); then the averages, and the averages over simulated
cuts (every 10th user turn: a PreCompact and SessionStart(compact) replayed there) in the
transcripts without compaction; the worst five; and the same on the project's own samples. See rolling_graph.eval.evaluate
for the definition of salient terms.

Usage: .venv/bin/python bench/recovery.py [--out DIR] [--budget N] [--window 40] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.eval.evaluate import evaluate  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402


def _f(v: object, width: int = 6) -> str:
    if v is None:
        return f"{'—':>{width}}"
    if isinstance(v, float):
        return f"{v:>{width}.2f}"
    return f"{v!s:>{width}}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="keep outputs here (default: temp)")
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--window", type=int, default=40)
    ap.add_argument("--probe", default="offline")
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    paths = [r.path for r in manifest_rows(data_dir, ("claude-code",))]
    with tempfile.TemporaryDirectory() as tmp:
        # Other people's sessions: each source's own warm store (its author's own memories).
        doc = evaluate(
            paths,
            a.out or Path(tmp),
            probe=a.probe,
            budget=a.budget,
            window=a.window,
            person_of=lambda p: p.parent.name,
        )
    budget = doc["settings"]["budget"]
    cols = (
        ("terms", "target"),
        ("blk tok", "block_tokens"),
        ("block", "block_recall"),
        ("recent=", "recent_equal_recall"),
        (f"rec-{budget}", "recent_budget_recall"),
        ("summary", "summary_recall"),
        ("sum tok", "summary_tokens"),
        ("sum∪blk", "union_recall"),
        ("gain", "gain"),
        ("add tok", "addendum_tokens"),
        ("∪add", "union_addendum_recall"),
    )
    head = f"{'file':<44} {'b':>2} " + " ".join(f"{h:>7}" for h, _ in cols)
    print(f"recovery at compaction boundaries (window {a.window} events, budget {budget})")
    print(head)
    print("-" * len(head))
    for r in doc["boundaries"]:
        name = r["file"] if len(r["file"]) <= 44 else r["file"][:20] + "…" + r["file"][-23:]
        print(f"{name:<44} {r['boundary']:>2} " + " ".join(_f(r[k], 7) for _, k in cols))
    avg = doc["boundary_averages"]
    print("-" * len(head))
    print(f"{'mean of ' + str(avg['n']):<44} {'':>2} " + " ".join(_f(avg[k], 7) for _, k in cols))
    print(
        "with the addendum (the first event after the harness's summary: what neither it nor "
        f"the block names): block+addendum={_f(avg['block_addendum_recall'], 0)} at "
        f"{_f(avg['block_tokens'], 0)}+{_f(avg['addendum_tokens'], 0)} tokens, recent at "
        f"those tokens={_f(avg['recent_addendum_recall'], 0)}, "
        f"summary∪block∪addendum={_f(avg['union_addendum_recall'], 0)}"
    )
    cavg = doc["cut_averages"]
    print(
        f"\nsimulated cuts (every {doc['settings']['cut_every']} user turns, no summary): "
        f"n={cavg['n']} block={_f(cavg['block_recall'], 0)} at {_f(cavg['block_tokens'], 0)} tokens, "
        f"recent-equal={_f(cavg['recent_equal_recall'], 0)}, "
        f"recent-{budget}={_f(cavg['recent_budget_recall'], 0)}"
    )
    _worst(doc)
    _own_samples(a)
    return 0


def _own_samples(a: argparse.Namespace) -> None:
    """The same measure on the project's own sample transcripts (``transcripts/``)."""
    own = sorted((Path(__file__).resolve().parents[1] / "transcripts").glob("*.jsonl"))
    if not own:
        return
    with tempfile.TemporaryDirectory() as tmp:
        doc = evaluate(own, Path(tmp), probe=a.probe, budget=a.budget, window=a.window)
    print(f"\nthe project's samples ({len(own)} transcripts in transcripts/):")
    for what, avg in (("boundaries", doc["boundary_averages"]), ("cuts", doc["cut_averages"])):
        if avg["n"]:
            print(
                f"  {what}: n={avg['n']} block={_f(avg['block_recall'], 0)} "
                f"at {_f(avg['block_tokens'], 0)} tokens, "
                f"recent-equal={_f(avg['recent_equal_recall'], 0)}, "
                f"summary∪block={_f(avg['union_recall'], 0)}"
            )


def _worst(doc: dict) -> None:
    """The five boundaries or cuts where the block does worst against the recent tail at equal
    tokens, with what it missed: where to look next."""
    rows = [("boundary", r, r["boundary"]) for r in doc["boundaries"]]
    rows += [("cut", r, r["after_turn"]) for r in doc["cuts"]]
    rows.sort(key=lambda t: t[1]["block_recall"] - t[1]["recent_equal_recall"])
    print("\nworst five (block − recent at equal tokens), with terms the block missed:")
    for kind, r, at in rows[:5]:
        gap = r["block_recall"] - r["recent_equal_recall"]
        print(
            f"  {r['file'][:40]} {kind} {at}: block {r['block_recall']:.2f} vs "
            f"{r['recent_equal_recall']:.2f} ({gap:+.2f}); missed {', '.join(r['missed_sample'][:10])}"
        )
    below = sum(1 for _, r, _ in rows if r["block_recall"] < r["recent_equal_recall"])
    print(f"block below recent-at-equal-tokens at {below} of {len(rows)} boundaries and cuts")


if __name__ == "__main__":
    sys.exit(main())
