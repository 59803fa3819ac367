"""A literal every match of a pattern contains, so that a text without it is never searched.

Most texts redaction sees are short and hold no secret; what they cost is the ~80 pattern
searches started on each, not the searching. ``needle in text`` (C, no match object) answers
for most of them: a pattern's top level is a sequence every match goes through, so a run of
consecutive literal characters there is in every match. Case-insensitive patterns have none.
"""

from __future__ import annotations

import re

try:  # Python 3.11+: the parser moved under re
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_LITERAL = _sre_parse.LITERAL


def needle(rx: re.Pattern[str]) -> str:
    """The longest run of literal characters at the top level of ``rx`` ("" when none)."""
    if rx.flags & re.IGNORECASE:
        return ""
    return literal_run(rx.pattern, rx.flags)


def literal_run(pattern: str, flags: int = 0) -> str:
    """The longest run of literal characters at the top level of ``pattern`` as written.

    For a pattern compiled case-blind, every match holds the run in some case: a caller that
    searches lower-cased text for it writes the pattern in lower case (as the cue lists do).
    """
    best, run = "", []
    for op, arg in _sre_parse.parse(pattern, flags & ~re.IGNORECASE):
        if op is _LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return max(best, "".join(run), key=len)
