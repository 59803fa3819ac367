"""A pattern searched only inside the runs of non-space characters that hold a mark it needs.

``re`` tries a pattern that opens with a lookbehind (a boundary check) at every position of a
text. Where every match of a pattern holds one of a few characters (a "." or a "/" for paths,
file names, dotted names and versions) and no space, its matches all lie inside the runs of
non-space characters that hold one, and most words of prose hold neither: searching those runs
alone finds the same matches several times faster.

The same, exactly, for a pattern that looks past a run's end only with checks that a space and
the end of the text both pass or both fail (a word boundary, a negative lookahead for non-space
characters): a search bounded at the run's end sees the text's end where the unbounded search
sees a space, and its lookbehinds see the text before the run as the unbounded search does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

#: The mark of paths, file names, dotted names and versions: a "." or a "/".
DOTTED = r"[./]"


@lru_cache(maxsize=8)
def holding(marks: str) -> re.Pattern[str]:
    """The runs of non-space characters that hold a match of ``marks`` (a regex). Marks that
    are a class of characters ("[./]") are read up to the run's first one without going back:
    the same runs, in one pass over each."""
    inner = marks[1:-1]
    if len(marks) > 2 and marks[0] + marks[-1] == "[]" and not {"^", "[", "]"} & set(inner):
        return re.compile(rf"(?<!\S)[^\s{inner}]*+{marks}\S*+")
    return re.compile(rf"(?<!\S)\S*?(?:{marks})\S*")


def spans(text: str, marks: str) -> list[tuple[int, int]]:
    """(start, end) of the runs of ``text`` that hold a match of ``marks``, in order."""
    return [m.span() for m in holding(marks).finditer(text)]


def finditer(
    pattern: re.Pattern[str], text: str, runs: list[tuple[int, int]]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern whose every match lies inside one of ``runs``
    (see the module's note for what that asks of it), in text order."""
    for start, end in runs:
        yield from pattern.finditer(text, start, end)
