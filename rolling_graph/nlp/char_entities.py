"""Entities read from a text's characters alone: the code patterns of :mod:`.entities`
(identifiers, modules, files, acronyms ...) and the title-case words that stand mid-sentence,
without a spaCy doc.

For texts read on every tool call or every probe and by no other rule: an edit, a tool digest
line, the window of prose a probe scans for recurring names. A doc's tokens cost about 10 ms
per 6,000 characters of code there, and code spans are exact where a doc's token expansion
drags in their neighbours. A person's sentences keep the pipeline (:func:`.pipeline.analyse`):
the act rules read its tokens.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.nlp.entities import _NOT_PROPER, LABEL_KIND, Entity, _norm, code_matches

# A word of letters (any script), not glued to a word, a dot-name or an apostrophe (but for a
# possessive: "Twilio's"); a title-case one ("Stripe", "Dégagé") may be a name. Only words that
# do not open with a lower-case ASCII letter can be title-case: ``re`` skips to the others (a
# class of ranges, A-Z or beyond ASCII, then the exact class, looking back at the character), and
# checks what stands before the word after its first letter.
_WORD = re.compile(
    "[A-Z\x80-\U0010ffff](?<=[^\\W\\d_a-z])"
    r"(?<![\w.'’-][^\W\d_a-z])[^\W\d_]+(?!\w|-|['’](?!s\b)|\.[^\W\d_])"
)
# The same in an ASCII text, where a letter that is not lower-case is A-Z: classes of ranges
# throughout, twice as fast.
_WORD_ASCII = re.compile(r"[A-Z](?<![\w.'’-][A-Z])[A-Za-z]+(?!\w|-|['’](?!s\b)|\.[A-Za-z])")
# What opens a sentence or an item before a capital: line start, bullets, quotes, brackets.
_OPENERS = " \t-*•>(\"'“"
_ENDS = ".!?:;…"


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _initial(text: str, start: int) -> bool:
    """True where a capital says nothing: at a sentence or line start, after a bullet, a
    quote, a colon, or a number."""
    j = start - 1
    while j >= 0 and text[j] in _OPENERS:
        j -= 1
    return j < 0 or text[j] == "\n" or text[j] in _ENDS or text[j].isdigit()


def _runs(text: str) -> list[list[re.Match[str]]]:
    """Runs of title-case words separated by one space."""
    runs: list[list[re.Match[str]]] = []
    for m in (_WORD_ASCII if text.isascii() else _WORD).finditer(text):
        if not m.group().istitle():
            continue
        if runs and text[runs[-1][-1].end() : m.start()] == " ":
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs


def _proper(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) of the title-case runs that name something, trimmed of stop words and
    of a lone sentence opener, outside the code matches."""
    stop = _stop_words()
    out: list[tuple[int, int]] = []
    # One mark per character a code match holds: a run's overlap is one C-speed find, where a
    # scan of every match per run grew with the square of a long message's names.
    mask = bytearray(len(text) + 1)
    for s, e in taken:
        mask[s:e] = b"\x01" * (e - s)
    for run in _runs(text):
        words = list(run)
        while words and (
            words[0].group().lower() in _NOT_PROPER
            or words[0].group().lower() in stop
            or (_initial(text, words[0].start()) and len(words) == 1)
        ):
            words = words[1:]
        if not words or len(words[0].group()) < 2:
            continue
        start, end = words[0].start(), words[-1].end()
        if mask.find(1, start, end) >= 0:
            continue
        out.append((start, end))
    return out


def entity_spans(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, label, text) of every entity occurrence in ``text``, in text order."""
    found = [(s, e, lab, t) for lab, s, e, t in code_matches(text)]
    found += [(s, e, "PROPER", text[s:e]) for s, e in _proper(text, [f[:2] for f in found])]
    found.sort()
    return found


def text_entities(text: str, spans: list[tuple[int, int, str, str]] | None = None) -> list[Entity]:
    """:class:`Entity` items of ``text`` (or of its ``spans`` from :func:`entity_spans`) in
    text order, deduplicated by ``norm`` and kind, as :func:`.entities.entities_from_doc`
    reads a doc's entities."""
    out: list[Entity] = []
    seen: set[tuple[str, str]] = set()
    for start, end, label, raw in entity_spans(text) if spans is None else spans:
        name = raw.strip().strip("`")
        norm, kind = _norm(name), LABEL_KIND[label]
        if not norm or (norm, kind) in seen:
            continue
        seen.add((norm, kind))
        out.append(Entity(name, norm, label, kind, start, end))
    return out
