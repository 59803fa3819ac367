"""A value given for what the agent asked: "Which region should the bucket live in?" →
"eu-west-1", "What should the CLI be called?" → "tidewatch". The agent's closing question asks
for one thing of a kind (its slot: region, network, name); a short reply that names a value and
asks for no work fills the slot. The decision carries both, "Region: eu-west-1", and the question
in its summary. Read from the shape of the question and of the reply, never from their words.
"""

from __future__ import annotations

import re

from rolling_graph.nlp.text import questions_in
from rolling_graph.probe.offline import acts, speech
from rolling_graph.probe.offline.plan import Plan

MAX_REPLY_WORDS = 8
# "Which region should it live in?", "What port do you want?", "which network are we on?"
_WHICH = re.compile(
    r"\b(?:which|what)\s+(?P<slot>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+"
    r"(?:should|would|do|does|will|shall|are|is|did|can)\b[^?\n]*\?",
    re.I,
)
# "What should the service be called?", "what do you want to name it?"
_NAMED = re.compile(
    r"\bwhat\s+(?:should|would|do you want to|shall)\s+(?:we\s+|i\s+)?"
    r"(?:(?P<what>[^?\n]{2,40}?)\s+be\s+(?:called|named)|(?:call|name)\s+(?P<what2>[^?\n]{2,40}?))\s*\?",
    re.I,
)
# Slots that ask for no value: "what else", "which one do you mean", "what time is it".
_NOT_SLOTS = frozenset(
    "else one ones way part thing things of do did is are would should about kind".split()  # noqa: SIM905
)
# Replies that answer no slot: approvals, refusals, pointers, and questions back.
_NOT_VALUES = re.compile(
    rf"^(?:{acts.alternation('assent')}|{acts.alternation('assent_apart')}|"
    rf"{acts.alternation('refusal')}|thanks|thank you|idk|"
    r"i don'?t know|not sure|whatever|either|both|neither|none|any|it|this|that|the same)\b",
    re.I,
)
_HEDGE = re.compile(r"\s*(?:,\s*|\s+)(?:for now|please|pls|i guess|i think|probably)\b.*$", re.I)


def asked_slot(assistant: str) -> tuple[str, str] | None:
    """(slot, question) when the agent's text closes on a question for one value of a kind."""
    tail = assistant[-400:].rstrip()
    found = questions_in(tail)
    if not found or len(tail) - found[-1].end() > 120:
        return None
    q = " ".join(found[-1].group(0).split())
    named = _NAMED.search(q)
    if named:
        what = (named.group("what") or named.group("what2") or "").strip()
        return f"name of {what}" if what else "name", q
    m = _WHICH.search(q)
    if m is None:
        return None
    slot = m.group("slot").lower()
    words = slot.split()
    if words[0] in _NOT_SLOTS or words[-1] in _NOT_SLOTS or words[0].endswith("ly"):
        return None
    return slot, q


def value_of(reply: str) -> str | None:
    """The value a short reply gives ("SQLite for now, we can move later" → "SQLite")."""
    s = " ".join(speech.strip_code(reply).split()).strip(" .!")
    if not s or len(s.split()) > MAX_REPLY_WORDS or speech.is_question(s) or s.endswith("?"):
        return None
    if _NOT_VALUES.match(s) or speech.task_phrase(s):
        return None
    first = re.split(r"[,;]\s+|\s+[-—–]\s+", s)[0]
    value = _HEDGE.sub("", first).strip(" .!\"'`")
    if not value or len(value.split()) > 4:
        return None
    return value


def value_answer(plan: Plan, reply: str, assistant: str, reason: str) -> str | None:
    """A decision "<Slot>: <value>" for a reply that gives the value the agent asked for."""
    asked = asked_slot(assistant) if assistant else None
    value = value_of(reply) if asked else None
    if not asked or not value:
        return None
    slot, question = asked
    return plan.decision(
        f"{slot[:1].upper()}{slot[1:]}: {value}",
        f"gave the value the agent asked for ({slot}): {reason}",
        summary=f"{reply.strip()} — for: {question}",
    )
