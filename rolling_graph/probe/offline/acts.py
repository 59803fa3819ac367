"""What a sentence of the person's does: its acts, read with the rules of ``acts.toml``.

The rules are data (``acts.toml``): each rule is a spaCy ``Matcher`` pattern that names its act
(agree, request, reject, defer), its words the classes of the lexicon
(:mod:`rolling_graph.nlp.lexicon`, read here as :func:`words` and :func:`alternation`).
Matching runs on the blank English pipeline's tokenizer, so no trained pipeline is needed; the
words are compared lower-cased.
"""

from __future__ import annotations

import re
import threading
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from rolling_graph.nlp.lexicon import alternation, words

# The acts of the table. Choosing, correcting, asides and facts about people and dates are
# still read by the older regex modules (speech, decisions, corrections, people).
ACTS = ("agree", "request", "reject", "defer")
_DATA = Path(__file__).with_name("acts.toml")
_lock = threading.Lock()


@dataclass(frozen=True)
class Act:
    """One rule that matched: the act, the rule's name and the matched words."""

    act: str
    rule: str
    start: int  # character offset in the sentence
    end: int
    text: str


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """The parsed ``acts.toml`` (read once)."""
    return tomllib.loads(_DATA.read_text(encoding="utf-8"))


def rules() -> list[dict[str, Any]]:
    return list(data()["rule"])


def _expand(value: Any) -> Any:
    """ "@class" → the class's words, anywhere in a token pattern."""
    if isinstance(value, str) and value.startswith("@"):
        return list(words(value[1:]))
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


@lru_cache(maxsize=1)
def _matcher() -> tuple[Any, Any]:
    """The blank English pipeline's tokenizer and one ``Matcher`` holding every rule (built on
    first use). The pipeline is the one the gate and the prompt rules analyse with: its
    vocabulary and tokenizer cache already hold the prompt's words when its sentences come
    here."""
    from spacy.matcher import Matcher

    from rolling_graph.nlp.pipeline import get_nlp

    nlp = get_nlp("")
    matcher = Matcher(nlp.vocab)
    for rule in rules():
        matcher.add(rule["name"], _expand(rule["patterns"]))
    return nlp, matcher


def assent() -> str:
    """Saying yes, as a regex: the assent words, and the words that say yes only when
    punctuation sets them apart ("perfect, …" but not "perfect the wording")."""
    return rf"(?:{alternation('assent')}|{alternation('assent_apart')}(?=\s*[,!.:;]|\s+[-—–]|\s*$))"


@lru_cache(maxsize=1)
def lead_in() -> re.Pattern[str]:
    """Lead-in words and assent at the start of a sentence ("ok so, ", "hmm, also ")."""
    verdict = (
        rf"{alternation('verdict')}\s+(?:{alternation('approving')}|{assent()})"
        r"(?=\s*[,!.:;-])"
    )
    # A pseudo-cleft only announces what follows: "what I meant was …", "what I actually meant
    # to ask was …" (the lexicon's "what i meant" alone would leave "was …").
    cleft = r"what\s+i\s+(?:\w+ly\s+)?mean(?:t)?(?:\s+to\s+(?:say|ask))?\s+(?:was|is)"
    # "Hi CC, …", "hey Claude! …": a greeting, and the name it greets before a comma
    greeting = rf"{alternation('greeting')}(?:\s+[\w-]+(?=\s*[,!]))?"
    tag = rf"{alternation('message_tag')}(?=\s*:)"  # "Q: …", "FYI: …": the colon makes it one
    return re.compile(
        rf"^(?:(?:{cleft}|{greeting}|{tag}|{alternation('lead_in')}|{assent()}|{verdict})\b"
        r"[\s,!.:;-]*)+",
        re.I,
    )


def acts_of(sentence: str) -> list[Act]:
    """Every rule that matches ``sentence``, in order; an ``at_start`` rule only where its
    match opens the sentence (after lead-in words)."""
    text = sentence.strip()
    return list(_acts(text)) if text else []


@lru_cache(maxsize=1)
def _by_name() -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in rules()}


@lru_cache(maxsize=512)
def _acts(text: str) -> tuple[Act, ...]:
    # Several rules ask for one sentence's acts: it is matched once.
    with _lock:
        nlp, matcher = _matcher()
        doc = nlp.make_doc(text[:2000])
        found = matcher(doc)
    by_name = _by_name()
    opened = len(lead_in().match(text).group(0)) if lead_in().match(text) else 0
    out = []
    for match_id, start, end in found:
        rule = by_name[doc.vocab.strings[match_id]]
        span = doc[start:end]
        if rule.get("at_start") and span.start_char > opened and start > 0:
            continue
        out.append(Act(rule["act"], rule["name"], span.start_char, span.end_char, span.text))
    return tuple(out)


def dangles(text: str) -> bool:
    """Whether ``text`` ends on a word that leaves its phrase open ("… for the", "… should"); a
    "not" that ends a clause of its own does not ("why not", "or not", "if not", and "why the
    heck not": lexicon class ``elliptic``)."""
    said = re.findall(r"[\w'’-]+", text.lower())
    if not said or said[-1] not in words("dangling"):
        return False
    if said[-1] != "not" or len(said) < 2:
        return True
    # "why the heck not": the word before "the <word> not"
    before = said[-4] if len(said) >= 4 and said[-3] == "the" else said[-2]
    return before not in words("elliptic")


def has(sentence: str, act: str) -> Act | None:
    """The first match of ``act`` in ``sentence``, or ``None``."""
    return next((a for a in acts_of(sentence) if a.act == act), None)


@lru_cache(maxsize=1024)
def strip_lead(sentence: str) -> str:
    """The sentence without its lead-in ("ok so, one thing though: fix X" → "fix X")."""
    m = lead_in().match(sentence.strip())
    return sentence.strip()[m.end() :] if m else sentence.strip()


def clause_start(text: str) -> re.Match[str] | None:
    """Where a clause of its own starts inside ``text`` (" we want", " I will"): a subject and
    its verb after a space."""
    return re.search(rf"\s{alternation('subjects')}\s+{alternation('finite')}\b", text, re.I)
