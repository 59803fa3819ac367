"""The replay's clock: hook events carry the transcript's time, never the time of day, so that
replaying the same files gives the same graphs whenever it runs (warm weights decay with it)."""

from __future__ import annotations

from typing import Any

from rolling_graph.transcripts import Transcript


def event_time(ev: Any) -> float | None:
    ts = getattr(ev, "timestamp", None)
    return ts.timestamp() if ts is not None else None


def replay_clocks(tr: Transcript, fallback: float | None) -> tuple[float | None, float | None]:
    """The start time, and the end time when no event is stamped: the events' time, else the
    lines' (a file of harness lines only has no event), else ``fallback`` (the replay's previous
    file); only an unstamped transcript replayed first leaves the hooks the wall clock."""
    first = next((t for t in (event_time(e) for e in tr.events) if t is not None), None)
    if first is not None:
        return first, None
    line_first, line_last = (t.timestamp() if t else None for t in tr.stats.time_span)
    return line_first or fallback, line_last or line_first or fallback
