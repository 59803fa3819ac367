"""An answer the person picked in the agent's question tool (AskUserQuestion), as the label of
the decision it records: the choice, not the words around it. "Yes, re-pair it" is the choice
*Re-pair it*; a long option is cut before its first aside or clause ("1 detailed embed (no
notification …) + …" → *1 detailed embed*), never mid-word and never after a word that needs
another (the lexicon's ``dangling``, ``determiners``, ``quantifier``); the whole answer stays in the node's summary."""

from __future__ import annotations

import re
from functools import cache

from rolling_graph.core.model import CHOICE_LABEL
from rolling_graph.nlp.text import without_recommendation

# Where an option's own words end and its aside or second clause begins.
_ASIDE = re.compile(r"\s[(\[—–+]|[,;:，；：。]|\s-\s")


@cache
def _lead_in() -> re.Pattern[str]:
    """A yes or a no set apart before the choice: "Yes, rewrite", "No — keep the parser"."""
    from rolling_graph.nlp.lexicon import alternation

    return re.compile(
        rf"^(?:{alternation('assent')}|{alternation('refusal')})\s*[,.!:;—–-]+\s*(?=\w)", re.I
    )


def _dangling(word: str) -> bool:
    """A word a phrase cannot end on: "… and", "… to the", "… for every"."""
    from rolling_graph.nlp.lexicon import words

    w = word.lower().strip(",;:")
    return w in words("dangling") or w in words("determiners") or w in words("quantifier")


def _short(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: before its first aside when that leaves two
    characters or more, else its first words, without a last word that needs another."""
    if len(text) <= limit:
        return text
    m = _ASIDE.search(text)
    if m and 2 <= m.start() <= limit:
        return text[: m.start()].rstrip()
    words = text[: limit + 1].split()
    if len(text) > limit and not text[limit].isspace():
        words = words[:-1]  # the last word was cut
    while len(words) > 1 and (_dangling(words[-1]) or len(" ".join(words)) > limit):
        words.pop()
    return " ".join(words) or text[:limit]


def answer_label(answer: str) -> str:
    """The decision label of a picked answer (see the module's note); "" for an empty one."""
    text = " ".join(without_recommendation(answer).split())
    text = _lead_in().sub("", text) or text
    text = _short(text, CHOICE_LABEL)
    return text[:1].upper() + text[1:]
