"""Incremental transcript reading for the hook: what the agent did since the last event.

The engine calls :func:`feed` before the plugin hooks run; the offset is remembered in the
session's ``counters`` state (``transcript_offset``, written by the engine with the step
counter), so each hook call reads only the lines appended since the previous one. The events
go to ``ctx.transcript_events`` (plain dicts: ``type`` = the event class name, text, tool name
and input) for the probe plugin.

The transcript is hook input like any other: only a regular file is read (a FIFO or a device
would hang or never end), at most ``MAX_READ`` bytes per event (a transcript that grew by more
is skipped ahead to its last ``MAX_READ`` bytes), and what is read is scrubbed here, at the
entry (``rolling_graph.privacy.boundary``), before anything else sees it.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import asdict
from typing import Any

log = logging.getLogger("rolling_graph.transcript")

MAX_EVENTS = 200
MAX_TEXT = 2000
MAX_SUMMARY_TEXT = 60_000  # a compaction summary is read whole: the addendum skips what it says
MAX_READ = 8 * 1024 * 1024
OFFSET = "transcript_offset"
LEGACY_STATE = "gate"  # where sessions begun before the engine read transcripts kept it


def event_kind(ev: Any) -> str:
    """The class name of a transcript event, read live (a dict, ``type``) or in replay (the
    event object)."""
    return str(ev.get("type", "")) if isinstance(ev, dict) else type(ev).__name__


def event_field(ev: Any, key: str) -> Any:
    """A field of a transcript event, live (dict) or in replay (object); None when absent."""
    return ev.get(key) if isinstance(ev, dict) else getattr(ev, key, None)


def _summary(ev: Any) -> dict[str, Any]:
    data = asdict(ev) if hasattr(ev, "__dataclass_fields__") else {"value": str(ev)}
    out: dict[str, Any] = {"type": type(ev).__name__}
    cap = MAX_SUMMARY_TEXT if out["type"] == "CompactSummary" else MAX_TEXT
    for key, value in data.items():
        if key in ("timestamp",):
            out[key] = value.isoformat() if value is not None else None
        elif isinstance(value, str):
            out[key] = value[:cap]
        elif isinstance(value, dict):
            out[key] = {
                k: (v[:300] if isinstance(v, str) else v) for k, v in list(value.items())[:20]
            }
        elif isinstance(value, (int, float, bool)) or value is None:
            out[key] = value
    return out


def _usable(path: str, offset: int) -> int | None:
    """The offset to read from, or None when ``path`` must not be read now (one log line)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # not written yet (or an impossible name): nothing to read
    if not stat.S_ISREG(st.st_mode):
        log.warning("transcript_path %.200s is not a regular file; not read", path)
        return None
    if st.st_size - offset <= MAX_READ:
        return offset
    # Grown by more than we read per event: skip to the first line start in the last MAX_READ.
    try:
        with open(path, "rb") as fh:
            fh.seek(st.st_size - MAX_READ)
            head = fh.read(1 << 20)
    except OSError:
        return None
    cut = head.find(b"\n")
    log.warning(
        "transcript %.200s grew by %d bytes since the last event; reading its last %d bytes",
        path,
        st.st_size - offset,
        MAX_READ,
    )
    return None if cut < 0 else st.st_size - MAX_READ + cut + 1


def read_since(path: str | None, offset: int) -> tuple[list[dict[str, Any]], int]:
    """(scrubbed event summaries since ``offset``, new offset); never raises."""
    if not path:
        return [], offset
    start = _usable(path, offset)
    if start is None:
        return [], offset
    offset = start
    try:
        from rolling_graph.transcripts import IncrementalReader

        inc = IncrementalReader(path).read(offset)
    except Exception as err:  # noqa: BLE001 - a bad transcript must not break the hook
        log.warning("could not read transcript %s: %s", path, err)
        return [], offset
    from rolling_graph.privacy.boundary import scrub_record

    # Scrubbed before _summary cuts texts: a secret cut in half no longer has its shape.
    events = [_summary(scrub_record(e)) for e in inc.events[-MAX_EVENTS:]]
    return events, int(inc.offset)


def _offset(store: Any, session_id: str, counters: dict[str, Any]) -> int:
    offset = counters.get(OFFSET)
    if offset is None:
        legacy = store.read_state(session_id, LEGACY_STATE, {})
        offset = legacy.get(OFFSET) if isinstance(legacy, dict) else None
    ok = isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0
    return offset if ok else 0


def feed(store: Any, event: Any, counters: dict[str, Any], *, replay: bool) -> list[Any]:
    """The transcript events since the session's previous hook event; never raises.

    Replay hands them over on the event (reading ``transcript_path`` would read the future);
    live, they are read from ``transcript_path`` since ``counters["transcript_offset"]``, which
    is moved on (the caller saves ``counters``).
    """
    if replay:
        return list(event.context_events)
    try:
        offset = _offset(store, event.session_id, counters)
        events, counters[OFFSET] = read_since(event.transcript_path, offset)
    except Exception as err:  # noqa: BLE001 - a bad state file must not break the hook
        log.warning("transcript feed failed: %s", err)
        return []
    return events
