"""Hook latency as Codex CLI, Gemini CLI and Copilot CLI wait for it, against a no-op baseline.

Usage: .venv/bin/python bench/client_latency.py [--clients codex,gemini,copilot]

For each client (pinned, from npm into .e2e-cache/ when missing), runs the session of
tests/e2e/client_scenario.py twice in this run: once with the hooks running a no-op program
(reads stdin, prints nothing: what any hook costs the client, process start included), once
with ``rolling-graph hook``. Both are timed by the same wrapper around the hook process.
Prints, per client and event, the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.client_scenario import ClientResult, ClientScenario  # noqa: E402
from tests.e2e.clients import CLIENTS, Client, ensure_client  # noqa: E402

NOOP = "#!/usr/bin/env bash\ncat >/dev/null\n"


def run(client: Client, base: Path, program: Path | None) -> ClientResult:
    binary = ensure_client(client)
    with client.standin(base / "requests.jsonl") as api:
        sc = ClientScenario(client, binary, api, base, hook_program=program)
        try:
            return sc.run()
        finally:
            sc.close()


def medians(res: ClientResult) -> dict[str, float]:
    by: dict[str, list[float]] = {}
    for t in res.timings:
        by.setdefault(t["event"], []).append(t["us"] / 1000)
        by.setdefault("all", []).append(t["us"] / 1000)
    return {ev: statistics.median(v) for ev, v in by.items()}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", default=",".join(sorted(CLIENTS)))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rg-bench-clients-") as tmp:
        noop = Path(tmp) / "noop-hook"
        noop.write_text(NOOP)
        noop.chmod(0o755)
        for name in args.clients.split(","):
            client = CLIENTS[name]
            base = run(client, Path(tmp) / f"{name}-noop", noop)
            ours = run(client, Path(tmp) / f"{name}-rg", None)
            mb, mo = medians(base), medians(ours)
            print(
                f"\n{client.name} {client.version}: hook wall time, median ms (n={len(ours.timings)})"
            )
            print(f"{'event':<22}{'no-op':>10}{'rolling-graph':>15}{'ratio':>8}")
            for ev in sorted(mo, key=lambda e: (e == "all", e)):
                b = mb.get(ev)
                ratio = f"{mo[ev] / b:.1f}x" if b else "-"
                print(f"{ev:<22}{(b or 0):>10.1f}{mo[ev]:>15.1f}{ratio:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
