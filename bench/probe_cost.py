"""Paid probe calls per 60 user turns on the shared Claude Code transcripts, before and after
the cost policy (issue 19).

Tokens: the stand-in counts input and output tokens as ~4 characters each and reports
prompt-cache reads as the real API does (a request whose prefix up to a ``cache_control``
breakpoint it saw before); per 60 user turns the table shows input (all), cached, billed
input (cache reads at a tenth) and output tokens, per file, pooled and for the worst file.

Every transcript is replayed through the whole pipeline with the ``anthropic`` backend pointed
at a local stand-in of the Messages API (tests/probe/standins.py: a real HTTP server, used
through the real SDK) that counts the calls it gets. Two runs, same data, same process:

- **before**: ``paid_probes = always`` — every probe the gate asks for is a paid call (the
  scheduler as it was);
- **after**: ``paid_probes = judgement`` (the default) — paid calls only for what needs
  judgement, the offline probe for the rest.

No session cap or daily budget in either run (they would hide what the policy does). Per file:
user turns, paid calls and calls per 60 user turns in each run; corrections the gate detected
and how many of them got a paid probe on that very prompt (goal: all). Pooled: calls per 60
user turns (goal ≤ 15), and the stand-in's own count as a cross-check of the audit logs.

Usage: .venv/bin/python bench/probe_cost.py [DATA_DIR] [--files N] [--only before|after]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.probe.cost_replay import FileCost, run  # noqa: E402
from tests.probe.standins import MessagesStandIn  # noqa: E402
from tests.shared_data import data_dir_or_say, manifest_rows  # noqa: E402


def _short(name: str, width: int = 52) -> str:
    return name if len(name) <= width else name[:20] + "…" + name[-(width - 21) :]


def _line(name: str, f: FileCost) -> str:
    return (
        f"{_short(name):<52} {f.turns:>5} {f.calls:>5} {f.per60:>6.1f} "
        f"{f.per60_tokens(f.tokens_in):>8.0f} {f.per60_tokens(f.tokens_cached):>8.0f} "
        f"{f.per60_tokens(f.tokens_cache_write):>8.0f} "
        f"{f.per60_tokens(round(f.billed_in)):>8.0f} {f.per60_tokens(f.tokens_out):>7.0f} "
        f"{f.corrections:>4} {f.corrections_paid:>4}"
    )


def _table(mode: str, files: list[FileCost], prefix: int = 0) -> None:
    """Per file, then pooled and the worst file: calls and tokens per 60 user turns."""
    head = (
        f"{'[' + mode + '] file':<52} {'turns':>5} {'calls':>5} {'/60':>6} {'in/60':>8} "
        f"{'cache/60':>8} {'write/60':>8} {'billed/60':>8} {'out/60':>7} {'corr':>4} {'paid':>4}"
    )
    print(head)
    print("-" * len(head))
    for f in files:  # a subagent's file is not replayed: it has no row
        print(_line(f.name, f))
    print("-" * len(head))
    pooled = FileCost(f"POOLED ({len(files)} files)")
    for f in files:
        pooled.turns += f.turns
        pooled.calls += f.calls
        pooled.tokens_in += f.tokens_in
        pooled.tokens_cached += f.tokens_cached
        pooled.tokens_cache_write += f.tokens_cache_write
        pooled.tokens_out += f.tokens_out
        pooled.corrections += f.corrections
        pooled.corrections_paid += f.corrections_paid
    print(_line(pooled.name, pooled))
    sized = [f for f in files if f.turns >= 10] or files
    worst = max(sized, key=lambda f: f.per60_tokens(round(f.billed_in)))
    print(_line("WORST (≥10 turns): " + worst.name, worst))
    # The stand-in's cache lives as long as the run, as the API's lives an hour across a
    # person's sessions; a session that starts cold pays one more write instead of a read.
    warm = [f for f in files if f.calls and not f.tokens_cache_write]
    cold = pooled.billed_in + len(warm) * (2.0 - 0.1) * prefix
    print(
        f"billed = input with cache reads at a tenth and writes at 2x (1-hour cache); if every "
        f"session started with a cold cache: {60 * cold / max(1, pooled.turns):.0f} billed/60 "
        f"({len(warm)} more writes of {prefix} tokens)\n"
        "goals per 60 user turns: calls ≤ 15, billed input ≤ 30,000 (pooled)\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--files", type=int, default=0, help="only the first N files")
    ap.add_argument("--only", choices=("before", "after"), default=None)
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    rows = manifest_rows(data_dir, ("claude-code",))
    rows = rows[: a.files] if a.files else rows
    modes = [m for m in ("before", "after") if a.only in (None, m)]
    results: dict[str, list[FileCost]] = {}
    with MessagesStandIn("ok") as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-standin")
        for mode in modes:
            server.cache.clear()
            started, calls0 = time.perf_counter(), server.calls
            results[mode] = run(rows, "always" if mode == "before" else "judgement")
            audited = sum(f.calls for f in results[mode])
            print(
                f"# {mode}: {server.calls - calls0} calls reached the stand-in "
                f"({audited} in the audit logs), {time.perf_counter() - started:.0f}s",
                file=sys.stderr,
            )
    last = results[modes[-1]]
    prefix = server.cache_prefix_tokens
    for m in modes:
        _table(m, results[m], prefix)
    for m in modes:
        per60 = sorted(f.per60 for f in results[m] if f.turns >= 10)
        median = per60[len(per60) // 2] if per60 else 0.0
        reasons: dict[str, int] = {}
        for f in results[m]:
            for k, v in f.reasons.items():
                reasons[k] = reasons.get(k, 0) + v
        tin = sum(f.tokens_in for f in results[m]) / max(1, sum(f.calls for f in results[m]))
        print(
            f"{m}: median per file (≥10 turns) {median:.1f} calls/60 turns; "
            f"input tokens per call {tin:.0f} (stand-in count); reasons {dict(sorted(reasons.items()))}"
        )
    corr = sum(f.corrections for f in last)
    print(
        f"corrections detected {corr}, paid on their own turn {sum(f.corrections_paid for f in last)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
