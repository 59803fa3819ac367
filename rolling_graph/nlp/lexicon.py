"""The lexicon: the word classes of ``lexicon.toml``, read once, for the gate's cues and the
offline probe's rules alike (one list per class, never a copy in code)."""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

_DATA = Path(__file__).with_name("lexicon.toml")


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """The parsed ``lexicon.toml`` (read once, on first use)."""
    return tomllib.loads(_DATA.read_text(encoding="utf-8"))


def classes() -> list[str]:
    """The names of the word classes."""
    return list(data()["words"])


@cache
def words(name: str) -> tuple[str, ...]:
    """A word class, longest phrase first (alternations try it before its prefix: "one thing
    though" before "one thing"). An entry "@other" stands for the words of the class
    ``other`` (one list, named where another holds it too)."""
    found: set[str] = set()
    for w in data()["words"][name]:
        found.update(words(w[1:]) if w.startswith("@") else (w,))
    return tuple(sorted(found, key=lambda w: (-len(w), w)))


@cache
def alternation(name: str) -> str:
    """A word class as a regex alternation of whole words, for the rules written as regexes."""
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words(name)) + ")"


def object_case(word: str) -> str:
    """``word`` as an object ("they" → "them"); a word with no other case is itself."""
    return str(data()["object_case"].get(word.lower(), word))


_NAMED = re.compile(r"@([a-z]+(?:_[a-z]+)*)")


def expand(pattern: str) -> str:
    """A regex written with "@class" for a class's words (``r"you run @object_pronoun\\b"``),
    as :func:`alternation` spells them; an "@" that names no class stays as written."""
    names = data()["words"]
    return _NAMED.sub(
        lambda m: alternation(m.group(1)) if m.group(1) in names else m.group(0), pattern
    )
