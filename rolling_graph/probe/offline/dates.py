"""When, in the person's words: dates as written ("Fri 14 March", "3rd of April",
"2026-03-14", "tomorrow", "end of sprint"), a deadline ("by Friday", "due 3rd of April") and a
day something personal happens on ("for Tuesday afternoon"). Read by the prompt rules (a task's
due date, a person waiting on work, an aside's day), the summary harvest and the values a
correction names (:mod:`rolling_graph.probe.offline.values`)."""

from __future__ import annotations

import re

from rolling_graph.nlp.text import DAYS, MONTHS

# A month, a weekday and a day's ordinal suffix as written in dates, from the names' first three
# letters (values.py reads dates with them too).
MONTH = "(?:" + "|".join(sorted({m[:3] for m in MONTHS} | {"sept"})) + r")[a-z]*\.?"
_DAY = "(?:" + "|".join(sorted({d[:3] for d in DAYS})) + r")[a-z]*\.?"
ORDINAL = r"(?:st|nd|rd|th)"  # "3rd", "21st"
_DATE = (
    rf"(?:(?:{_DAY},?\s+)?(?:{MONTH}\s+\d{{1,2}}{ORDINAL}?|\d{{1,2}}{ORDINAL}?\s+(?:of\s+)?{MONTH})"
    rf"|{_DAY}(?:,?\s+(?:{MONTH}\s+\d{{1,2}}{ORDINAL}?|\d{{1,2}}{ORDINAL}?\s+(?:of\s+)?{MONTH}))?"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|tomorrow|tonight|today|eod|eow|end of (?:the )?(?:day|week|month|sprint)"
    rf"|next (?:week|month|sprint|{_DAY})|this (?:week|{_DAY})|q[1-4])"
)
_DEADLINE = re.compile(
    rf"\b(?:by|before|due(?: on| by)?|no later than|deadline(?: is)?:?|needs? (?:it|this|that) by)\s+"
    rf"(?P<date>{_DATE})\b",
    re.I,
)


def deadline(sentence: str) -> str | None:
    """A deadline as "Fri 14 March" / "tomorrow" / "2026-03-14", or ``None``."""
    m = _DEADLINE.search(sentence)
    if not m:
        return None
    raw = m.group("date").strip()
    low = raw.lower()
    day = next((d[:3].title() for d in DAYS if re.search(rf"\b{d[:3]}", low)), "")
    month = next((mo.title() for mo in MONTHS if re.search(rf"\b{mo[:3]}", low)), "")
    num = re.search(rf"\b(\d{{1,2}}){ORDINAL}?\b", low)
    if month and num and not re.match(r"\d{4}-", low):
        return " ".join(x for x in (day, num.group(1), month) if x)
    return raw


_DAY_NAMED = re.compile(
    rf"\b(?:on|for|to|this|next|until|till)\s+(?P<day>{_DAY}(?:\s+(?:morning|afternoon|evening|night))?)\b",
    re.I,
)


def day_named(sentence: str) -> str | None:
    """ "for Tuesday afternoon", "on Friday": when something personal happens."""
    m = _DAY_NAMED.search(sentence)
    return m.group("day") if m else None
