"""Throughput of rolling_graph.privacy.redact.secrets on large and pathological inputs (prints MB/s).

.venv/bin/python bench/redact.py [MB] [BASELINE_REDACT_PY]

With a second argument (e.g. ``git show main:rolling_graph/privacy/redact/secrets.py > /tmp/redact_main.py``)
the same inputs also go through that module in the same run, and each line shows the ratio.
"""

from __future__ import annotations

import base64
import random
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rolling_graph.privacy.redact.secrets import redact_with_report

ROOT = Path(__file__).resolve().parents[1]


def corpora(size: int) -> dict[str, str]:
    rnd = random.Random(0)
    code = (ROOT / "rolling_graph" / "redact.py").read_text()  # keyword-dense: worst case
    fixtures = ROOT / "tests" / "fixtures" / "redaction"
    mixed = (fixtures / "clean.txt").read_text() + (fixtures / "secrets.jsonl").read_text()
    noise = string.ascii_letters + "_=:-/ \n\"'"
    return {
        "base64 run": base64.b64encode(rnd.randbytes(size * 3 // 4)).decode(),
        "random ascii + =:'\"": "".join(rnd.choices(noise, k=size)),
        "keyword-dense code": (code * (size // len(code) + 1))[:size],
        "secrets + clean mix": (mixed * (size // len(mixed) + 1))[:size],
        "BEGIN PRIVATE KEY spam": ("-----BEGIN RSA PRIVATE KEY-----" * size)[:size],
        "'sk-' spam": ("sk-" * size)[:size],
        "'a=' spam": ("a=" * size)[:size],
        "'://u:' spam": ("://u:" * size)[:size],
        "one huge line of A": "A" * size,
    }


def _best(fn: Callable[[str], Any], text: str) -> tuple[float, int]:
    dt, n = float("inf"), 0
    for _ in range(3):  # best of 3: the figure should not depend on a busy neighbour
        t0 = time.perf_counter()
        _, findings = fn(text)
        dt = min(dt, time.perf_counter() - t0)
        n = len(findings)
    return dt, n


def _load(path: str) -> Callable[[str], Any]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("redact_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.redact_with_report


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    base = _load(sys.argv[2]) if len(sys.argv) > 2 else None
    size = int(mb * 1_000_000)
    worst = worst_base = 0.0
    for name, text in corpora(size).items():
        dt, n = _best(redact_with_report, text)
        worst = max(worst, dt)
        line = (
            f"{name:26s} {len(text) / 1e6:5.1f} MB  {dt:6.3f} s  {len(text) / 1e6 / dt:7.1f} MB/s  "
            f"{n} findings"
        )
        if base is not None:
            bdt, bn = _best(base, text)
            worst_base = max(worst_base, bdt)
            line += f"   baseline {bdt:6.3f} s ({bn} findings), ratio {dt / bdt:4.2f}"
        print(line)
    print(f"slowest: {worst:.3f} s for {mb:g} MB")
    if base is not None:
        print(f"baseline slowest: {worst_base:.3f} s, ratio {worst / worst_base:.2f}")


if __name__ == "__main__":
    main()
