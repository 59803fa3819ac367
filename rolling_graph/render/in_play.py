"""What was in play just before a cut: the names the last few turns used, newest first.

After a compaction the agent has lost the conversation; what it was doing a moment ago (the
files, identifiers and proper names of the last exchange) is the best single predictor of what
it needs next, and the graph may not hold all of it yet (the probe is selective). This module
reads those names from the last turns' text deterministically; the renderer lists the ones the
block does not already show. Plain words, sentence-initial capitals, numbers and redaction
markers are left out.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import accumulate
from typing import Any

from rolling_graph.nlp import runs
from rolling_graph.nlp.text import CALENDAR_WORDS, sentence_initial

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
_PATH = re.compile(r"(?<![\w.~/-])(?:[~.]?/)?(?:[\w.@-]+/)+[\w.@-]+|\b[\w-]+\.[a-z][a-z0-9]{0,5}\b")
_CODE = re.compile(r"`([^`\n]{3,60})`")
_IDENT = re.compile(
    # Possessive runs ("*+", "++"): what follows a run is never a character it gave back, so
    # going back cannot help (same matches, half the time over prose's plain words).
    r"\b[A-Za-z_][A-Za-z0-9]*+(?:_[A-Za-z0-9]++)+\b"  # snake_case, SCREAMING_CASE
    r"|\b[a-z]++(?:[A-Z][a-z0-9]*+)+\b"  # camelCase
    r"|\b[A-Z][a-z0-9]++(?:[A-Z][a-z0-9]*+)+\b"  # PascalCase
    r"|\b[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)+\(?"  # dotted names (module.attr, obj.method)
)
# The boundary is checked after the capital (``re`` skips to capitals; same matches as
# ``\b[A-Z]…``).
_CAP = re.compile(r"[A-Z](?<!\w[A-Z])[A-Za-z0-9]{2,}\b")
_LETTER = re.compile(r"[A-Za-z]")
_HEXISH = re.compile(r"[0-9a-fA-F._-]{8,}")  # hashes, ids, versions: not names to recall
_LEAD = " \t-*#>|0123456789.)(`\"'_"
#: words that open clauses mid-sentence in any text; never names
_PLAIN = frozenset(
    [
        "the",
        "this",
        "that",
        "these",
        "those",
        "then",
        "there",
        "here",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "from",
        "into",
        "and",
        "but",
        "for",
        "not",
        "you",
        "your",
        "our",
        "all",
        "any",
        "each",
        "some",
        "also",
        "just",
        "now",
        "yes",
        "okay",
        "note",
        "step",
    ]
)
# Latin abbreviations read as paths ("e.g.") or dotted names ("e.g"): never names
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "et al"})


def last_parts(path: str) -> str:
    """A path as its last two parts: enough to tell it apart, never a home directory."""
    parts = [p for p in path.rstrip("/").split("/") if p not in ("", ".", "~")]
    return "/".join(parts[-2:])


def names_in(text: str) -> list[tuple[int, str]]:
    """(position, name) for the names in ``text``: paths, code spans and identifiers, and
    capitalised words that do not open a sentence. A path is one name: the words inside it are
    not named again."""
    return list(_names_in(text))


@lru_cache(maxsize=256)
def _names_in(text: str) -> tuple[tuple[int, str], ...]:
    # Kept per text: the buffered turns are read again on every block after a lost context.
    if "://" in text:  # every URL holds it; most texts have none
        text = _URL.sub(" ", text)
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return not any(a <= start and end <= b for a, b in taken)

    # A path or file name holds a "." or a "/" and no space: only the runs holding one are
    # searched (rolling_graph.nlp.runs).
    for m in runs.finditer(_PATH, text, runs.spans(text, runs.DOTTED)):
        name = last_parts(m.group())
        if len(name) >= 3 and name.lower() not in _ABBREVIATIONS and not name[0].isdigit():
            found.append((m.start(), name))
            taken.append(m.span())
    for m in _CODE.finditer(text):
        span = m.group(1).strip()
        if " " not in span and len(span) >= 3 and free(*m.span(1)):
            found.append((m.start(1), span))
            taken.append(m.span(1))
    # Identifiers and capitals are many: whether a path or code span holds one is a bisection
    # over the spans by start, with the furthest end reached so far.
    taken.sort()
    starts = [a for a, _ in taken]
    reach = list(accumulate((b for _, b in taken), max))

    def outside(start: int, end: int) -> bool:
        i = bisect_right(starts, start) - 1
        return i < 0 or reach[i] < end

    for m in _IDENT.finditer(text):
        if outside(*m.span()):
            found.append((m.start(), m.group().rstrip("(.")))
    for m in _CAP.finditer(text):
        word = m.group()
        if (
            word.lower() not in _PLAIN
            and outside(*m.span())
            and not sentence_initial(text, m.start(), _LEAD)
        ):
            found.append((m.start(), word))
    return tuple(
        (pos, name)
        for pos, name in found
        if "REDACTED" not in name
        and _LETTER.search(name)
        and not _HEXISH.fullmatch(name)
        and name.lower() not in CALENDAR_WORDS
        and name.lower().rstrip(".") not in _ABBREVIATIONS
    )


def _newest_first(texts: Iterable[str]) -> list[str]:
    """Names of ``texts`` (given oldest first), the latest occurrence first."""
    out: list[str] = []
    for text in reversed(list(texts)):
        out.extend(_latest_first(text))
    return out


@lru_cache(maxsize=256)
def _latest_first(text: str) -> tuple[str, ...]:
    # A buffered turn's names are ordered again for every probe and every block that reads it.
    return tuple(name for _, name in sorted(_names_in(text), key=lambda pn: -pn[0]))


MAX_INPUT = 2_000  # characters of one tool input read for names (a Write can be huge)
MAX_INPUT_NAMES = 40


def input_names(tool_input: Mapping[str, Any]) -> list[str]:
    """The names a tool call's input uses (its text fields: command, path, code), in order."""
    text = " ".join(str(v) for v in tool_input.values() if isinstance(v, str | int | float))
    names = [name for _, name in sorted(names_in(text[:MAX_INPUT]))]
    return list(dict.fromkeys(names))[:MAX_INPUT_NAMES]


def merge_names(newer: Iterable[str], older: Iterable[str], limit: int) -> list[str]:
    """``newer`` then ``older``, each name once (case-insensitively; a path and its file name
    count as one), at most ``limit``."""
    out: list[str] = []
    seen: set[str] = set()
    for name in (*newer, *older):
        key = name.lower()
        base = key.rsplit("/", 1)[-1]
        if key in seen or base in seen:
            continue
        seen.update((key, base))
        out.append(name)
        if len(out) >= limit:
            break
    return out


def in_play(turns: Iterable[Mapping[str, Any]], limit: int = 160) -> list[str]:
    """The names of ``turns`` (buffered turns, oldest first), newest first, each once. A
    turn's tool calls count by the names their inputs used where recorded, else by their
    digest lines."""
    ordered: list[str] = []
    for turn in reversed(list(turns)):
        ordered += _newest_first([str(turn.get("assistant") or "")])
        used = [str(n) for n in turn.get("names") or []]
        ordered += list(reversed(used)) or _newest_first(str(t) for t in turn.get("tools") or [])
        ordered += _newest_first([str(turn.get("user") or "")])
    return merge_names(ordered, (), limit)


RECENT_NAMES = 400  # names of probed turns kept for the block's "last in play" line


def names_in_play(buffer: Mapping[str, Any]) -> list[str]:
    """The names the latest turns used, newest first, from the probe's buffer of turns: those
    still buffered, then those of turns already probed (kept as ``recent_names``, redacted)."""
    turns = buffer.get("turns")
    kept = buffer.get("recent_names")
    return merge_names(
        in_play(turns if isinstance(turns, list) else []),
        [str(n) for n in kept] if isinstance(kept, list) else [],
        RECENT_NAMES,
    )
