"""Answers to the agent's numbered questions: "1.A 3. B 4. keep it in the menu bar" after an
interview of numbered questions, each with lettered options or alternatives. Each answer to a
question that offered a choice is a decision: the lettered option it names, or its own words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rolling_graph.probe.offline import acts, clauses, speech
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import Plan, clip

MAX_ANSWERS = 8
# A numbered question: a heading ("### 3. Window Decorations", "**3. Stacks**") or a numbered
# line that asks ("3. How should stacks render?").
_QUESTION_HEAD = re.compile(
    r"^[ \t]*(?P<mark>#{1,4}[ \t]*|\*\*)?(?:Q(?:uestion)?[ \t]*)?(?P<n>\d{1,2})[.):][ \t]+"
    r"(?P<title>[^\n]{2,160})$",
    re.M,
)
# A lettered option inside a question: "- **A) Homebrew** (like …)", "| **B) JSON** | …".
_LETTERED = re.compile(
    r"^[ \t]*(?:[-*|][ \t]*)?(?:\*\*)?[ \t]*(?P<key>[A-F])[.)][ \t]*(?:\*\*)?[ \t]*"
    r"(?P<title>[^|\n]{2,160})",
    re.M,
)
_BULLET = re.compile(r"^[ \t]*[-*•][ \t]+\S", re.M)
# "1.A", "3. B", "5. A + B", "7: C sounds best": a number, then a letter standing alone.
_ANSWER_NO = re.compile(r"(?:^|(?<=\s))(?P<n>\d{1,2})\s*[.):](?!\d)\s*")
_KEYS = re.compile(r"^(?P<k>[A-F])(?:\s*(?:\+|&|,|and)\s*(?P<k2>[A-F]))?(?=$|[\s.,;:!)])")


@dataclass
class Question:
    title: str
    options: dict[str, str] = field(default_factory=dict)
    choice: bool = False  # lettered options, alternatives in a list, or an "A or B?" question


def questions(assistant: str) -> dict[str, Question]:
    """Numbered questions of the agent's text (the last one of each number wins) → the options
    they offer."""
    tail = assistant[-8_000:]
    heads = [m for m in _QUESTION_HEAD.finditer(tail) if m.group("mark") or "?" in m.group("title")]
    out: dict[str, Question] = {}
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(tail)
        body = tail[m.end() : end]
        title = unmark(m.group("title"), "#").strip(" :")
        opts = {}
        for o in _LETTERED.finditer(body):
            opt = unmark(o.group("title")).strip(" :")
            opts[o.group("key")] = opt
        asks = " ".join([title, *re.findall(r"[^\n]*\?", body[:400])])
        if "?" not in asks and not (len(opts) >= 2 and "?" in body):
            continue  # a numbered section that asks nothing (a plan, a review) is no question
        choice = (
            len(opts) >= 2
            or len(_BULLET.findall(body)) >= 2
            or bool(re.search(r"\bor\b", asks, re.I))
        )
        out[m.group("n")] = Question(clauses.clause(title, 6), opts, choice)
    return out


def answers(prompt: str, asked: dict[str, Question]) -> list[tuple[Question, str, str]]:
    """(question, chosen label, the answer's words) for each numbered answer of ``prompt``
    to a question of ``asked`` that offered a choice; none for one stray "2." (a list of the
    person's own, not an answer sheet) unless it names a lettered option."""
    marks = [m for m in _ANSWER_NO.finditer(prompt) if m.group("n") in asked]
    out = []
    lettered = False
    for i, m in enumerate(marks):
        q = asked[m.group("n")]
        said = prompt[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(prompt)]
        said = said.strip()
        k = _KEYS.match(said)
        keys = [x for x in (k.group("k"), k.group("k2")) if x] if k else []
        if keys and all(x in q.options for x in keys):
            chosen = [clauses.clause(re.split(r"\s\(", q.options[x])[0], 8) for x in keys]
            said = "; ".join(f"{x}) {q.options[x]}" for x in keys)
            out.append((q, " + ".join(chosen), said))
            lettered = True
            continue
        first = re.split(r"(?<=[.!?])\s", said)[0].strip()
        if q.choice and first and not speech.is_question(first) and not keys:
            out.append((q, clauses.clause(first, 10), said))
    # an answer sheet: two answers that choose, a lettered one, or one that chooses among
    # answers to two numbered questions or more ("1. main  2. canary")
    sheet = len(out) >= 2 or lettered or (bool(out) and len({m.group("n") for m in marks}) >= 2)
    return out[:MAX_ANSWERS] if sheet else []


# A question's asking words around its topic: "What sync operation do you need" → "sync
# operation", "Which repository should we use" → "repository".
_ASKING = re.compile(
    rf"^{acts.alternation('question_open')}\s+(?:(?:kind|sort|type)\s+of\s+)?", re.I
)
_ASKER = re.compile(
    r"\s+(?:do|does|did|would|should|shall|will|can|could)\s+(?:you|i|we)\b.*$", re.I
)


def topic(title: str) -> str:
    """What a numbered question is about, for the label of its answer: a heading as it is
    ("Scope & MVP"), a question without its asking words ("What sync operation do you need?"
    → "Sync operation")."""
    if not _ASKING.match(title):
        return title
    bare = _ASKER.sub("", _ASKING.sub("", title)).strip(" ?:")
    return bare[:1].upper() + bare[1:] if bare else title


def answered_questions(plan: Plan, prompt: str, assistant: str, reason: str) -> list[str]:
    """Decisions for the answers a reply gives to the agent's numbered questions."""
    asked = questions(assistant) if assistant else {}
    if not asked:
        return []
    dids = []
    for q, chosen, said in answers(prompt, asked):
        if not chosen.strip():
            continue
        did = plan.decision(
            f"{topic(q.title)}: {chosen}",
            f"answered the agent's question '{q.title}': {reason}",
            clip(f"{q.title}: {said}", 190),
        )
        if did and did not in dids:
            dids.append(did)
    return dids
