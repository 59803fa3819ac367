"""Resume across sessions on the shared multi-session series (../shared/data).

Each series (the sessions of one repository) is replayed in order of first timestamp as
successive sessions of ONE project (forced with ``project=``), with the offline probe and a
fresh SQLite warm store. For session k+1, the target T is the set of salient terms its first
``--window`` user/assistant events use that an earlier session already used. Compared at their
own sizes: the block injected at session k+1's SessionStart(startup), and the previous
session's last ``--budget`` tokens ("prev-tail", what a person might paste back). The term,
recall and token rules are those of ``../shared/eval/resume.py`` (substring recall, tokens =
characters // 4); where that script is present it is also run on the same trace and its
means are printed beside ours, which must agree.

Usage: .venv/bin/python bench/resume.py [--series NAME…] [--budget 800] [--window 20]
       [--out DIR] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.config import load_settings  # noqa: E402
from rolling_graph.eval.replay import Replayer  # noqa: E402
from tests.shared_data import data_dir_or_say  # noqa: E402

SERIES = ("M-Thisness__M-Claude", "entireio__cli")

# --- the reference's rules (../shared/eval/recovery.py and resume.py), restated ----------------
_STOP_WORDS = """
the a an and or but if then else for to of in on at by with from into over under this that these
those it its is are was were be been being do does did done have has had having i you he she we
they me my your our their not no yes ok okay please thanks thank let lets let's can could would
should will shall may might must just also very more most less some any all each every both few
many much other another such same so than too what which who whom whose when where why how here
there now again once only own still yet about above below after before between through during
without within along across around up down out off true false none null self cls def return
import class var const function new use used using make made get got set run file files line
lines code error errors test tests data value values name names type types user users
"""
STOP = set(_STOP_WORDS.split())
PATH = re.compile(
    r"(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|kt|md|json|yml|yaml|toml|sql"
    r"|sh|css|html|rb|c|h|cpp|txt|cfg|ini|env)\b"
)
CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
CAP = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z0-9]{2,}\b")


def terms(text: str) -> set[str]:
    out = set()
    for m in PATH.findall(text):
        base = m.rstrip("/").split("/")[-1].lower()
        if len(base) >= 3:
            out.add(base)
    for rx in (CAMEL, SNAKE, CAP):
        for m in rx.findall(text):
            w = m.lower()
            if w not in STOP and len(w) >= 3:
                out.add(w)
    return out


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "tool_use":
            inp = b.get("input") or {}
            vals = (str(v) for v in inp.values() if isinstance(v, str | int | float))
            parts.append(" ".join(vals)[:2000])
    return "\n".join(parts)


def conversation(path: Path) -> list[str]:
    """User prompts and assistant text/tool inputs, in order (the reference's ``events``)."""
    out: list[str] = []
    for line in path.open(errors="replace"):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") not in ("user", "assistant") or r.get("isSidechain"):
            continue
        if r.get("isCompactSummary") or (r.get("type") == "user" and r.get("isMeta")):
            continue
        c = (r.get("message") or {}).get("content")
        if r["type"] == "user":
            if isinstance(c, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in c
            ):
                continue
            s = _block_text(c).strip()
            skip = ("<command-", "<local-command", "<task-notification", "[Request interrupted")
            if s and not s.startswith(skip):
                out.append(s)
        elif s := _block_text(c).strip():
            out.append(s)
    return out


def ref_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def tail(texts: list[str], budget: int) -> str:
    out, n = [], 0
    for t in reversed(texts):
        k = ref_tokens(t)
        if n + k > budget:
            out.append(t[-(budget - n) * 4 :])
            break
        out.append(t)
        n += k
    return "\n".join(reversed(out))


def recall(target: set[str], text: str) -> float:
    low = text.lower()
    return sum(1 for t in target if t in low) / len(target)


def first_ts(path: Path) -> str:
    for line in path.open(errors="replace"):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("timestamp"):
            return str(r["timestamp"])
    return ""


# --- the measurement --------------------------------------------------------------------------


def start_blocks(trace: Path) -> list[str]:
    out = []
    for line in trace.open():
        r = json.loads(line)
        if r.get("event") == "session_start" and r.get("source") in ("startup", "resume", None):
            out.append(r.get("injected") or "")
    return out


def measure(files: list[Path], blocks: list[str], window: int, budget: int) -> list[dict]:
    seen: set[str] = set()
    prev: list[str] = []
    rows = []
    for i, f in enumerate(files):
        ev = conversation(f)
        used = set().union(*(terms(t) for t in ev[:window])) if ev else set()
        target = used & seen
        if i and target:
            block = blocks[i] if i < len(blocks) else ""
            rows.append(
                {
                    "file": f.name[:40],
                    "target": len(target),
                    "prev_tail_recall": recall(target, tail(prev, budget)),
                    "block_recall": recall(target, block),
                    "block_tokens": ref_tokens(block),
                }
            )
        prev = ev
        for t in ev:
            seen |= terms(t)
    return rows


def run_series(
    series_dir: Path, out: Path, budget: int, window: int
) -> tuple[list[dict], list[Path], Path]:
    files = sorted(series_dir.glob("*.jsonl"), key=first_ts)
    settings = load_settings(
        home=out / "store", probe="offline", budget=budget, project=series_dir.name, warm=None
    )
    with Replayer(out, settings=settings) as rp:
        for f in files:
            rp.replay_file(f)
        rp.finish()
    trace = out / "trace.jsonl"
    return measure(files, start_blocks(trace), window, budget), files, trace


def reference(data_dir: Path, files: list[Path], trace: Path, window: int, budget: int) -> str:
    script = data_dir.parent / "eval" / "resume.py"
    if not script.is_file():
        return "(reference ../shared/eval/resume.py not found)"
    argv = [sys.executable, str(script), *map(str, files), "--trace", str(trace)]
    argv += ["--window", str(window), "--budget", str(budget)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("#")]
    return lines[-1] if lines else f"(reference failed: {proc.stderr.strip()[-200:]})"


def _mean(rows: list[dict], key: str) -> float:
    return sum(r[key] for r in rows) / max(1, len(rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", type=Path, default=None)
    ap.add_argument("--series", nargs="*", default=list(SERIES))
    ap.add_argument("--budget", type=int, default=800)
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None, help="keep replays here (default: temp)")
    a = ap.parse_args(argv)
    data_dir = data_dir_or_say(a.data_dir)
    if data_dir is None:
        return 1
    every: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = a.out or Path(tmp)
        for name in a.series:
            rows, files, trace = run_series(
                data_dir / "raw" / name, base / name, a.budget, a.window
            )
            every += rows
            print(f"\n{name}: {len(files)} sessions, {len(rows)} resumes")
            print(f"{'file':<42} {'terms':>5} {'prev-tail':>9} {'block':>6} {'blk tok':>7}")
            for r in rows:
                print(
                    f"{r['file']:<42} {r['target']:>5} {r['prev_tail_recall']:>9.2f}"
                    f" {r['block_recall']:>6.2f} {r['block_tokens']:>7}"
                )
            print(
                f"{'mean':<42} {'':>5} {_mean(rows, 'prev_tail_recall'):>9.3f}"
                f" {_mean(rows, 'block_recall'):>6.3f} {_mean(rows, 'block_tokens'):>7.0f}"
            )
            print("reference:", reference(data_dir, files, trace, a.window, a.budget))
    print(
        f"\nall series: resumes={len(every)} prev_tail_recall={_mean(every, 'prev_tail_recall'):.3f}"
        f" block_recall={_mean(every, 'block_recall'):.3f}"
        f" block_tokens={_mean(every, 'block_tokens'):.0f} (reference tokens: chars // 4;"
        f" the project's estimate caps the block at {a.budget} × 3.5 characters)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
