"""Choices among what the agent just offered, read from the shape of its text and of the reply:
an option named by echoing its headline ("keep it local!" after "1. Keep it local 2. Move it"),
one side of an "A, or B?" question ("leave it" after "Should I remove X, or leave it?"), and the
whole line of a picked option (its description after the dash says what was chosen)."""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.nlp.bounded import says
from rolling_graph.nlp.text import questions_in
from rolling_graph.probe.offline import acts, speech
from rolling_graph.probe.offline.decisions import content_words as _words
from rolling_graph.probe.offline.markup import unmark

MAX_REPLY_WORDS = 12
_LINE = (
    r"^\s*(?:[-*|]\s*)?(?:#{{1,4}}\s*)?(?:\*\*)?\s*(?:option|approach|choice)?\s*{key}\s*[.):—–-]"
)
_ASK_LEAD = re.compile(
    r"^\s*(?:(?:so|and|or)\s+)?(?:would you (?:like|prefer) (?:me )?to|do you want (?:me )?to|"
    r"want (?:me )?to|should (?:i|we)|shall (?:i|we)|do (?:i|we)|can (?:i|we)|would you rather)\s+",
    re.I,
)


def _first_clause(prompt: str) -> str:
    """The reply's first sentence, when it is a short answer (not a question, not a request
    to explain); else ""."""
    first = re.split(r"(?<=[.;!?])\s|\n", prompt.strip())[0]
    if (
        len(first.split()) > MAX_REPLY_WORDS
        or first.rstrip().endswith("?")
        or speech.is_question(first)
        or speech._talk_request(first)
    ):
        return ""
    return first


_NUMBERED_POINT = re.compile(r"(?:^|(?<=\s))(?P<n>[1-9])[.)](?!\d)")


def numbered_reply(prompt: str) -> bool:
    """ "1. the file only appears later 2. logs stop …": a reply in numbered points of several
    words each answers point by point; it does not pick option 1."""
    text = prompt.strip()
    points = list(_NUMBERED_POINT.finditer(text))
    if len({p.group("n") for p in points}) < 2:
        return False
    return len(text[points[0].end() : points[1].start()].split()) >= 4


@lru_cache(maxsize=32)
def _line_of(key: str) -> re.Pattern[str]:
    return re.compile(_LINE.format(key=re.escape(key)), re.I | re.M)


def option_line(assistant: str, key: str) -> str:
    """The whole last line of the agent's text that offers option ``key``, markdown removed."""
    rx = _line_of(key)
    tail = assistant[-6_000:]
    found = list(rx.finditer(tail))
    if not found:
        return ""
    line = tail[found[-1].start() :].split("\n", 1)[0]
    return " ".join(unmark(line, "#|", " ").split())


def headline(title: str) -> str:
    """ "Keep it local (current state - useful…)" → "Keep it local"."""
    return re.split(r"[(:—–]|\s-\s", title, maxsplit=1)[0]


def echoed(prompt: str, options: dict[str, str], assistant: str = "") -> str | None:
    """The key of the one option whose words a short reply repeats ("temp log to console"
    after "1. Log to console 2. Log to CSV files"): its whole headline, or two words of its
    line; ``None`` when two options tie, or when the agent's message asks nothing: a list it
    closes with "let me know when you've pushed" is the steps it will take, and a reply that
    repeats one of them ("check if things look correct") picks nothing."""
    if assistant and not asks(assistant):
        return None
    first = _first_clause(prompt)
    mine = _words(first)
    if not mine or _NEGATED.search(
        re.sub(rf"^\s*{acts.alternation('refusal')}[,!.]\s*", "", first, flags=re.I)
    ):
        return None  # "never commit without signing" rejects the option it repeats
    lines = {k: option_line(assistant, k) or v for k, v in options.items()}
    scores = {k: len(mine & _words(v)) for k, v in lines.items()}
    ranked = sorted(scores.values(), reverse=True)
    best = max(scores, key=lambda k: scores[k])
    if not ranked[0] or len(ranked) > 1 and ranked[1] == ranked[0]:
        return None
    head = _words(headline(options[best]))
    return best if ranked[0] >= 2 or head and head <= mine else None


# A short heading the agent puts before its question.
_QUESTION_LEAD = re.compile(r"^(?:[\w'-]+\s+){0,3}[\w'-]+:\s+(?=\S)")
# A question about what has happened ("Have you created the repo yet, or should I wait?") asks
# for a fact; its "or" offers no choice between ways of doing something.
_WHO = r"(?:you|they|we|it)"
_ASKS_FACT = re.compile(rf"^(?:have|has|had)\s+{_WHO}\b|^did\s+{_WHO}\s+(?!mean\b)", re.I)


def alternatives(assistant: str) -> tuple[list[str], str]:
    """The sides of the agent's last "A, or B?" question, and the question itself."""
    tail = assistant[-800:].rstrip()
    found = questions_in(tail)
    # The question must close the message: the agent is waiting for this answer.
    if not found or len(tail) - found[-1].end() > 300:
        return [], ""
    q = found[-1].group(0).strip(" *_>-")
    offered = _offered_instead(tail, found)
    if offered:
        return offered
    said = q.rstrip("?")
    if not re.search(r"\bor\b", q, re.I) and _CHOOSE_Q.search(q):
        # "I could keep it in Redis or in Postgres. What do you prefer?": the sides are in the
        # statement the preference question closes.
        prev = re.findall(r"[^.!?\n]+[.!]", tail[: found[-1].start()])
        said = prev[-1].strip().rstrip(".!") if prev else ""
        q = f"{said}. {q}" if said else q
    said = _QUESTION_LEAD.sub("", said)  # "Question for you: …", "Next step: …"
    if not re.search(r"\bor\b", said, re.I) or len(q.split()) < 4 or _ASKS_FACT.match(said):
        return [], ""
    sides = re.split(r",?\s+\bor\b\s+", _ASK_LEAD.sub("", said), maxsplit=1, flags=re.I)
    sides = [_ASK_LEAD.sub("", s).strip(" ,") for s in sides if s.strip()]
    if sides and re.match(r"(?:which|what)\b", sides[0], re.I):
        # "Which network should I use, devnet or mainnet?": the first side follows the lead
        sides[0] = re.split(r"[,:]\s+", sides[0])[-1]
    return (sides if len(sides) == 2 else []), q


# A question followed by another way the agent offers: "What's the repository's URL? Or if
# you'd like me to work with the local folder instead, I can do that." (M-Thisness__M-Claude),
# "Shall I run the next season? Or would you like to review the runsheet first?"
# (saross__trap-extraction).
_OR_OFFER = re.compile(
    r"^\s*or,?\s+(?:(?:if|unless)\s+you(?:'d|\s+would)?\s+(?:like|prefer)|would you (?:like|prefer)"
    r"|do you want|should (?:i|we)|shall (?:i|we)|(?:i|we) (?:can|could))\s+(?:me\s+|us\s+)?(?:to\s+)?"
    r"(?P<offer>[^.!?,\n]{3,120})",
    re.I,
)


def _offered_instead(tail: str, found: list[re.Match[str]]) -> tuple[list[str], str] | None:
    """The two sides when the agent's closing question is followed, or answered in advance,
    by "Or …" offering another way: ([the question, the other way], both as said)."""
    last = found[-1]
    after = tail[last.end() :]
    offer = _OR_OFFER.match(after)
    question = last.group(0)
    if offer is None and len(found) > 1:
        # "Q? Or would you like …?": the offer is the closing question itself
        offer = _OR_OFFER.match(question)
        between = tail[found[-2].end() : last.start()]
        question = found[-2].group(0) if offer and not between.strip() else ""
    if offer is None or not question or re.search(r"\bor\b", question, re.I):
        return None
    first = _QUESTION_LEAD.sub("", question.strip(" *_>-").rstrip("?"))
    first = _ASK_LEAD.sub("", first).strip(" ,")
    other = re.sub(r"\s+instead$", "", offer.group("offer").strip(), flags=re.I)
    if len(first.split()) < 2 or len(other.split()) < 2 or _ASKS_FACT.match(first):
        return None
    return [first, other], f"{question.strip()} {offer.group(0).strip()}"


def picked_alternative(prompt: str, assistant: str) -> tuple[str, str] | None:
    """(chosen side, question) when a short reply repeats the words of one side only."""
    sides, question = alternatives(assistant)
    if not sides:
        return None
    first = _first_clause(prompt)
    # A reply that asks for work is a task ("yes, apply the enhancements"), not a choice.
    if not first or speech.task_phrase(first):
        return None
    mine = _words(first)
    scores = [len(mine & _words(s)) for s in sides]
    if min(scores) > 0 or max(scores) == 0:
        return None  # neither side, or both ("commit, push, reply" to "commit, or reply?")
    side = sides[scores.index(max(scores))]
    if _OPEN_ENDED.search(side):
        return None  # "…, or anything else?" offers nothing to choose
    label = " ".join(unmark(side).split()[:8])
    return (label[:1].upper() + label[1:], question) if len(label.split()) >= 2 else None


_OPEN_ENDED = re.compile(r"\b(?:anything|something|everything) else\b", re.I)


_NEGATED = re.compile(r"\b(?:never|not|no|don'?t|do not|doesn'?t|won'?t)\b", re.I)
# Any option headline of the agent's text, in any block ("### Option 3: Use PowerShell GPG").
_ANY_OPTION = re.compile(
    r"^\s*(?:[-*|]\s*)?(?:#{1,4}\s*)?(?:\*\*)?\s*(?:option|approach|choice)?\s*"
    r"(?:[A-Ea-e]|[1-9])\s*[.):—–-]\s*(?:\*\*)?\s*(?P<title>[^\n|]{3,160})",
    re.M | re.I,
)


@lru_cache(maxsize=1024)
def _initials(word: str) -> str:
    """ "PowerShell" → "ps", "JavaScript" → "js": the capitals of a compound name."""
    caps = re.findall(r"[A-Z]", word)
    return "".join(caps).lower() if len(caps) >= 2 and not word.isupper() else ""


def _abbreviates(short: str, word: str) -> bool:
    s, w = short.lower(), word.lower()
    return s != w and (len(s) >= 3 and w.startswith(s) or s == _initials(word))


def expanded_option(phrase: str, assistant: str) -> str | None:
    """The headline of the one option of the agent's text that ``phrase`` abbreviates ("ps GPG
    alt" → "Use PowerShell GPG (Alternative)"): each of its words is a word of the headline,
    its start, or its initials, and at least one is shortened."""
    mine = [w for w in re.findall(r"[\w-]+", phrase) if w.lower() not in ("use", "the", "a")]
    if len(mine) < 2:
        return None
    found: list[str] = []
    for m in _ANY_OPTION.finditer(assistant[-8_000:]):
        title = " ".join(unmark(m.group("title"), "#", " ").split()).strip(" :")
        theirs = re.findall(r"[\w-]+", title)
        exact = [w for w in mine if w.lower() in (t.lower() for t in theirs)]
        short = [w for w in mine if w not in exact and any(_abbreviates(w, t) for t in theirs)]
        if short and len(exact) + len(short) == len(mine) and title not in found:
            found.append(title)
    return found[0] if len(found) == 1 else None


# The agent's closing question asks the person to choose ("What's your preference?", "Which
# approach?", "A, or B?").
_CHOOSE_Q = re.compile(r"\b(?:prefer|preference|which|rather|choose|pick|or)\b[^?\n]*\?", re.I)
_HEDGES = re.compile(
    r"\b(?:i (?:feel like|wonder if|guess|think)|maybe|perhaps|possibly|probably)\s+|"
    r"\s+for (?:now|the time being)\b|\s*\((?:or|maybe) [^)]*\)",
    re.I,
)


@lru_cache(maxsize=1)
def _asking_lead() -> re.Pattern[str]:
    """A line that asks and hands over to a list: "Would you like me to:", "Should I:"."""
    who = r"(?:you|i|we)"
    return re.compile(
        rf"^\W*(?:(?:{acts.alternation('modal')}|do|shall|should)\s+{who}|which)\b[^\n?]*:[*_\s]*$",
        re.I | re.M,
    )


def hands_over(text: str, at: int) -> bool:
    """Whether the line before a list that starts at ``at`` asks and hands over to it ("Would
    you like me to:", "**Ready to commit! Should I:**"): its items are what is offered, though
    each is put as a question."""
    line = text[max(0, at - 300) : at].rstrip().rsplit("\n", 1)[-1]
    return _asking_lead().search(re.split(r"[.!?]\s", line)[-1]) is not None


def _closing_question(assistant: str, window: int, within: int) -> str | None:
    """The last question of the agent's last ``window`` characters, when it ends fewer than
    ``within`` characters before the text's end."""
    tail = assistant[-window:].rstrip()
    found = questions_in(tail)
    return found[-1].group(0) if found and len(tail) - found[-1].end() < within else None


def asks(assistant: str) -> bool:
    """The agent's text waits for an answer: a question ends in its last 400 characters (a
    caveat may follow it), or a line before its closing list asks ("Would you like me to:")."""
    if _closing_question(assistant, 800, 400) is not None:
        return True
    return _asking_lead().search(assistant[-1_500:]) is not None


@lru_cache(maxsize=64)
def asks_to_choose(assistant: str) -> bool:
    """The agent's text ends on a question that asks the person to choose."""
    question = _closing_question(assistant, 400, 200)
    return question is not None and bool(_CHOOSE_Q.search(question))


def unhedged(sentence: str) -> str:
    """ "I wonder if we go with an array (or a map) for now" → "we go with an array": asked to
    choose, the person's hedges and second thoughts do not unmake the choice."""
    return " ".join(_HEDGES.sub(" ", sentence).split())


# A question over a list the agent just gave: "Want help installing one of these?".
_ONE_OF = re.compile(
    r"\b(?:one of (?:these|them|those|the above)|which (?:one|of (?:these|them)))\b"
)
# An item of that list: a line (list item, table row) that opens with a bold or linked name.
_ITEM = re.compile(
    r"^[ \t]*(?:\|[ \t]*|[-*•][ \t]+|\d{1,2}[.)][ \t]+)?(?:\*\*\[?|\[)(?P<name>[^\]*\n|]{2,60}?)(?:\]|\*\*)",
    re.M,
)


@lru_cache(maxsize=64)
def _listed_items(assistant: str) -> tuple[str, ...] | None:
    """The names the agent listed when it then asks about "one of these"; else ``None``."""
    tail = assistant[-4_000:]
    asks = questions_in(tail)
    if not asks or not _ONE_OF.search(asks[-1].group(0).lower()):
        return None
    return tuple(dict.fromkeys(m.group("name").strip() for m in _ITEM.finditer(tail)))


def named_item(prompt: str, assistant: str) -> tuple[str, list[str]] | None:
    """(the item, all the items) when a short reply names exactly one of the things the agent
    listed and then asked about ("install usage4claude" after a table of four apps and "Want
    help installing one of these?")."""
    names = _listed_items(assistant)
    if names is None:
        return None
    first = _first_clause(prompt).lower()
    said = [n for n in names if says(first, n.lower(), left="-", right="-")]
    return (said[0], list(names)) if len(names) >= 2 and len(said) == 1 else None


def quoted_back(prompt: str, assistant: str) -> bool:
    """The reply opens with a line of the agent's own text pasted back ("3. Attribute the delta
    to …") and goes on to say something about it: a quotation to discuss, not a pick."""
    lines = prompt.strip().split("\n", 1)
    first = " ".join(unmark(lines[0], "#>", " ").split()).strip()
    if len(first.split()) < 5 or len(lines) < 2 or len(lines[1].split()) < 3:
        return False
    theirs = " ".join(unmark(assistant[-8_000:], "#>", " ").split())
    return first.lower() in theirs.lower()
