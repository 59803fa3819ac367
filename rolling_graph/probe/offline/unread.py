"""Prompts the language rules cannot read: another language or script than the English the
rules are written in. They are counted, not guessed at: the probe says how many in its
rationale, ``stats`` and the replay summary show the count; names in them are still found."""

from __future__ import annotations

import re

from rolling_graph.probe.offline import acts

# A prompt this long with no English function word is in another language.
MIN_WORDS = 4
# Below this share of Latin letters a prompt is in another script.
MIN_LATIN = 0.5
_NOTE = "prompts the rules could not read"
_NOTE_RX = re.compile(rf"{_NOTE}: (\d+)")


def readable(text: str) -> bool:
    """Whether the English rules can read ``text`` (a text with no letters is not unreadable)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True
    latin = sum(1 for c in letters if c.isascii())
    if latin / len(letters) < MIN_LATIN:
        return False
    words = re.findall(r"[a-z']+", text.lower())
    return len(words) < MIN_WORDS or any(w in acts.words("english") for w in words)


def note(count: int) -> str:
    """The rationale's clause for ``count`` unread prompts ("" when none)."""
    return f"; {_NOTE}: {count}" if count else ""


def count_in(rationale: str) -> int:
    """The unread prompts a probe's rationale reports."""
    m = _NOTE_RX.search(rationale or "")
    return int(m.group(1)) if m else 0
