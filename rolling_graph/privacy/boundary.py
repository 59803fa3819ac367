"""The privacy boundary: what a hook event may carry past the entry, and which projects are off.

Every text of an event (prompt, tool input and response, transcript text read for it) goes
through :func:`scrub` exactly once, where the event is made (``Engine.handle`` calls
:func:`sanitize_event`; the live transcript feed scrubs what it reads), before the gate,
buffers, observers, audit log, graph, log file or any probe backend see it:

1. ``<private>…</private>`` spans are dropped whole (an unclosed ``<private>`` runs to the end
   of the text), leaving ``[private]``;
2. secrets are replaced by ``[REDACTED:<kind>]`` (:mod:`rolling_graph.privacy.redact.secrets`).

A project opts out with a ``.rolling-graph-ignore`` file at (or above) its working directory,
or by being under one of the ``ignore_paths`` of the configuration: the hooks then do nothing.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rolling_graph.privacy.redact.secrets import redact, redact_obj

IGNORE_FILE = ".rolling-graph-ignore"
PRIVATE_MARK = "[private]"
_PRIVATE_RE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_KEEP_RAW = ("hook_event_name", "source", "trigger", "reason", "tool_name")
# Tool inputs and outputs (a file read, a command's output) can be megabytes; what downstream
# code uses of them is short (digests, error types, identifiers), so each string is cut first,
# at a space so that no token is cut in two and kept half unredacted.
MAX_TOOL_TEXT = 256 * 1024
TRUNCATED = " …[truncated]"


def cap(text: str, limit: int = MAX_TOOL_TEXT) -> str:
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", limit - 4096, limit), text.rfind("\n", limit - 4096, limit))
    return text[: cut if cut > 0 else limit] + TRUNCATED


def strip_private(text: str) -> str:
    if "<" not in text or "private" not in text.lower():
        return text
    return _PRIVATE_RE.sub(PRIVATE_MARK, text)


def scrub(text: str) -> str:
    """Private spans out, then secrets out."""
    return redact(strip_private(text))


def _strip_obj(obj: Any, limit: int | None) -> Any:
    if isinstance(obj, str):
        return strip_private(cap(obj, limit) if limit else obj)
    if isinstance(obj, dict):
        return {k: _strip_obj(v, limit) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_strip_obj(v, limit) for v in obj)
    return obj


def scrub_obj(obj: Any, limit: int | None = MAX_TOOL_TEXT) -> Any:
    """A copy of a JSON-like structure with every string cut to ``limit`` and scrubbed
    (strings under secret-named keys whole)."""
    return redact_obj(_strip_obj(obj, limit))


def scrub_record(ev: Any) -> Any:
    """Transcript events (frozen dataclasses in replay, dicts live): every text field scrubbed."""
    if isinstance(ev, dict):
        return scrub_obj(ev)
    if dataclasses.is_dataclass(ev) and not isinstance(ev, type):
        changes = {
            f.name: scrub_obj(getattr(ev, f.name))
            for f in dataclasses.fields(ev)
            if isinstance(getattr(ev, f.name), str | dict | list)
        }
        return dataclasses.replace(ev, **changes) if changes else ev
    return ev


def sanitize_event(event: Any) -> Any:
    """The event with every text scrubbed and the raw payload reduced to its routing fields.

    Returns a new event (the caller's object is left as it was) marked ``redacted``, so that
    a second call is a no-op."""
    if getattr(event, "redacted", False):
        return event
    raw = event.raw if isinstance(event.raw, dict) else {}
    return dataclasses.replace(
        event,
        prompt=scrub(event.prompt) if isinstance(event.prompt, str) else event.prompt,
        tool_input=scrub_obj(event.tool_input) if event.tool_input else event.tool_input,
        tool_response=scrub_obj(event.tool_response),
        context_events=[scrub_record(e) for e in event.context_events],
        raw={k: raw[k] for k in _KEEP_RAW if isinstance(raw.get(k), str)},
        redacted=True,
    )


def opted_out(cwd: str | None, ignore_paths: Iterable[str | Path] = ()) -> bool:
    """True when ``cwd`` lies in a project that opted out of rolling-graph.

    Either a configured path is ``cwd`` or one of its parents, or a ``.rolling-graph-ignore``
    file sits in ``cwd`` or a parent directory (up to the file-system root)."""
    if not cwd or not os.path.isabs(cwd):
        return False
    here = Path(os.path.normpath(cwd))
    for p in ignore_paths:
        base = Path(os.path.normpath(os.path.expanduser(str(p))))
        if here == base or base in here.parents:
            return True
    for d in (here, *here.parents):
        try:
            if os.path.isfile(d / IGNORE_FILE):
                return True
        except OSError:
            return False
    return False
