"""Incremental transcript reading for the hook: what the agent did since the last event.

The offset is remembered in the gate state (``transcript_offset``), so each hook call reads only
the lines appended since the previous one. The events go to ``ctx.notes["transcript_events"]``
(plain dicts: ``type`` = the event class name, text, tool name and input) for the probe plugin.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

log = logging.getLogger("rolling_graph.transcript")

MAX_EVENTS = 200
MAX_TEXT = 2000


def _summary(ev: Any) -> dict[str, Any]:
    data = asdict(ev) if hasattr(ev, "__dataclass_fields__") else {"value": str(ev)}
    out: dict[str, Any] = {"type": type(ev).__name__}
    for key, value in data.items():
        if key in ("timestamp",):
            out[key] = value.isoformat() if value is not None else None
        elif isinstance(value, str):
            out[key] = value[:MAX_TEXT]
        elif isinstance(value, dict):
            out[key] = {
                k: (v[:300] if isinstance(v, str) else v) for k, v in list(value.items())[:20]
            }
        elif isinstance(value, (int, float, bool)) or value is None:
            out[key] = value
    return out


def read_since(path: str | None, offset: int) -> tuple[list[dict[str, Any]], int]:
    """(event summaries since ``offset``, new offset); never raises."""
    if not path:
        return [], offset
    try:
        from rolling_graph.transcripts import IncrementalReader

        inc = IncrementalReader(path).read(offset)
    except Exception as err:  # noqa: BLE001 - a bad transcript must not break the hook
        log.warning("could not read transcript %s: %s", path, err)
        return [], offset
    events = [_summary(e) for e in inc.events][-MAX_EVENTS:]
    return events, int(inc.offset)
