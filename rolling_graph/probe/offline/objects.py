"""The object of an act: what a sentence that agrees, approves or requests is about.

The acts come from :mod:`rolling_graph.probe.offline.acts`. An agreement names its object
("UTC timestamps make sense to me": the words before the appraisal), or names nothing ("sounds
right, start with the parser"): then it approves the proposal in the agent's last message.
"""

from __future__ import annotations

import re

from rolling_graph.probe.offline import acts, proposals
from rolling_graph.probe.offline.decisions import content_words
from rolling_graph.probe.offline.plan import Plan

# At most this many words before an appraisal name its object ("the queue approach").
MAX_OBJECT_WORDS = 6


# The rules whose object comes before the matched words ("the queue approach looks right"),
# and the one whose object follows them ("fine with the queue approach").
_OBJECT_BEFORE = ("appraisal", "copula-approval")
_OBJECT_AFTER = ("agree-with",)


def _object_words(text: str) -> str:
    """A short noun phrase without lead-ins, determiners and pronouns; "" when none."""
    words = acts.strip_lead(text).strip(" ,;:-").split()
    article = words[0] if words and words[0].lower() in ("the", "a", "an") else ""
    while words and words[0].lower() in acts.words("determiners"):
        words.pop(0)
    if not words or len(words) > MAX_OBJECT_WORDS:
        return ""
    if all(w.lower().strip(",") in acts.words("deictic") for w in words):
        return ""
    return " ".join([article, *words]).strip()  # "the queue approach" keeps its article


def _named_object(sentence: str, act: acts.Act) -> str:
    """The words of the act's object: before the appraisal, in its clause ("yes, I agree, a
    reference document is preferable" → "reference document"), or after "agreed on"."""
    if act.rule in _OBJECT_AFTER:
        if act.text.lower().split()[-1] == "your":
            return ""  # "I like your rec": the agent's proposal, not a thing named
        tail = re.split(r"[,;:.!?]|\s[-—–]\s", sentence[act.end :], maxsplit=1)[0]
        return _object_words(tail)
    head = re.split(r"[,;:]\s", sentence[: act.start])[-1]
    return _object_words(head)


def _proposed(obj: str, before: str) -> bool:
    """Whether the agent's last message put ``obj`` forward: every content word of it is there,
    in one sentence that puts something forward."""
    mine = content_words(obj)
    if not mine:
        return False
    proposing = re.compile(rf"\b{acts.alternation('proposing')}\b", re.I)
    return any(
        mine <= content_words(said) and proposing.search(said)
        for said in re.split(r"(?<=[.!?])\s+|\n+", before)
    )


def agreement(plan: Plan, sentence: str, before: str, reason: str) -> str | None:
    """The decision an agreement makes: its named object when the agent proposed it ("UTC
    timestamps make sense to me" → "Use UTC timestamps"), else, when the sentence goes on after
    the approval ("sounds right, start with the parser"), the agent's proposal."""
    act = next(
        (a for a in acts.acts_of(sentence) if a.rule in _OBJECT_BEFORE + _OBJECT_AFTER), None
    )
    if act is None or not before.strip():
        return None
    obj = _named_object(sentence, act)
    if obj:
        if not _proposed(obj, before):
            return None
        return plan.decision(
            f"Use {obj}", f"the person agreed with what the agent proposed: {reason}", sentence
        )
    rest = sentence[act.end :].strip(" ,;:-.!")
    if act.rule in _OBJECT_AFTER:  # "agreed with you", "I like your rec, create the plan"
        rest = re.split(r"[,;:.!]\s*", rest, maxsplit=1)[-1] if "," in rest else ""
    if len(rest.split()) < 2 and not act.text.lower().endswith("your"):
        return None  # a bare "looks good" is read with the whole prompt (intent.options_decision)
    return proposals.approved_proposal(plan, before, reason)


def requested(sentence: str) -> bool:
    """A request of the agent asked as a question ("can we add some tests?")."""
    return acts.has(sentence, "request") is not None
