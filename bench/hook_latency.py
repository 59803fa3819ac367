"""Hook latency: the installed hook command and the ``rolling-graph hook`` console script
against a warm worker, with two baselines in the same run.

Builds UserPromptSubmit and PostToolUse payloads from real Claude Code transcripts in the shared
data set (``../shared/data``, claude-code rows of MANIFEST.tsv) and runs each one as a separate
process through both hook commands: the installed one (``<python> -I -S
…/transport/stdlib_hook.py``, :func:`rolling_graph.harness.install.claude_code.hook_command`) and the
console script (``rolling-graph hook``, what installs wrote before issue 31). Interleaved with
them, one for one so that machine load hits all alike, it times the two baselines from the same
virtual environment: ``python -c pass`` and the interpreter floor ``python -I -S -c pass``.
Prints p50/p95 of each and the ratios to both baselines per hook event (goal: installed hook
p50 ≤ 1.5× the floor), the first (cold-start) hook, the worker's own handling time, and the
worker's resident memory after the run.

Everything runs in a temporary data home and socket directory with the offline probe backend:
nothing touches your data and nothing leaves the machine.

    .venv/bin/python bench/hook_latency.py [--n 200] [--budget-ms 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rolling_graph.harness.install.claude_code import hook_command  # noqa: E402
from rolling_graph.transcripts import read_transcript  # noqa: E402
from rolling_graph.transcripts.events import ToolResult, ToolUse, UserPrompt  # noqa: E402
from tests.shared_data import manifest_rows  # noqa: E402

BIN = Path(sys.executable).parent
RG = str(BIN / "rolling-graph")
PY = str(BIN / "python")
FLOOR = [PY, "-I", "-S", "-c", "pass"]
INSTALLED = shlex.split(hook_command())
OLD = [RG, "hook"]
MAX_TOOL_RESPONSE = 200_000  # characters; real payloads carry the whole tool output


def build_payloads(n: int, tmp: str) -> tuple[list[dict[str, Any]], int]:
    """Up to ``n`` prompts and ``n`` tool calls, in transcript order, one session per file."""
    rows = manifest_rows(kinds=("claude-code",))
    if not rows:
        raise SystemExit(
            "no shared data (../shared/data/MANIFEST.tsv); set ROLLING_GRAPH_SHARED_DATA"
        )
    out: list[dict[str, Any]] = []
    prompts = tools = files = 0
    for row in sorted(rows, key=lambda r: r.name):
        if prompts >= n and tools >= n:
            break
        try:
            transcript = read_transcript(row.path)
        except Exception:  # noqa: BLE001 - a file we cannot read is skipped, not fatal
            continue
        files += 1
        sid = f"bench-{files:03d}"
        base = {"session_id": sid, "cwd": tmp, "transcript_path": str(row.path)}
        results = {e.tool_use_id: e for e in transcript.events if isinstance(e, ToolResult)}
        for ev in transcript.events:
            if isinstance(ev, UserPrompt) and prompts < n and ev.text.strip():
                out.append({**base, "hook_event_name": "UserPromptSubmit", "prompt": ev.text})
                prompts += 1
            elif isinstance(ev, ToolUse) and tools < n:
                res = results.get(ev.tool_use_id)
                response = res.content[:MAX_TOOL_RESPONSE] if res else ""
                out.append(
                    {
                        **base,
                        "hook_event_name": "PostToolUse",
                        "tool_name": ev.name,
                        "tool_input": ev.input,
                        "tool_response": response,
                        "tool_use_id": ev.tool_use_id,
                    }
                )
                tools += 1
    return out, files


def timed(cmd: list[str], data: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, input=data, capture_output=True, env=env, timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, proc.stdout


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, round(q * (len(v) - 1)))]


class Timings(dict[str, list[float]]):
    injected = 0


def measure(kinds: list[str], blobs: list[bytes], env: dict[str, str]) -> Timings:
    """Per payload, alternating: both baselines, the installed hook, the console script."""
    t = Timings()
    for name in ("python -c pass", "python -I -S -c pass"):
        t[name] = []
    for cmd in ("installed", "rolling-graph hook"):
        for kind in ("UserPromptSubmit", "PostToolUse"):
            t[f"{cmd}: {kind}"] = []
    # Also per payload: the clients alone (recursion guard: each exits right after start-up),
    # and the installed client's round trip through the worker without the engine (--ping,
    # as doctor times it).
    guard_env = {**env, "ROLLING_GRAPH_PROBE_CHILD": "1"}
    extra = (
        ("installed client only (guard)", INSTALLED, guard_env),
        ("console script only (guard)", OLD, guard_env),
        ("installed --ping (no engine)", [*INSTALLED, "--ping"], env),
    )
    for name, _, _ in extra:
        t[name] = []
    for kind, blob in zip(kinds, blobs, strict=True):
        t["python -c pass"].append(timed([PY, "-c", "pass"], b"", env)[0])
        t["python -I -S -c pass"].append(timed(FLOOR, b"", env)[0])
        ms, out = timed(INSTALLED, blob, env)
        t[f"installed: {kind}"].append(ms)
        t.injected += bool(out.strip())
        t[f"rolling-graph hook: {kind}"].append(timed(OLD, blob, env)[0])
        for name, cmd, e in extra:
            t[name].append(timed(cmd, blob if e is guard_env else b"", e)[0])
    return t


def worker_status(env: dict[str, str]) -> dict[str, Any]:
    res = subprocess.run(
        [RG, "worker", "status", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    return json.loads(res.stdout) if res.stdout.strip() else {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="prompts and tool calls each (default 200)")
    ap.add_argument("--budget-ms", type=int, default=300, help="hook budget (default 300)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed hooks before measuring")
    ap.add_argument("--json", action="store_true", help="also print the results as JSON")
    args = ap.parse_args()

    # An installed package ships compiled bytecode (pip compiles at install time). This checkout
    # may run with PYTHONDONTWRITEBYTECODE=1 and stale .pyc files, which would make every hook
    # recompile the client (~5 ms); refresh them the way an install would.
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "rolling_graph")], check=False)
    tmp = tempfile.mkdtemp(prefix="rg-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROLLING_GRAPH_")}
    env.update(
        ROLLING_GRAPH_HOME=os.path.join(tmp, "home"),
        ROLLING_GRAPH_SOCKET_DIR=os.path.join(tmp, "run"),
        ROLLING_GRAPH_CONFIG=os.path.join(tmp, "none.toml"),
        ROLLING_GRAPH_PROBE="offline",
        ROLLING_GRAPH_HOOK_BUDGET_MS=str(args.budget_ms),
    )
    try:
        payloads, files = build_payloads(args.n, tmp)
        blobs = [json.dumps(p).encode() for p in payloads]
        kinds = [p["hook_event_name"] for p in payloads]
        n_prompts = kinds.count("UserPromptSubmit")
        n_tools = kinds.count("PostToolUse")
        print(
            f"payloads: {n_prompts} UserPromptSubmit + {n_tools} PostToolUse from {files} "
            f"real Claude Code transcripts; median payload {statistics.median(map(len, blobs)):.0f} B, "
            f"max {max(map(len, blobs))} B"
        )

        # Cold start: no worker yet. The hook starts one and returns within its budget.
        cold_ms, cold_out = timed(INSTALLED, blobs[0], env)
        t0 = time.perf_counter()
        subprocess.run([RG, "worker", "start"], capture_output=True, env=env, timeout=120)
        ready_ms = (time.perf_counter() - t0) * 1000 + cold_ms
        for blob in blobs[1 : 1 + args.warmup]:
            timed(INSTALLED, blob, env)
        before = worker_status(env)
        t = measure(kinds, blobs, env)
        after = worker_status(env)
        log = Path(env["ROLLING_GRAPH_HOME"], "rolling-graph.log")
        gave_up = log.read_text().count("hook: worker did not answer") if log.exists() else 0
    finally:
        subprocess.run([RG, "worker", "stop"], capture_output=True, env=env, timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)

    bare, floor = t["python -c pass"], t["python -I -S -c pass"]
    b50, b95, f50, f95 = pct(bare, 0.5), pct(bare, 0.95), pct(floor, 0.5), pct(floor, 0.95)
    print(
        f"\n{'':34} {'n':>4} {'p50 ms':>7} {'p95 ms':>7} {'p50/bare':>8} {'p95/bare':>8} "
        f"{'p50/floor':>9} {'p95/floor':>9}"
    )
    for name, vals in t.items():
        p50, p95 = pct(vals, 0.5), pct(vals, 0.95)
        print(
            f"{name:34} {len(vals):4d} {p50:7.1f} {p95:7.1f} {p50 / b50:7.2f}x {p95 / b95:7.2f}x "
            f"{p50 / f50:8.2f}x {p95 / f95:8.2f}x"
        )
    all_hooks = t["installed: UserPromptSubmit"] + t["installed: PostToolUse"]
    old_hooks = t["rolling-graph hook: UserPromptSubmit"] + t["rolling-graph hook: PostToolUse"]
    injected = t.injected
    wms = after.get("hook_ms") or {}
    rss = after.get("rss_bytes")
    served = (wms.get("n") or 0) - ((before.get("hook_ms") or {}).get("n") or 0)
    hms = after.get("handle_ms") or {}
    print(
        f"\nworker-side, request to reply: p50 {wms.get('p50', float('nan')):.1f} ms, "
        f"p95 {wms.get('p95', float('nan')):.1f} ms over its last {wms.get('n', 0)} hooks; "
        f"the engine's handling (after the reply for prompts and tool calls): p50 "
        f"{hms.get('p50', float('nan')):.1f} ms, p95 {hms.get('p95', float('nan')):.1f} ms"
    )
    print(f"hooks answered by the worker during the run: {served} of {len(all_hooks) + len(old_hooks)}; "
          f"gave up on budget (whole run, incl. cold start): {gave_up}; blocks injected: {injected}")  # fmt: skip
    print(
        f"cold start: first hook {cold_ms:.0f} ms (printed {len(cold_out)} B; worker absent, "
        f"budget {args.budget_ms} ms); worker ready {ready_ms:.0f} ms after that hook began"
    )
    print(f"worker resident memory after the run: {rss / 2**20:.1f} MiB" if rss else "rss: unknown")
    print(
        f"goal: installed hook p50 ≤ 1.5x floor → {pct(all_hooks, 0.5) / f50:.2f}x "
        f"(rolling-graph hook: {pct(old_hooks, 0.5) / f50:.2f}x); p50 ≤ 2x bare → "
        f"{pct(all_hooks, 0.5) / b50:.2f}x; p95 ≤ 3x bare → {pct(all_hooks, 0.95) / b95:.2f}x; "
        f"RSS ≤ 300 MB → {(rss or 0) / 1e6:.0f} MB"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "bare": {"p50": b50, "p95": b95, "n": len(bare)},
                    "floor": {"p50": f50, "p95": f95, "n": len(floor)},
                    "console_script": {
                        "p50": pct(old_hooks, 0.5),
                        "p95": pct(old_hooks, 0.95),
                    },
                    "hook": {"p50": pct(all_hooks, 0.5), "p95": pct(all_hooks, 0.95)},
                    "rows": {k: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)} for k, v in t.items()},
                    "worker_ms": wms,
                    "handle_ms": hms,
                    "cold_ms": cold_ms,
                    "ready_ms": ready_ms,
                    "rss_bytes": rss,
                    "gave_up": gave_up,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
