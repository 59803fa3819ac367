"""Honest health for ``worker status`` and ``doctor``: what is wrong with a running worker and
how to fix it. Standard library only (the worker imports it before its engine is up).

Two problems a running worker can have while its socket answers fine:

- its engine failed to load (typically a bad value in the config file): hooks get nothing;
  the worker retries by itself as soon as the config file changes (``config_stamp``);
- its probe backend keeps failing (no API key, no ``claude`` binary, a network error): the
  graph then grows only from what needs no probe.
"""

from __future__ import annotations

import os
from typing import Any

PROBE_FAILING_AFTER = 3  # failed backend calls in a row before status calls it failing


def config_stamp() -> tuple[int, int] | None:
    """(mtime_ns, size) of the config file, or None when there is none."""
    from rolling_graph.paths import config_file

    try:
        st = os.stat(config_file())
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def probe_health(engine: Any) -> dict[str, Any] | None:
    """Backend failures in a row and the last error, from the engine's probe runner."""
    comp = (getattr(engine, "components", None) or {}).get("probe_runner")
    if comp is None:
        return None
    return {
        "failures_in_row": int(getattr(comp, "backend_failures", 0) or 0),
        "last_error": getattr(comp, "last_backend_error", None),
        "backend": getattr(getattr(comp, "_backend", None), "name", None),
    }


def problems(status: dict[str, Any]) -> list[tuple[str, str]]:
    """(what is wrong, how to fix it) for a worker status reply; empty when healthy."""
    from rolling_graph.paths import config_file, log_file

    out: list[tuple[str, str]] = []
    if status.get("engine_error"):
        out.append(
            (
                f"the worker runs but its engine failed to load: {status['engine_error']}",
                f"fix the setting in {config_file()} (or the ROLLING_GRAPH_* variable); the "
                "worker reloads the file by itself when it changes; details in " + str(log_file()),
            )
        )
    health = status.get("probe_health") or {}
    if int(health.get("failures_in_row") or 0) >= PROBE_FAILING_AFTER:
        backend = health.get("backend") or "the probe backend"
        out.append(
            (
                f"{backend} failed {health['failures_in_row']} times in a row "
                f"(last: {str(health.get('last_error'))[:200]})",
                "check ROLLING_GRAPH_PROBE and its credentials (ANTHROPIC_API_KEY, the claude "
                "binary), or set ROLLING_GRAPH_PROBE=offline; then: rolling-graph worker stop",
            )
        )
    return out
