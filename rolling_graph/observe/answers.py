"""An answer the person picked in the agent's question tool (AskUserQuestion), as the label of
the decision it records: the choice, not the words around it. "Yes, re-pair it" is the choice
*Re-pair it*; a long option is cut before its first aside or clause ("1 detailed embed (no
notification …) + …" → *1 detailed embed*); a verb whose object only the question names takes
it ("re-pair it" to "…re-pair your YubiKey with macOS?" → *Re-pair your YubiKey with macOS*);
an answer that does not say what it is about takes the question's header, the tool's short tag
for it ("Webhook URL" under "Discord" → *Discord: Webhook URL*); never mid-word and never
after a word that needs another (the lexicon's ``dangling``, ``determiners``, ``quantifier``).
The whole answer stays in the node's summary."""

from __future__ import annotations

import re
from functools import cache

from rolling_graph.core.model import CHOICE_LABEL

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
    if not text[limit].isspace():
        words = words[:-1]  # the last word was cut
    while len(words) > 1 and (_dangling(words[-1]) or len(" ".join(words)) > limit):
        words.pop()
    return " ".join(words) or text[:limit]


# Where the question's phrase for the answer's verb ends: its clause, or its other side.
_CLAUSE_END = re.compile(r"[?.!,;:(\n]|\s(?:or|and then|instead)\s", re.I)


def _named_by_question(text: str, question: str) -> str:
    """ "re-pair it", "rewrite": a verb whose object only the question names ("…unpair and
    re-pair your YubiKey with macOS?") takes that object; otherwise ``text`` as it is."""
    from rolling_graph.nlp.lexicon import words

    said = text.split()
    if not said or len(said) > 2 or any(w.lower() not in words("deictic") for w in said[1:]):
        return text
    m = re.search(rf"(?<![\w-]){re.escape(said[0])}(?![\w-])\s+(?=\S)", question, re.I)
    if m is None:
        return text
    rest = question[m.end() :]
    if re.match(r"(?:or|and)\b", rest, re.I):
        return text  # "Rewrite or patch?": the verb is one side, its object unsaid
    end = _CLAUSE_END.search(rest)
    phrase = rest[: end.start()] if end else rest
    return f"{said[0]} {phrase.strip()}" if phrase.strip() else text


def answer_label(answer: str, question: str = "") -> str:
    """The decision label of a picked answer to ``question`` (see the module's note), its
    recommendation mark already off (:func:`~rolling_graph.nlp.text.without_recommendation`);
    "" for an empty one."""
    text = " ".join(answer.split())
    text = _lead_in().sub("", text) or text
    text = _short(_named_by_question(text, question), CHOICE_LABEL)
    return text[:1].upper() + text[1:]


# The tool's header is a tag of a few words; a longer one is no tag.
HEADER_CHARS = 24


def headed(label: str, header: str) -> str:
    """``label`` after the question's header, unless it already says it ("Re-pair your YubiKey
    with macOS" under "Re-pair YubiKey" stays): in the block, "Webhook URL" alone does not say
    what it decides."""
    head = " ".join(header.split()).strip(" :：")
    if not head or len(head) > HEADER_CHARS or _says(label, head):
        return label
    return f"{head}: {_short(label, CHOICE_LABEL - len(head) - 2)}"


def _says(label: str, header: str) -> bool:
    """Every word of the header is in the label (a script without spaces: the header is)."""
    have = {w.strip(".,;:()").lower() for w in label.split()}
    words = [w.strip(".,;:()").lower() for w in header.split()]
    return all(w in have for w in words) or header.lower() in label.lower()
