"""The agent's offers of work ("Want me to add tests?", "Shall I proceed with Phase 2?"): the
work a reply that approves one asks for, as a task's words."""

from __future__ import annotations

import re

from rolling_graph.probe.offline import acts, claims, clauses
from rolling_graph.probe.offline.labels import label_problems
from rolling_graph.probe.offline.markup import unmark

OFFER = re.compile(
    r"(?:want me to|should i|shall i|would you like me to|do you want me to|ready to|"
    r"i can|i could|let me know if you(?:'d like| want) me to)\s+"
    # what is offered ends with its sentence: "I can add X. Want me to wire Y?" offers Y
    r"(?P<what>(?:[^?\n.!]|[.!](?!\s)){3,160})\?",
    re.I,
)
_WORDS = 9  # an offered task's words, at most
_ABOUT = 10  # words of the statement that says what an offer's "this" or "them" is
# "Shall I update the plan with these findings and then proceed to Phase 2 execution?"
# (ElixirTrials__medgemma-hackathon), "Shall I start by updating the queue and then proceed
# with ELH-2010-A?" (saross__trap-extraction): cut short, the work is its first step.
_AND_THEN = re.compile(r"(?<=\S)\s+and\s+then\s+(?=\S)", re.I)
# "… for you?", "… for you now?" closing an offer (M-Thisness__M-Claude, saross__trap-extraction)
_FOR_YOU = re.compile(r"\s+for\s+you(?:\s+(?:now|first|later))?\s*$", re.I)


def last_offer(text: str) -> re.Match[str] | None:
    """The last offer in ``text``, if any."""
    found = list(OFFER.finditer(text))
    return found[-1] if found else None


def approved_offer(assistant: str) -> str | None:
    """The work of the agent's last offer in ``assistant`` (its last 1,500 characters)."""
    tail = assistant[-1_500:] if assistant else ""
    found = last_offer(tail) if tail else None
    return offered_task(tail, found) if found else None


def offered_task(text: str, offer: re.Match[str]) -> str | None:
    """The work of ``offer`` (found in ``text``) as a task: :func:`offered_work`, and when its
    words name nothing ("Would you like me to apply them?", saross__trap-extraction; "Want me
    to fix this?", entireio__cli), what they are about: the agent's last statement before it."""
    work = offered_work(offer)
    if work is None or "names nothing" not in label_problems(work):
        return work
    # a line that ends in a colon leads to what follows ("What we need:"), it states nothing
    said = [x for x in claims.statements(text[: offer.start()]) if not x.endswith(":")]
    return f"{work} — {clauses.clause(unmark(said[-1]), _ABOUT)}" if said else work


def offered_work(offer: re.Match[str]) -> str | None:
    """The work an offer names, as a task ("Install ccusage" for "Want me to install ccusage
    for you?": who it is for is the agent's courtesy); ``None`` for fewer than two words or a
    go-ahead ("Want me to go ahead?" offers the work said before it: entireio__cli,
    saross__trap-extraction)."""
    what = offer.group("what")
    if len(what.split()) > _WORDS:  # too long to keep whole: its first step of a sequence
        what = _AND_THEN.split(what, maxsplit=1)[0]
    what = _FOR_YOU.sub("", clauses.clause(what, _WORDS))
    if len(what.split()) < 2 or what.lower() in acts.words("go_ahead"):
        return None
    return what[:1].upper() + what[1:]
