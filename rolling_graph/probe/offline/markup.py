"""Markdown emphasis and code marks taken out of the agent's text before its words become a
label: ``**bold**``, `` `code` ``, ``_em_``, and where asked headings (``#``), table bars and
quote marks. An underscore inside a word is kept: ``created_at`` is a name, not emphasis; a
quote a label opens and closes is kept too, a stray one at its end goes, and a label that is
one whole quotation is read as its words."""

from __future__ import annotations

import re
from functools import lru_cache

# ``_em_`` / ``__strong__``: a pair of underscore runs around words, at word edges.
_UNDERSCORE_PAIR = re.compile(r"(?<![^\W_])(_{1,2})(?=[^\W_])([^\n]+?)(?<=[^\W_])\1(?![^\W_])")


# Claude Code's console marks a message or tool call of the agent with "⏺" and a tool's output
# with "⎿": a line that opens with one, and the lines indented under it, are console output the
# person pasted (M-Thisness__M-Claude, entireio__cli: "create mode 100644 docs/red.md" under a
# commit's "⎿"), not words of theirs.
_CONSOLE = re.compile(r"(?m)^([ \t]*)[⏺⎿][^\n]*(?:\n\1[ \t]+[^\n]*)*")


def without_console(text: str) -> str:
    """``text`` with pasted console output blanked, character for character (offsets hold)."""
    if "⏺" not in text and "⎿" not in text:
        return text
    return _CONSOLE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


@lru_cache(maxsize=16)
def _marks(extra: str) -> re.Pattern[str]:
    return re.compile(rf"[*`{re.escape(extra)}]+")


def unmark(text: str, extra: str = "", repl: str = "") -> str:
    """``text`` without its emphasis and code marks (and the characters of ``extra``), each
    run of marks replaced by ``repl``."""
    if "_" in text:
        text = _UNDERSCORE_PAIR.sub(lambda m: repl + m.group(2) + repl, text)
    return _marks(extra).sub(repl, text)


def unquoted_ends(text: str) -> str:
    """``text`` without the stray quote marks at its ends: a quote it opens and closes stays
    ("call the second 'B' 'Bethan Donnelly'")."""
    text = text.strip(" ,:-")
    for q in "\"'`":
        # an apostrophe inside a word ("let's") is no quote mark
        marks = [i for i, c in enumerate(text) if c == q and not _inside_word(text, i)]
        if len(marks) % 2:
            text = text.strip(q).strip(" ,:-")
    return text


def closed(text: str) -> str:
    """``text`` cut before a parenthesis it opens and does not close ("make sudo passwordless
    (except for" → "make sudo passwordless"): what the parenthesis held was cut away."""
    opened: list[int] = []
    for i, c in enumerate(text):
        if c == "(":
            opened.append(i)
        elif c == ")" and opened:
            opened.pop()
    return text[: opened[0]].rstrip(" ,:-") if opened else text


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


# A text that is one quotation, whole.
_QUOTATION = re.compile(r"""['"“‘]([^'"“”‘’]{3,})['"”’]""")


def quotation(text: str) -> str | None:
    """The words inside ``text`` when it is one quotation, whole ("'please prepare X'");
    ``None`` otherwise."""
    m = _QUOTATION.fullmatch(text)
    return m.group(1) if m else None
