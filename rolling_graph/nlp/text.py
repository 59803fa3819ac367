"""Plain-text facts shared by the readers of prose: calendar words, whether a word opens a
sentence (a capital there says nothing about a name), the questions of a text, past forms.
Standard library only."""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.nlp import lexicon

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: weekday and month names: dates are facts of a task or a person, never names on their own
CALENDAR_WORDS = frozenset(MONTHS + DAYS)


def sentence_initial(text: str, start: int, lead: str) -> bool:
    """Whether the word at ``start`` opens a line (after any of the markup characters in
    ``lead``: bullets, headings, quotes), or a sentence."""
    before = text[max(0, start - 80) : start]
    line = before.rsplit("\n", 1)[-1]
    if (start < 80 or "\n" in before) and not line.strip(lead):
        return True
    tail = before.rstrip().rstrip("*_`\"'(")
    return not tail or tail[-1] in ".!?:|"


# The agent's mark on the option it recommends, in the language it wrote the options in
# ("Webhook URL (Recommended)" in AlexandreVassard__will-it-rain, "两步式（推荐）" in
# Aley3567__cutesticky): it says who proposed the option, not what was chosen.
_RECOMMENDED_MARK = re.compile(r"\s*[(（](?:recommended|推荐)[)）]", re.I)


def without_recommendation(option: str) -> str:
    """An offered option's text without the agent's "(Recommended)" mark."""
    return _RECOMMENDED_MARK.sub("", option)


_ENDED = (".", "?", "!", "…")


def closed(text: str) -> str:
    """``text`` ended as a sentence: a full stop, unless it ends with one already (a line whose
    last item is a question, "How's the health check doing?", takes no "." after it)."""
    return text if text.endswith(_ENDED) else text + "."


# A question runs from a sentence's end (or the text's start) to its "?". Anchored there, the
# search is one pass; "[^.!?\n]*\?" alone finds the same runs but reads each sentence again
# from every one of its characters (a long message with no question is quadratic).
_QUESTION = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*\?")


def questions_in(text: str) -> list[re.Match[str]]:
    """The questions of ``text``, in order: each stretch after a ".", "!", "?" or line end (or
    from the start) that ends in "?", as the unanchored pattern finds them."""
    return list(_QUESTION.finditer(text))


@lru_cache(maxsize=1)
def past_form() -> str:
    """A past form as a regex, unanchored and case as written: a word in "-ed" ("created",
    "re-added"; not "-eed": "proceed", "speed") or one of the lexicon class ``past_irregular``
    ("built", "rewritten")."""
    return rf"(?:(?:[A-Za-z]+-)?[A-Za-z]{{2,}}(?<![eE])[eE][dD]|{lexicon.alternation('past_irregular')})"


@lru_cache(maxsize=1)
def _past_word() -> re.Pattern[str]:
    return re.compile(past_form(), re.IGNORECASE)


def is_past_form(word: str) -> bool:
    """``word`` is a past form (:func:`past_form`), not a verb of its own that ends like one
    ("embed", a work verb)."""
    return bool(_past_word().fullmatch(word)) and word.lower() not in lexicon.words("work_verbs")
