"""What the worker reports about itself (``worker status``, doctor, the idle rule): its version,
resident memory, probes queued and in flight, and percentiles of its hook handling times.
Standard library only; the probe runner is read duck-typed, not imported."""

from __future__ import annotations

import logging
import os
from typing import Any

from rolling_graph import __version__

log = logging.getLogger("rolling_graph.transport")


def worker_version() -> str:
    """The version this worker reports; ``ROLLING_GRAPH_WORKER_VERSION`` overrides it (tests)."""
    return os.environ.get("ROLLING_GRAPH_WORKER_VERSION") or __version__


def rss_bytes() -> int | None:
    """Resident memory of this process (VmRSS), or None off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _count(value: Any) -> int:
    if callable(value):
        value = value()
    if value is None:
        return 0
    if isinstance(value, bool | int | float):
        return int(value)
    try:
        return len(value)
    except TypeError:
        return 0


def probe_counts(engine: Any) -> dict[str, int] | None:
    """Queued/in-flight probes from the engine's probe runner, if it has one (duck-typed)."""
    components = getattr(engine, "components", {}) if engine is not None else {}
    # "probe_runner" is rolling_graph.probe.runner.COMPONENT (not imported: keep this module light).
    comp = components.get("probe_runner") or components.get("probe")
    if comp is None:
        return None
    try:
        for name in ("counts", "stats", "status"):
            fn = getattr(comp, name, None)
            if callable(fn):
                data = fn()
                if isinstance(data, dict):
                    return {
                        "queued": _count(data.get("queued", data.get("pending", 0))),
                        "in_flight": _count(data.get("in_flight", data.get("running", 0))),
                    }
        return {
            "queued": _count(getattr(comp, "queued", getattr(comp, "pending", 0))),
            "in_flight": _count(getattr(comp, "in_flight", getattr(comp, "running", 0))),
        }
    except Exception:  # noqa: BLE001 - a status line must not take the worker down
        log.exception("probe runner status failed")
        return None


def percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    values.sort()

    def pick(q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    return {"n": len(values), "p50": pick(0.5), "p95": pick(0.95), "max": values[-1]}
