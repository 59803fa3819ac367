"""Decisions and corrections stated in a sentence: what was chosen, and which earlier decision
(and entity) a correction replaces."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rolling_graph.core.slug import normalize_term
from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline import acts, clauses, speech
from rolling_graph.probe.offline.entities import useful
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import (
    RECENT_DECISION_TURNS,
    Plan,
    clip,
    kind_of,
    label_of,
)

USE_WORDS = re.compile(r"\b(?:use|uses|used|using|with|via|through)\b", re.I)
_VERBS = r"(?:go with|use|using|switch(?:ing)? (?:over )?to|stick with|pick|adopt|move to|migrate to|try)"
# "let's use X", "we'll go with X", "switch to X", "decided on X", "X instead"
_DECISION_OBJ = [
    re.compile(
        r"\b(?:let'?s|let us|we(?:'ll| will| should| are going to|'re going to)|"
        r"i(?:'ll| will|'m going to| am going to| want to| prefer to|'d rather)|decided to|"
        r"plan is to|please)\s+" + _VERBS + r"\s+(?P<obj>" + speech.PHRASE_CHAR + r"{1,80})",
        re.I,
    ),
    re.compile(
        r"\b(?:decided on|decision is|go with|switch(?:ing)? to|stick with)\s+(?P<obj>"
        + speech.PHRASE_CHAR
        + r"{1,80})",
        re.I,
    ),
    re.compile(
        r"(?:^|[,;:]\s*|\b(?:actually|no|rather|wait)[,!]?\s+)(?:use\s+)?(?P<obj>[\w.@/+-]+(?:\s+[\w.@/+-]+)?)\s+instead\b",
        re.I,
    ),
]
# "the plan is to ship on Friday", "we decided to drop the cache"
_DECISION_CLAUSE = re.compile(
    r"\b(?:the plan is to|plan is to|(?:we|i) decided to|decided to|we(?:'ll| will) now)\s+(?P<clause>"
    + speech.PHRASE_CHAR
    + r"{3,80})",
    re.I,
)
_NEGATED_OBJ = re.compile(
    rf"\b(?:not|{acts.alternation('replacing')}|no longer|drop|stop using)\s+(?P<obj>[\w.@/+-]+)",
    re.I,
)


_STOP_OBJ = frozenset(
    [
        "it",
        "this",
        "that",
        "them",
        "these",
        "those",
        "the",
        "a",
        "an",
        "one",
        "something",
        "anything",
        "everything",
        "same",
        "other",
        "approach",
        "way",
        "thing",
        "option",
        "version",
        "instead",
    ]
)


_CUT_OBJ = frozenset(
    [
        "instead",
        "for",
        "to",
        "because",
        "as",
        "in",
        "on",
        "with",
        "since",
        "so",
        "and",
        "but",
        "rather",
    ]
)


def _decision_label(obj: str, ents: list[Any]) -> str | None:
    """'Resend for email' → 'Use Resend' (the named entity), else the first words of the phrase."""
    obj = obj.strip(" '\"`")
    opener = rf"(?:{acts.assent()}|{acts.alternation('refusal')}|{acts.alternation('correcting')}|so|then|hm+)"
    obj = re.sub(rf"^(?:{opener}[,!]?\s+)+", "", obj, flags=re.I)
    for ent in ents:
        if ent.norm and ent.norm in normalize_term(obj) and useful(ent):
            return f"Use {ent.text}"
    words: list[str] = []
    for w in re.findall(r"[\w.@/+-]+", obj)[:4]:
        if w.lower() in _CUT_OBJ:
            break  # "SQLite instead", "Redis for the cache": the object ends here
        words.append(w)
    if not words or words[0].lower() in _STOP_OBJ:
        return None
    return "Use " + " ".join(words)


# "I'll host it on render.com", "…, we'll keep both": the person's own plan stated as a fact,
# the subject opening its clause (not "a branch which we'll merge"); no copula, no negation.
_OWN_PLAN = re.compile(
    r"(?:^|[,;:]\s+|\b(?:and|so|then)\s+)(?:i|we)\s*(?:'ll|will|shall)\s+"
    r"(?!not\b|never\b|be\b|have to\b|need\b)(?P<verb>[a-z]+)\s+(?P<obj>[^.;!?\n]{2,80})",
    re.I,
)


# A condition the plan after it depends on: "if not, …", "If that becomes the case, …".
_CONDITION = re.compile(r"\b(?:if|unless|in case)\b", re.I)


def own_plan(sentence: str) -> tuple[str, str] | None:
    """(label, object) when the sentence states what the person will do ("i will host it on
    render.com now" → "Host it on render.com"); ``None`` for questions."""
    s = speech.strip_code(sentence).strip()
    if not s or speech.is_question(s):
        return None
    # a plan to deliberate ("we'll see", "we'll decide how to proceed") chooses nothing
    plans = (x for x in _OWN_PLAN.finditer(s) if x["verb"].lower() not in acts.words("deliberate"))
    m = next(plans, None)
    if not m or _CONDITION.search(s[: m.start()]):
        return None  # "if not, we'll plan the QA": a plan on a condition commits to nothing
    if re.match(r"(?:you|u)\b", m.group("obj"), re.I):
        return None  # "then I'll give you more guidance": what the person does for the agent
    obj = clauses.clause(m.group("obj"), 7)
    obj = re.sub(r"\s+(?:now|then|later|today|soon)$", "", obj, flags=re.I)
    if not obj:
        return None
    verb = m.group("verb").lower()
    if speech.errand(verb, obj):  # "I will do the commit": work the person will do, no choice
        return None
    return f"{verb[:1].upper()}{verb[1:]} {obj}", obj


# "name the command /share:publish", "call it Tide Tables": what something is to be called.
_NAMING = re.compile(
    r"^(?:(?:let'?s|lets|please|and|so)\s+)?(?P<verb>name|call|title)\s+"
    r"(?P<what>it|this|that|them|(?:the|our|this|my|that)\s+[\w-]+)\s+"
    r"(?:as\s+)?(?P<name>[\"'`“]?[^\s\"'`”]+(?:\s+[^\s\"'`”]+){0,3}[\"'`”]?)\s*[.!]?$",
    re.I,
)


def naming(sentence: str) -> tuple[str, str] | None:
    """(label, name) when the sentence gives something its name; the name must look like one
    (quoted, code, capitals, or with / - _ . :), so "call the API twice" names nothing."""
    s = " ".join(speech.strip_code(sentence).split()).strip(" -*")
    m = _NAMING.match(s)
    if not m or not re.search(r"[\"'`“A-Z/_.:-]|\d", m.group("name")):
        return None
    verb, name = m.group("verb").lower(), m.group("name").rstrip(".!")
    return f"{verb[:1].upper()}{verb[1:]} {m.group('what')} {name}", name


# "begin execution (with Sonnet 4.6)", "deploy it (via Fly.io)": the means of a request, set
# apart in parentheses, is a choice.
_MEANS = re.compile(r"\((?:with|using|via|through)\s+(?P<what>[^()]{2,40})\)", re.I)


def means(sentence: str) -> tuple[str, str] | None:
    """("Use X", X) for a parenthetical "(with X)" naming something (capitals or digits)."""
    m = _MEANS.search(speech.strip_code(sentence))
    what = m.group("what").strip() if m else ""
    if not what or not re.search(r"[A-Z0-9]", what) or len(what.split()) > 4:
        return None
    return f"Use {what}", what


def _unbalanced(text: str) -> bool:
    return text.count('"') % 2 == 1 or text.count("(") != text.count(")")


def whole_clause(text: str, limit: int = 10) -> str:
    """The first clause of ``text``, cut only outside quotes and parentheses ('same template
    for "Day", "Night"' → 'same template for "Day"'), at most ``limit`` words unless a quote or
    parenthesis is still open."""
    depth, quoted, words, out = 0, False, 0, []
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        outside = depth == 0 and not quoted
        nxt = text[i + 1 : i + 2]
        if outside and ch in ",;:.!?" and (nxt == "" or nxt.isspace()):
            break
        if ch.isspace() and (not out or not out[-1].isspace()):
            words += 1
            if words >= limit and outside:
                break
        out.append(ch)
    return "".join(out).strip()


def unclipped(label: str, obj: str, sentence: str) -> tuple[str, str] | None:
    """A decision label cut inside a quote or a parenthesis, made whole from the sentence; and
    ``None`` for "I want each client (…) to have its own log": an object with an infinitive is a
    request for work, not a choice."""
    at = sentence.find(obj.strip("\"' "))
    lost = at > 0 and sentence[at - 1] == '"' and not obj.startswith('"')
    at -= 1 if lost else 0  # the object opens with a quote the label lost
    rest = sentence[at:] if at >= 0 else obj
    if label.startswith("Have ") and re.match(r"^[^.;!?]*?\S\s+to\s+[a-z]+\b", rest):
        return None
    if label.count("`") % 2:  # "Use gh` to authenticate": code marks are not words
        label, obj = label.replace("`", ""), obj.replace("`", "")
    if not (lost or _unbalanced(label)) or at < 0:
        return label, obj
    whole = whole_clause(rest)
    lead = label[: max(0, len(label) - len(obj))]
    return (lead + whole, whole) if whole else (label, obj)


def live_decisions(plan: Plan, turn: int) -> list[str]:
    """Decisions a correction may replace, most recent first (this patch's own come first)."""
    superseded = {t for _, r, t in plan.req.edges if r == "supersedes"}
    old = [
        n
        for n in plan.req.nodes
        if n.kind == "decision"
        and not n.superseded
        and n.id not in superseded
        and turn - n.last_activated <= RECENT_DECISION_TURNS
    ]
    old.sort(key=lambda n: (-n.last_activated, -n.weight, n.id))
    return list(reversed(plan.decisions)) + [n.id for n in old if n.id not in plan.decisions]


def decisions_in(sentence: str, ents: list[Any]) -> list[tuple[str, str]]:
    """(label, matched object text) for each decision the sentence states."""
    found: list[tuple[str, str]] = []
    for rx in _DECISION_OBJ:
        for m in rx.finditer(sentence):
            label = _decision_label(m.group("obj"), ents)
            if label and label not in (f for f, _ in found):
                found.append((label, m.group("obj")))
    if not found:
        m = _DECISION_CLAUSE.search(sentence)
        if m:
            words = m.group("clause").split()[:6]
            if words and words[0].lower() not in _STOP_OBJ:
                found.append((" ".join(words)[:1].upper() + " ".join(words)[1:], m.group("clause")))
    return found


def replace_entities(
    plan: Plan, req: ProbeRequest, old: str, obj: str, ids: list[str], reason: str
) -> None:
    """ "Bento instead of Resend": the thing the new decision names supersedes the thing only
    the old decision named, so the old one is retired like its decision (hidden in renders
    except as "Bento (supersedes Resend)", weakened once by the engine), never deleted."""
    old_label = f" {normalize_term(plan.new.get(old, {}).get('label', '') or label_of(req, old))} "
    new_obj = f" {normalize_term(obj)} "
    chosen, dropped = [], []
    for e_id in ids:
        if e_id == old or kind_of(plan, req, e_id) == "decision":
            continue
        lab = normalize_term(plan.new.get(e_id, {}).get("label", "") or label_of(req, e_id))
        if not lab:
            continue
        if f" {lab} " in new_obj:
            chosen.append(e_id)
        elif f" {lab} " in old_label:
            dropped.append(e_id)
    if len(chosen) == 1 and len(dropped) == 1:
        plan.edge(chosen[0], "supersedes", dropped[0], f"chosen instead of it in {reason}")


def replaced(
    plan: Plan, req: ProbeRequest, sentence: str, new_id: str, candidates: list[str]
) -> str | None:
    """The decision a correction replaces: one whose object the sentence negates or names, else
    the most recent live decision."""
    candidates = [c for c in candidates if c != new_id]
    if not candidates:
        return None
    negated = {normalize_term(m.group("obj")) for m in _NEGATED_OBJ.finditer(sentence)}
    named = normalize_term(sentence)
    for c in candidates:
        label = normalize_term(
            plan.new.get(c, {}).get("label", "") or label_of(req, c)
        ).removeprefix("use ")
        if label and (label in negated or any(label.startswith(x) for x in negated if x)):
            return c
    for c in candidates:
        label = normalize_term(
            plan.new.get(c, {}).get("label", "") or label_of(req, c)
        ).removeprefix("use ")
        if label and f" {label} " in f" {named} ":
            return c
    # Same subject: the old decision shares a content word or its slot ("for the cache") with
    # the new one; else only a decision of the last few turns ("actually, …" right after it).
    new_label = plan.new.get(new_id, {}).get("label", "") or label_of(req, new_id)
    mine = subject_words(new_label) | subject_words(sentence)
    for c in candidates:
        theirs = subject_words(plan.new.get(c, {}).get("label", "") or label_of(req, c))
        if theirs & mine:
            return c
    recent = candidates[0]
    view = req.node(recent)
    if recent in plan.new or (view is not None and req.turn - view.last_activated <= 2):
        return recent
    return None


_SUBJECT_STOP = frozenset(
    [
        "use",
        "using",
        "the",
        "a",
        "an",
        "for",
        "of",
        "to",
        "in",
        "on",
        "with",
        "and",
        "or",
        "it",
        "this",
        "that",
        "we",
        "our",
        "my",
        "be",
        "is",
        "are",
        "not",
        "instead",
        "rather",
        "than",
        "actually",
        "no",
        "yes",
        "let",
        "lets",
        "keep",
        "have",
        "make",
        "do",
    ]
)


def subject_words(text: str) -> set[str]:
    """Content words, crudely stemmed ("caching" ~ "cache"): what a decision is about."""
    out = set()
    for w in normalize_term(text).split():
        if w in _SUBJECT_STOP or len(w) < 3:
            continue
        for suf in ("ing", "es", "s", "e", "ed"):
            if w.endswith(suf) and len(w) - len(suf) >= 3:
                w = w[: -len(suf)]
                break
        out.add(w)
    return out


# Function words (pronouns, auxiliaries, determiners, prepositions): English grammar, they say
# nothing about which option is meant.
_FUNCTION = frozenset(
    """you your yours i me my mine we us our they them their it its this that these those the
    and but for from with into onto about over under then than also just only can could would
    should will shall may might must does did has have had was were are is been being not all
    any some each one what which who how why when where there here please let lets yes yeah
    okay sure""".split()  # noqa: SIM905
)


def content_words(text: str) -> set[str]:
    """:func:`subject_words` without function words (dropped before stemming)."""
    return subject_words(" ".join(w for w in normalize_term(text).split() if w not in _FUNCTION))


# An offer that names no work of its own: "Want me to fix this?", "Shall I go ahead?".
_VAGUE_OFFER = re.compile(r"^\s*(?:\w+\s+){0,2}(?:this|that|it|them|these|ahead)\s*$", re.I)
# The agent's account of what it would do: a conditional or future statement.
_WOULD = re.compile(r"\b(?:would|will|'d|'ll)\b", re.I)


# Its subject and "would", before the work: "The fix would compare …" (the label rules read
# "I'd say just …" themselves).
@lru_cache(maxsize=1)
def _would_lead() -> re.Pattern[str]:
    return re.compile(
        rf"^{acts.alternation('determiners')}\s+(?:[\w-]+\s+){{1,2}}"
        r"(?:would|will)\s+(?:(?:also|then|just|first)\s+)?(?=[a-z])",
        re.I,
    )


def approved_offer_detail(plan: Plan, tail: str, what: str, end: int, reason: str) -> str | None:
    """ "yes" to "Want me to fix this? The fix would compare against the base": an offer that
    names no work approves the statement that spells it out (the one after the offer, else the
    last before it), when that statement says what would be done."""
    if not _VAGUE_OFFER.match(what):
        return None
    after = [s for s in re.split(r"(?<=[.!?])\s+|\n+", tail[end:]) if len(s.split()) >= 4]
    before = [s for s in re.split(r"(?<=[.!?])\s+|\n+", tail[: end - len(what)]) if s.strip()]
    for detail in after[:1] or before[-2:-1]:
        plain = unmark(detail, "#|>", " ").strip(" -")
        if not _WOULD.search(plain) or plain.endswith("?"):
            continue
        work = clauses.clause(plain, 10)
        work = _would_lead().sub("", work) or work  # the work, not who would do it
        return plan.decision(
            f"Approved: {work[:1].upper()}{work[1:]}",
            f"the person approved what the agent's offer spelled out: {reason}",
            clip(plain, 190),
        )
    return None
