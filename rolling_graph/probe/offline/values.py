"""Values with a shape (a file name, a date, a range of numbers, a slash command, a version, a
number of several digits) and the agent's statement a correction's value replaces.

A correction that names a value the agent's message does not hold, of a shape the agent's
message does hold, replaces the agent's statement of that shape: "the scans are named
Day_03.pdf" after "I read 20101102.pdf", "it should be Apr 3" after "the sheet is dated Apr 4",
"what I meant was a /compact message" after "the /commit message is written", "why is the UI
showing +582?" after "the total is 4617". Seen: "this explain is back to 19 instead of 26"
(entireio__cli), "Apr 4 should be Apr 3!" (saross__trap-extraction). Pure functions over text;
the shapes live once, in :data:`SHAPES`.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from rolling_graph.probe.offline.dates import MONTH, ORDINAL

# Each shape once; the order matters only where one shape holds another (a date holds numbers,
# a range holds numbers): a span taken by an earlier shape is not read again.
SHAPES: tuple[tuple[str, str], ...] = (
    (
        "date",
        rf"\b(?:{MONTH}\s+\d{{1,2}}{ORDINAL}?\b|\d{{1,2}}{ORDINAL}?[\s-]+(?:of\s+)?"
        rf"{MONTH}(?![a-z])|\d{{4}}-\d{{2}}-\d{{2}}\b)",
    ),
    ("file", r"(?<![\w./-])[\w-]{2,}(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,4}(?![\w-])"),
    ("version", r"(?<![\w.])v?\d+\.\d+(?:\.\d+)+(?![\w.])"),
    ("range", r"(?<![\w.-])\d+[-–]\d+(?![\w.-])"),
    ("command", r"(?<![\w./-])/[a-z][\w-]*(?![\w/.-])"),
    ("number", r"(?<![\w.,-])\d{2,}(?![\w.,-]?\d)"),
)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(rx, re.I)) for name, rx in SHAPES)


@lru_cache(maxsize=256)
def values(text: str) -> tuple[tuple[str, str], ...]:
    """(shape, value) of each value in ``text``, lower-cased, in the order of :data:`SHAPES`
    (a span read as one shape is not read as another)."""
    taken: list[tuple[int, int]] = []
    out: list[tuple[str, str]] = []
    for name, rx in _compiled():
        for m in rx.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            value = " ".join(m.group(0).lower().split())
            out.append((name, _day(value) if name == "date" else value))
    return tuple(out)


@lru_cache(maxsize=1)
def _day_month() -> re.Pattern[str]:
    return re.compile(
        rf"(\d{{1,2}}){ORDINAL}?[\s-]+(?:of\s+)?([a-z]{{3}})[a-z]*\.?"
        rf"|([a-z]{{3}})[a-z]*\.?\s+(\d{{1,2}}){ORDINAL}?"
    )


def _day(value: str) -> str:
    """ "4 April", "4th of april", "4-Apr", "Apr 4" → "apr 4": one spelling of a day."""
    m = _day_month().fullmatch(value)
    if not m:
        return value
    day, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    return f"{month} {int(day)}"


def replaced_statement(
    sentence: str, statements: list[str], before: str, *, named: bool = True
) -> str | None:
    """The agent's statement (of ``statements``, from its message ``before``) whose value a
    correction replaces. With ``named``: the latest one holding the old value when
    ``sentence`` names both the agent's value and its own of one shape ("Apr 4 should be Apr
    3"). Else: of the ones holding a value of a shape ``sentence`` names with a value
    ``before`` does not hold, the one whose value is likest such a value (:func:`_likeness`;
    the latest on a tie). ``None`` when there is none."""
    said_before = " ".join(before.lower().split())
    theirs_all = set(values(before))

    def said(shape: str, value: str) -> bool:
        return (shape, value) in theirs_all or value in said_before

    mine = values(sentence)
    new = {shape for shape, value in mine if not said(shape, value)}
    old = {value for shape, value in mine if shape in new and said(shape, value)}
    if named != bool(old) or not new:
        return None
    if old:
        held = (s for s in reversed(statements) if any(v in old for _, v in values(s)))
        return next(held, None)
    ours = [value for shape, value in mine if shape in new]
    best = max(
        (
            (max(_likeness(v, o) for o in ours), i)
            for i, s in enumerate(statements)
            for shape, v in values(s)
            if shape in new
        ),
        default=None,
    )
    return statements[best[1]] if best else None


def _likeness(theirs: str, ours: str) -> tuple[bool, int]:
    """How alike two values of one shape are: the same file extension, then the length of the
    common start ("report_v1.pdf" is more like "report_v2.pdf" than "notes.md" is)."""
    ext = theirs.rpartition(".")[2] == ours.rpartition(".")[2] and "." in theirs
    common = len(os.path.commonprefix([theirs, ours]))
    return ext, common
