"""The person's own proposal among alternatives: a clause that names what it replaces ("…, and
keep the old flag instead"), or a counter-proposal put as "can we …" when the agent asked the
person to choose ("Which approach?" → "can we cache the token for the whole session"). Pure
functions over text: (label, object) pairs like :func:`speech.decision_phrase`.
"""

from __future__ import annotations

import re

from rolling_graph.probe.offline import clauses, speech
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import Plan, clip

# One clause: "we can just drop this", "and mark the stale ones instead".
_JOIN = r"(?:and|but|so|then)"  # what opens the next clause
_CLAUSES = re.compile(rf",\s+{_JOIN}?\s*|;\s+|\s+[-—–]\s+|\s+and\s+(?=\w+\s+\w+)")
_INSTEAD = re.compile(
    rf"^{speech.PREAMBLE}(?:{_JOIN}\s+)?(?:i (?:think|guess|feel like)\s+)?"
    r"(?P<lead>(?:we|you)\s+(?:can|could|should|'ll|will)\s+|let'?s\s+|lets\s+)?"
    r"(?:just\s+|simply\s+|rather\s+)?(?P<verb>[a-z]+)\s+(?P<obj>\S.{1,60}?)\s+instead\W*$",
    re.I,
)
_COUNTER = re.compile(
    rf"^{speech.PREAMBLE}(?:can|could)\s+we\s+(?:just\s+|also\s+)?(?P<verb>[a-z]+)\s+(?P<obj>\S.{{2,}})$",
    re.I,
)
_NOT_VERBS = frozenset(["not", "be", "have", "get", "do", "go", "the", "a", "an", "also"])
_POINTERS = frozenset(["it", "this", "that", "them", "these", "those", "so", "one"])


def instead(sentence: str) -> tuple[str, str] | None:
    """("Mark the stale ones instead", object) when a clause of the sentence does something
    in place of something else: the choice names its alternative."""
    s = " ".join(speech.strip_code(sentence).split())
    if not s or speech.is_question(s):
        return None
    for part in _CLAUSES.split(s):
        m = _INSTEAD.match(part.strip())
        if not m:
            continue
        verb, obj = m.group("verb").lower(), m.group("obj").strip()
        # A bare imperative must open with a verb of work; after "we can", "let's" it is one.
        if not m.group("lead") and verb not in speech.WORK_VERBS | {"use", "keep", "leave"}:
            continue
        if verb in _NOT_VERBS:
            continue
        if obj.lower() in _POINTERS:
            continue
        return f"{verb[:1].upper()}{verb[1:]} {obj} instead", obj
    return None


def counter_proposal(sentence: str) -> tuple[str, str] | None:
    """("Cache the token for the whole session", object) for "can we …" said as a statement
    (no question mark): asked to choose, the person proposes an alternative of their own."""
    s = " ".join(speech.strip_code(sentence).split()).rstrip(" .!")
    m = _COUNTER.match(s)
    if not m or s.endswith("?"):
        return None
    verb = m.group("verb").lower()
    if verb in _NOT_VERBS:
        return None
    obj = clauses.clause(m.group("obj"), 14)
    if not obj or obj.split()[0].lower() in _POINTERS:
        return None
    return f"{verb[:1].upper()}{verb[1:]} {obj}", obj


# What every relative clause of :func:`in_relative_clause` opens with: a sentence without it is
# not searched for the clause that ends on the choice's words (a pattern built per choice).
_RELATIVE_OPEN = r"\b(?:which|that|who|whom|where)\s+(?:we|i|you)"
_RELATIVE = re.compile(_RELATIVE_OPEN, re.I)


def in_relative_clause(sentence: str, obj: str) -> bool:
    """The choice's words sit in a relative clause ("make a branch which we'll merge to main"):
    they describe a thing of the sentence, the person decides nothing by them."""
    head = " ".join(obj.split()[:3])
    if not head or _RELATIVE.search(sentence) is None:
        return False
    rx = (
        _RELATIVE_OPEN + r"\s*(?:'ll|'d|will|would|should|can|could|are going to|'re going to)?\s+"
        rf"(?:\w+\s+){{0,2}}{re.escape(head)}"
    )
    return bool(re.search(rx, " ".join(sentence.split()), re.I))


# "make sure X", "make certain X": an instruction to ensure something (a task or a rule).
_ENSURE = re.compile(r"^(?:make|making)\s+(?:sure|certain)\b", re.I)


def not_a_choice(sentence: str, label: str, obj: str) -> bool:
    """A decision phrase that chooses nothing: its words sit in a relative clause, or it asks
    to make sure of something ("let's make sure we log the changes")."""
    return bool(_ENSURE.match(label)) or in_relative_clause(sentence, obj)


# "so the sort would need to be something like", "the export format should look like this:":
# a thing of the work, said how it is to be, with the items of a list after it.
_SPEC_LEAD = re.compile(
    rf"^{speech.PREAMBLE}(?:so\s+|and\s+)?(?:the|our|this|that)\s+[\w-]+(?:\s+[\w-]+)?\s+"
    r"(?:should|would|must|will|needs? to|has to)(?:\s+(?:need|have)\s+to)?\s+(?:be|look|work|read)\b"
    r"[^.?!]*?(?::|\blike(?:\s+this)?:?)$",
    re.I,
)
_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+(?P<item>\S.*)$")


def spec_items(text: str) -> list[tuple[str, str]]:
    """(item, lead) for each list item that spells out how a thing is to be ("the sort would
    need to be something like" then "- group by checkpoint"): the person's design, item by item."""
    out: list[tuple[str, str]] = []
    lead = ""
    for line in text.splitlines():
        m = _ITEM.match(line)
        if m and lead:
            item = " ".join(m.group("item").split())
            if not item.endswith("?") and len(item.split()) <= 14:
                out.append((item, lead))
            continue
        lead = line.strip() if _SPEC_LEAD.match(line.strip()) else ""
    return out


# "I'd say just go ahead with the rewrite", "my vote is the second layout": the person's choice
# said as their opinion.
_SAY = re.compile(
    rf"^{speech.PREAMBLE}(?:i'?d say|i say|i'?d vote for|i vote for|my vote(?: is| goes to)?|"
    r"i'?d pick|i'?d choose)\s+(?:that\s+)?(?P<we>we\s+(?:should\s+)?)?(?:just\s+)?(?P<rest>\S.{2,})$",
    re.I,
)


def opinion_choice(sentence: str) -> tuple[str, str] | None:
    """(label, object) for a choice put as the person's opinion: "I'd say go ahead with X" →
    "Go ahead with X"; "my vote is X" → "Use X"."""
    s = " ".join(speech.strip_code(sentence).split()).rstrip(" .!")
    m = _SAY.match(s)
    if not m or s.endswith("?"):
        return None
    rest = clauses.clause(m.group("rest"), 10)
    first = rest.split()[0].lower() if rest else ""
    if len(rest.split()) < 2 or first in ("not", "no", "yes"):
        return None
    if re.match(r"(?:it|this|that|they|there|he|she|you|i|we|these|those)(?:'\w+)?$", first):
        return None  # "I'd say it's fine": an opinion about something, no choice
    if (
        m.group("we")
        or first in speech.WORK_VERBS
        or re.match(r"(?:go ahead|proceed|stick|go)\b", rest, re.I)
    ):
        return rest[:1].upper() + rest[1:], rest
    return f"Use {rest}", rest


PROPOSAL_Q = re.compile(
    r"(?:(?:does|do|would) (?:this|that|these|it|the [\w-]+(?: [\w-]+)?) (?:look|sound|seem|work|match)|"
    r"sounds? (?:good|right|reasonable)|looks? (?:good|right)|makes? sense|"
    r"(?:shall|should|can) (?:i|we) (?:proceed|continue|go ahead|start)|ready to (?:proceed|implement)|"
    r"any (?:changes|concerns|thoughts|adjustments)|(?:is|are) (?:this|that|these) (?:ok|okay|right|correct|what you))"
    r"[^?\n]{0,60}\?",
    re.I,
)
_HEADLINE = re.compile(r"^\s*(?:#{1,4}\s+(?P<h>[^\n]{3,120})|\*\*(?P<b>[^*\n]{3,100})\*\*)", re.M)


def approved_proposal(plan: Plan, assistant: str, reason: str) -> str | None:
    """ "yes" / "looks good" after "Does this look right?": the agent's proposal is decided."""
    tail = assistant[-2_500:]
    q = list(PROPOSAL_Q.finditer(tail))
    if not q:
        return None
    body = tail[: q[-1].start()].rstrip()
    heads = [m.group("h") or m.group("b") for m in _HEADLINE.finditer(body)]
    # A heading that ends in a colon leads a section of the explanation ("**The strategy's
    # role:**", entireio__cli); a title names the proposal ("**Invoice numbering**").
    titles = [unmark(h, "#", " ").strip() for h in heads if h and not h.rstrip(" *").endswith(":")]
    heads = [unmark(h, "#:", " ").strip() for h in heads if h]
    paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    gist = " ".join(paras[-2:]) if paras else ""
    steps = re.findall(r"^\s*(?:\d{1,2}[.)]|[-*])\s+(.+)$", tail[q[-1].end() :], re.M)
    headline = heads[-1] if heads else clauses.clause(unmark(gist, "#|", " "), 10)
    if len(steps) >= 2:  # "Does that match? If so, I'll: 1. … 2. …": the steps are approved,
        # under the proposal's title, else led by the first step
        gist = " ".join(f"{i}. {x.strip()}" for i, x in enumerate(steps, 1))
        headline = titles[-1] if titles else clauses.clause(unmark(steps[0], "#|", " "), 10)
    if not headline or len(headline.split()) < 2:
        return None
    return plan.decision(
        f"Approved: {headline}",
        f"the person approved the agent's proposal: {reason}",
        clip(re.sub(r"[*`#|]+|(?<!\w)_+|_+(?!\w)", " ", gist), 190),  # keeps a_b
    )
