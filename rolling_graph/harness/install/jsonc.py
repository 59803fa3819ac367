"""JSON with comments (``//``, ``/* */``) and trailing commas, as Gemini CLI reads its
``settings.json``; and JSON errors that name the file and line. Standard library only."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# A string, a comment, or a comma before a closing bracket; strings are matched first so that
# "//" or "," inside a string stays as it is.
_TOKENS = re.compile(
    r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*(?:(?://[^\n]*|/\*.*?\*/)\s*)*[}\]])',
    re.DOTALL,
)


def _blank(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.startswith('"'):
        return token
    # Keep the newlines so that a decoder's line numbers still point into the file.
    return re.sub(r"[^\n]", " ", token)


def strip(text: str) -> str:
    """``text`` with comments and trailing commas blanked out (same lines and columns)."""
    return _TOKENS.sub(_blank, text)


def has_comments(text: str) -> bool:
    return strip(text) != text


def loads(text: str, path: Path, *, comments: bool = False) -> Any:
    """Parse ``text`` read from ``path``; a syntax error becomes a ValueError naming the file,
    line and column."""
    try:
        return json.loads(strip(text) if comments else text)
    except json.JSONDecodeError as err:
        hint = "" if comments or not has_comments(text) else " (this file may not hold comments)"
        raise ValueError(
            f"{path}: line {err.lineno}, column {err.colno}: {err.msg}{hint}; "
            "repair that line (or move the file aside)"
        ) from None


# ------------------------------------------------------------------------------- writing back


def _members(stripped: str) -> tuple[dict[str, tuple[int, int]], int] | None:
    """Top-level members of an object: key → (value start, value end), and the offset just
    after the opening brace; None when the text is not one object."""
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        while i < len(stripped) and stripped[i].isspace():
            i += 1
        return i

    i = skip(0)
    if stripped[i : i + 1] != "{":
        return None
    opened = i + 1
    spans: dict[str, tuple[int, int]] = {}
    i = skip(opened)
    while stripped[i : i + 1] != "}":
        key, i = decoder.raw_decode(stripped, i)
        i = skip(i)
        if not isinstance(key, str) or stripped[i : i + 1] != ":":
            return None
        start = skip(i + 1)
        _value, i = decoder.raw_decode(stripped, start)
        spans[key] = (start, i)
        i = skip(i)
        if stripped[i : i + 1] == ",":
            i = skip(i + 1)
        elif stripped[i : i + 1] != "}":
            return None
    return spans, opened


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")


def update(text: str, data: dict[str, Any]) -> str | None:
    """``text`` (JSON with comments) changed to hold ``data``, rewriting only the top-level
    members whose values changed and adding new ones after the last: comments and layout
    elsewhere stay. None when that cannot be done safely (the caller then writes plain JSON;
    the backup keeps the original)."""
    try:
        old = json.loads(strip(text))
        found = _members(strip(text))
    except ValueError:
        return None
    if not isinstance(old, dict) or found is None or set(old) - set(data):
        return None  # removing members is left to plain JSON (uninstall restores the backup)
    spans, opened = found
    added = [k for k in data if k not in old]
    out = text
    if added:  # after the last member's value (its comma or comment stays after ours)
        at = max((end for _s, end in spans.values()), default=opened)
        body = ",\n".join(f"  {json.dumps(k)}: {_dump(data[k])}" for k in added)
        out = out[:at] + ("," if spans else "") + "\n" + body + ("" if spans else "\n") + out[at:]
    # Replace from the end backwards, so that earlier offsets stay valid.
    for key in sorted((k for k in old if old[k] != data[k]), key=lambda k: -spans[k][0]):
        start, end = spans[key]
        out = out[:start] + _dump(data[key]) + out[end:]
    try:
        return out if json.loads(strip(out)) == data else None
    except ValueError:
        return None
