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
