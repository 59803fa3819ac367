"""Hook latency as the real Claude Code sees it: run the e2e scenario and print p50/p95 per event.

Usage: .venv/bin/python bench/e2e_latency.py [--repeat N] [--keep DIR]

Installs the pinned Claude Code into .e2e-cache/ when missing (npm), starts the local Messages
API stand-in, installs rolling-graph into a scratch project with
``rolling-graph install claude-code --scope project`` (hook command behind a timing wrapper),
and drives the session of tests/e2e/scenario.py: decision, correction, domain shift, Bash /
Read / Edit calls, /compact, and a new session the next "day". Prints two tables: wall time
around every hook command run, and ``durationMs`` as Claude Code recorded it (only for hook
runs that printed something). ``--repeat`` pools N independent scenarios.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.fake_messages_api import FakeMessagesAPI  # noqa: E402
from tests.e2e.harness import CLAUDE_CODE_VERSION, ClaudeHarness, ensure_claude  # noqa: E402
from tests.e2e.scenario import Scenario, ScenarioResult, latency_table  # noqa: E402


def run_once(binary: Path, base: Path) -> ScenarioResult:
    with FakeMessagesAPI(base / "requests.jsonl") as api:
        sc = Scenario(ClaudeHarness(binary, api, base / "scratch"), CLAUDE_CODE_VERSION)
        with sc.environment():  # stops the worker the scenario started
            return sc.run()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="scenarios to pool (default 1)")
    ap.add_argument("--keep", type=Path, default=None, help="keep scratch dirs under DIR")
    args = ap.parse_args(argv[1:])

    binary = ensure_claude(CLAUDE_CODE_VERSION)
    root = args.keep or Path(tempfile.mkdtemp(prefix="rg-e2e-bench-"))
    wrapped: dict[str, list[float]] = {}
    client: dict[str, list[float]] = {}
    t0 = time.monotonic()
    try:
        for i in range(args.repeat):
            res = run_once(binary, root / f"run{i}")
            for src, dst in ((res.wrapper_durations(), wrapped), (res.client_durations(), client)):
                for k, v in src.items():
                    dst.setdefault(k, []).extend(v)
            print(f"run {i + 1}/{args.repeat}: {len(res.timings)} hook runs", file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(
        f"Claude Code {CLAUDE_CODE_VERSION}; {args.repeat} scenario(s) in {time.monotonic() - t0:.1f} s"
    )
    print(latency_table(wrapped, "hook latency around the hook command (every run):"))
    print(latency_table(client, "hook latency as Claude Code recorded it (durationMs):"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
