"""What paid probes cost: a per-user ledger of calls and tokens per UTC day, prices, budgets.

Per session, the audit log already holds each probe's tokens (``stats`` reads them there);
this ledger adds the per-day totals the daily token budget is checked against. It is one small
JSON file in the data directory (``usage.json``, last 90 days), written under a file lock since
the worker and a replay or CLI may share a home. Prices are USD per million tokens: the
config's ``price_in`` / ``price_out`` when set, else a short table of known models, else 0
(local models; ``stats`` marks such costs as unknown rather than pretending they are free).
Prompt caching is priced as billed: a cache read at a fraction of the input price
(:data:`CACHE_READ`: a tenth on Anthropic), an Anthropic cache write at 1.25x (5-minute
cache) or 2x (1-hour cache, ``probe_cache_ttl``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

FILE = "usage.json"
KEEP_DAYS = 90
#: USD per million (input, output) tokens, by model-name prefix (list prices, late 2025)
PRICES: tuple[tuple[str, tuple[float, float]], ...] = (
    ("claude-haiku-4", (1.0, 5.0)),
    ("claude-3-5-haiku", (0.8, 4.0)),
    ("claude-3-haiku", (0.25, 1.25)),
    ("claude-sonnet-4", (3.0, 15.0)),
    ("gpt-4o-mini", (0.15, 0.6)),
    ("gpt-4.1-nano", (0.1, 0.4)),
    ("gpt-4.1-mini", (0.4, 1.6)),
    ("gpt-5-nano", (0.05, 0.4)),
    ("gpt-5-mini", (0.25, 2.0)),
)


#: what a prompt-cache read costs, as a share of the input price, by model-name prefix
CACHE_READ: tuple[tuple[str, float], ...] = (
    ("claude", 0.1),
    ("gpt-4o", 0.5),
    ("gpt-4.1", 0.25),
    ("gpt-5", 0.1),
)
#: what an Anthropic cache write costs, as a share of the input price, by cache lifetime
CACHE_WRITE = {"5m": 1.25, "1h": 2.0, "off": 1.0}


def cache_factors(model: str | None, settings: Any = None) -> tuple[float, float]:
    """(read, write) price factors of cached input tokens for ``model``."""
    read = next((f for p, f in CACHE_READ if model and model.startswith(p)), 0.1)
    anthropic = bool(model and model.startswith("claude"))
    ttl = str(getattr(settings, "probe_cache_ttl", "5m"))
    return read, CACHE_WRITE.get(ttl, 1.25) if anthropic else 1.0


def billed_input(
    model: str | None, tokens_in: int, cached: int = 0, written: int = 0, settings: Any = None
) -> float:
    """Input tokens as billed: uncached ones whole, cache reads and writes at their factors."""
    read_f, write_f = cache_factors(model, settings)
    return tokens_in - cached - written + read_f * cached + write_f * written


def price(model: str | None, settings: Any = None) -> tuple[float, float] | None:
    """(in, out) USD per million tokens, or None when unknown (not configured, not listed)."""
    p_in = getattr(settings, "price_in", None)
    p_out = getattr(settings, "price_out", None)
    if p_in is not None or p_out is not None:
        return float(p_in or 0.0), float(p_out or 0.0)
    for prefix, prices in PRICES:
        if model and model.startswith(prefix):
            return prices
    return None


def cost_usd(
    model: str | None,
    tokens_in: int,
    tokens_out: int,
    settings: Any = None,
    cached: int = 0,
    written: int = 0,
) -> float:
    """USD for one call; ``tokens_in`` counts every input token, ``cached``/``written`` of them
    came from or went to the prompt cache."""
    p = price(model, settings)
    if p is None:
        return 0.0
    billed = billed_input(model, tokens_in, cached, written, settings)
    return round((billed * p[0] + tokens_out * p[1]) / 1_000_000, 6)


def today(clock: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if clock is None else clock))


class Ledger:
    """Per-day totals of paid calls; safe across processes (file lock, atomic replace)."""

    def __init__(self, home: Path) -> None:
        self.path = Path(home) / FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def record(
        self,
        backend: str,
        model: str | None,
        tokens_in: int,
        tokens_out: int,
        cost: float,
        *,
        failed: bool = False,
        day: str | None = None,
        cached: int = 0,
    ) -> None:
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        day = day or today()
        with FileLock(str(self.path) + ".lock", timeout=5):
            data = self._read()
            row = data.setdefault(day, {}).setdefault(
                f"{backend}:{model or '-'}",
                {"calls": 0, "failed": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0},
            )
            row["tokens_cached"] = int(row.get("tokens_cached", 0)) + int(cached)
            row["calls"] += 1
            row["failed"] += int(failed)
            row["tokens_in"] += int(tokens_in)
            row["tokens_out"] += int(tokens_out)
            row["cost_usd"] = round(row["cost_usd"] + cost, 6)
            for old in sorted(data)[:-KEEP_DAYS]:
                del data[old]
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.path)

    def days(self) -> dict[str, dict[str, dict[str, Any]]]:
        """{day: {"backend:model": {calls, failed, tokens_in, tokens_cached, tokens_out,
        cost_usd}}}; ``tokens_cached`` is absent from days written before it was recorded."""
        return self._read()

    def tokens_on(self, day: str | None = None) -> int:
        rows = self._read().get(day or today(), {})
        return sum(int(r.get("tokens_in", 0)) + int(r.get("tokens_out", 0)) for r in rows.values())
