"""What the redactor flags on real transcripts (../shared/data): findings per kind, with each
hit shown masked in its context, to judge false positives by eye. Prints figures only; the
transcripts are other people's and stay where they are.

.venv/bin/python bench/redact_false_positives.py [--show N] [--baseline FILE]

``--baseline FILE`` scans the same texts in the same run with another redactor module (e.g.
``git show main:rolling_graph/privacy/redact/secrets.py > /tmp/redact_main.py``) and prints its counts too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.privacy.redact.secrets import redact_with_report  # noqa: E402
from tests.shared_data import manifest_rows  # noqa: E402


def texts(path: Path) -> list[str]:
    """Every string in every JSON line: prompts, assistant text, tool inputs and results."""
    out: list[str] = []

    def walk(obj: object) -> None:
        if isinstance(obj, str):
            out.append(obj)
        elif isinstance(obj, dict):
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    for line in path.read_bytes().splitlines():
        try:
            walk(json.loads(line))
        except ValueError:
            continue
    return out


def masked(text: str, start: int, end: int) -> str:
    value = text[start:end]
    shown = value[:4] + "…" + value[-2:] if len(value) > 8 else "…"
    ctx = text[max(0, start - 40) : start] + "⟦" + shown + "⟧" + text[end : end + 20]
    return " ".join(ctx.split())


def load_module(path: str) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("redact_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def scan(show: int, fn: object = redact_with_report) -> dict[str, object]:
    rows = manifest_rows()
    kinds: Counter[str] = Counter()
    samples: dict[str, list[str]] = {}
    size = 0
    started = time.perf_counter()
    for row in rows:
        for text in texts(row.path):
            size += len(text)
            _, found = fn(text)  # type: ignore[operator]
            for f in found:
                kinds[f.kind] += 1
                samples.setdefault(f.kind, [])
                if len(samples[f.kind]) < show:
                    samples[f.kind].append(f"{row.name}: {masked(text, f.start, f.end)}")
    return {
        "files": len(rows),
        "mb": size / 1e6,
        "seconds": time.perf_counter() - started,
        "kinds": kinds,
        "samples": samples,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--baseline", help="another redact.py to compare with, same texts")
    args = ap.parse_args()
    if args.baseline:
        base = scan(0, load_module(args.baseline).redact_with_report)  # type: ignore[attr-defined]
        bk: Counter[str] = base["kinds"]  # type: ignore[assignment]
        print(f"baseline {args.baseline}: {sum(bk.values())} findings, {base['seconds']:.1f} s")
        for kind, n in bk.most_common():
            print(f"  {kind:22s} {n}")
    res = scan(args.show)
    kinds: Counter[str] = res["kinds"]  # type: ignore[assignment]
    print(f"{res['files']} transcripts, {res['mb']:.1f} MB of text, {res['seconds']:.1f} s")
    print(f"{sum(kinds.values())} findings ({sum(kinds.values()) / res['mb']:.2f} per MB)")  # type: ignore[operator]
    for kind, n in kinds.most_common():
        print(f"  {kind:22s} {n}")
        for s in res["samples"][kind]:  # type: ignore[index]
            print(f"      {s[:160]}")


if __name__ == "__main__":
    main()
