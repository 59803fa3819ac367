"""A point-by-point reply: the person answers the agent's numbered points by number ("(1) great
idea; (2) …; (4) perfect, yes", "1. yes, our current machine. 2. …"). Point N of the reply is
about point N of the agent's numbered list; a point that approves (an "agree" act of
``acts.toml``) adopts the agent's point N, when the agent put its points forward as
suggestions (the list's lead or its items say so: "Suggested improvements", "I recommend").

Seen in saross__trap-extraction ("(1) great idea; … (4) perfect, yes; (5) yes!" after five
"Suggested Improvements"; "(1) agree. (2) yes, substantially complete …" after numbered
observations, which suggest nothing) and in M-Thisness__M-Claude ("1. yes, our current
machine. 2. we are also connected to …" after three numbered questions; a fourteen-point
reply to a numbered audit).
"""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.probe.offline import acts, speech
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import Plan, clip

# A point's number in the person's reply: "(1) ", "1. ", "1) ", at a line start or after a
# clause's end ("…; (2) …").
_MARK = re.compile(r"(?:^|(?<=[\s;,.!:]))\(?(?P<n>\d{1,2})[.)](?=\s)", re.M)
# A point of the agent's list: "1. …", "**1. …**", "### 1. …", "### 🔴 1. **…**" (a marker
# before the number), at a line start.
_ITEM = re.compile(
    r"^[ \t]*(?:#{1,4}[ \t]*)?(?:[^\w\s#*]{1,2}[ \t]*)?(?:\*\*)?(?P<n>\d{1,2})[.)][ \t]+"
    r"(?P<head>\S.*)$",
    re.M,
)
# What ends a point's text besides the next point: a rule or a heading.
_BREAK = re.compile(r"^[ \t]*(?:-{3,}|#{1,4}\s)", re.M)
# How far before its first point a list's lead is read.
LEAD_CHARS = 300
# The agent's points are read from this much of its last message.
TAIL_CHARS = 8_000
# At most this many points become decisions.
MAX_POINTS = 6


def reply_points(prompt: str) -> dict[int, str]:
    """The person's points, number → text, when the prompt numbers at least two of them in
    order (1, 2, … or any run that counts up by one); {} otherwise."""
    return dict(_reply_points(prompt))


@lru_cache(maxsize=64)
def _reply_points(prompt: str) -> tuple[tuple[int, str], ...]:
    # Asked for each sentence of the prompt: its points are read once.
    marks = list(_MARK.finditer(prompt))
    out: dict[int, str] = {}
    for i, m in enumerate(marks):
        n = int(m.group("n"))
        if out and n != max(out) + 1:
            continue  # "version 2." inside a point is no point of its own
        end = next((x.start() for x in marks[i + 1 :] if int(x.group("n")) == n + 1), len(prompt))
        out[n] = " ".join(prompt[m.end() : end].split()).strip(" ;,")
    return tuple(out.items()) if len(out) >= 2 and all(out.values()) else ()


@lru_cache(maxsize=8)
def _lists(text: str) -> list[tuple[str, dict[int, tuple[str, str]]]]:
    """The numbered lists of a message, in order: (the lead before the list, number → the
    point's first line and its whole text)."""
    found: list[tuple[str, dict[int, tuple[str, str]]]] = []
    items = list(_ITEM.finditer(text))
    for i, m in enumerate(items):
        n = int(m.group("n"))
        if not found or n <= max(found[-1][1]):
            lead = text[max(0, m.start() - LEAD_CHARS) : m.start()]
            found.append((lead, {}))
        end = items[i + 1].start() if i + 1 < len(items) else len(text)
        body = text[m.start("head") : end]
        stop = _BREAK.search(body, len(m.group("head")))
        body = body[: stop.start()] if stop else body
        head = " ".join(unmark(m.group("head"), "#|", " ").split())
        found[-1][1][n] = (head, " ".join(unmark(body, "#|", " ").split()))
    return found


def agent_list(before: str, numbers: set[int]) -> tuple[str, dict[int, tuple[str, str]]] | None:
    """(lead, number → (first line, whole text)) of the agent's last numbered list that holds
    every point of the reply; else of its last list that holds all but the first (the
    message's head may be cut off: a long message is kept by its end). ``None`` when none."""
    found = _lists(before[-TAIL_CHARS:])
    for need in (numbers, numbers - {min(numbers, default=0)}):
        for lead, points in reversed(found):
            if need and need <= set(points):
                return lead, points
    return None


def agent_points(before: str, numbers: set[int]) -> dict[int, tuple[str, str]] | None:
    """The agent's last numbered list that holds every point of the reply, when it puts its
    points forward as suggestions; ``None`` otherwise."""
    suggesting = re.compile(rf"\b{acts.alternation('suggesting')}\b", re.I)
    listed = agent_list(before, numbers)
    if listed is None or not numbers <= set(listed[1]):
        return None
    lead, points = listed
    heads = " ".join(head for head, _ in points.values())
    return points if suggesting.search(lead) or suggesting.search(heads) else None


def answered(sentence: str, prompt: str, before: str) -> tuple[str, str] | None:
    """(first line, whole text) of the agent's point that a sentence of a point-by-point reply
    answers: the reply's point N is about the agent's point N."""
    mine = reply_points(prompt)
    if not mine or not before:
        return None
    head = " ".join(sentence.split())[:40]
    point = next((n for n, said in mine.items() if head and head in said), None)
    listed = agent_list(before, set(mine)) if point is not None else None
    return listed[1].get(point) if listed else None


def point_work(sentence: str, before: str) -> str | None:
    """ "let's examine 2" → "Examine Cache eviction race", "please undertake #1" → "Check if
    the importer handles empty rows": a verb before the number of a point of the agent's last
    numbered list asks for that point's work, in the point's own words when they ask for work
    and the verb only says to do it; ``None`` when the sentence names no such point."""
    m = _point_ref().match(" ".join(sentence.split()))
    listed = agent_list(before, {int(m.group("n"))}) if m and before else None
    verb = m.group("verb").lower() if m else ""
    if listed is None or verb not in speech.WORK_VERBS and verb not in acts.words("do_it"):
        return None
    head = _headline(listed[1][int(m.group("n"))][0])
    if verb in acts.words("do_it") and (work := speech.task_phrase(head)):
        return work
    return f"{verb[:1].upper()}{verb[1:]} {head}"


@lru_cache(maxsize=1)
def _point_ref() -> re.Pattern[str]:
    # the work's verb, then the point's number, and nothing but an end or a clause after it
    return re.compile(
        rf"^{speech.PREAMBLE}(?:{speech.LEAD})?(?P<verb>[a-z]+)\s+#?(?P<n>[1-9])(?=$|[\s.,;!])"
        r"(?![.,]?\d)",
        re.I,
    )


def _headline(point: str) -> str:
    """The agent's point as a label: its first line's words up to a colon, a dash or a
    bracket ("Create an SU Form Index (Once Per Season)" → "Create an SU Form Index")."""
    head = re.split(r"\s[(—–-]\s?|:\s|(?<=[a-z])\.\s", point, maxsplit=1)[0]
    return head.strip(" .:;,")


def approves(point: str) -> bool:
    """The person's point says yes to the agent's: an "agree" act, and no refusal."""
    return acts.has(point, "agree") is not None and acts.has(point, "reject") is None


def approved_points(plan: Plan, prompt: str, before: str, reason: str) -> list[str]:
    """Decisions for the points of a point-by-point reply that approve the agent's suggestion
    of the same number: the suggestion's headline the label, its text and the person's words
    the summary."""
    mine = reply_points(prompt)
    if not mine or not before:
        return []
    theirs = agent_points(before, set(mine))
    if theirs is None:
        return []
    dids: list[str] = []
    for n, said in mine.items():
        if len(dids) >= MAX_POINTS or not approves(said):
            continue
        first, whole = theirs[n]
        head = _headline(first)
        if len(head.split()) < 2:
            continue
        did = plan.decision(
            f"Approved: {head}",
            f"the person approved the agent's point {n}: {reason}",
            f"({n}) {clip(said, 80)} — {clip(whole, 100)}",
        )
        if did and did not in dids:
            dids.append(did)
    return dids
