"""Whole-word search for a literal without a regex per word.

``re.findall(rf"(?<![\\w.]){re.escape(w)}(?![\\w])", text)`` compiles one pattern per word; a
replay asks for thousands of words, which evicts the module's own patterns from ``re``'s small
cache, so they are compiled again and again. These give the same answers with ``str.find``:
a word character is what ``\\w`` matches on ``str`` (``isalnum()`` or ``_``).
"""

from __future__ import annotations

import re
from functools import lru_cache


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _spans(text: str, word: str, left: str, right: str) -> list[int]:
    """Start of each non-overlapping occurrence of ``word`` not preceded by a word character
    (nor one of ``left``) and not followed by one (nor one of ``right``), as ``re.finditer``
    finds them."""
    out: list[int] = []
    n, i = len(word), text.find(word)
    while i >= 0:
        j = i + n
        before = text[i - 1] if i else ""
        after = text[j] if j < len(text) else ""
        if (not before or not (_word(before) or before in left)) and (
            not after or not (_word(after) or after in right)
        ):
            out.append(i)
            i = text.find(word, j)
        else:
            i = text.find(word, i + 1)
    return out


@lru_cache(maxsize=1024)
def _pattern(word: str, left: str, right: str, ignore_case: bool) -> re.Pattern[str]:
    # Compiled once each: ``re``'s own cache is too small for a replay's words.
    pattern = rf"(?<![\w{re.escape(left)}]){re.escape(word)}(?![\w{re.escape(right)}])"
    return re.compile(pattern, re.I if ignore_case else 0)


# Letters that ``re.I`` matches to an ASCII letter and ``str.lower()`` does not turn into one
# alone: dotless i and long s (``re._casefix``), and the dotted capital I (two characters lower).
_FOLD_ODD = frozenset("\u0131\u017f\u0130")


@lru_cache(maxsize=8)
def _folded(text: str) -> tuple[str, bool]:
    """``text`` lower-cased, and whether lower-casing reads an ASCII word in it as ``re.I``
    does: a text without the odd letters (other letters lower to letters, the Kelvin sign to
    k). Kept for the last few texts: one text is searched for many words in a row."""
    return text.lower(), text.isascii() or _FOLD_ODD.isdisjoint(text)


def count_words(
    text: str, word: str, *, left: str = "", right: str = "", ignore_case: bool = False
) -> int:
    """How many times ``word`` occurs in ``text`` as a whole word (``left``, ``right``: characters
    that also may not precede or follow it, e.g. ``"."`` so that ``x.name`` does not count for
    ``name``)."""
    if not word:
        return len(_pattern(word, left, right, ignore_case).findall(text))
    if not ignore_case:
        return len(_spans(text, word, left, right))
    lowered, alike = _folded(text)
    if not (alike and word.isascii()):
        # Unicode case folding is the regex's to decide where str.lower() reads otherwise.
        return len(_pattern(word, left, right, True).findall(text))
    return len(_spans(lowered, word.lower(), left, right))


def says(text: str, word: str, *, left: str = "", right: str = "") -> bool:
    """Whether ``word`` occurs in ``text`` as a whole word (case as given; ``left``, ``right``
    as for :func:`count_words`)."""
    if not word:
        return bool(_pattern(word, left, right, False).search(text))
    return word in text and bool(_spans(text, word, left, right))
