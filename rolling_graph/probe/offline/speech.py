"""What a sentence of the person's does: asks for work (a task), chooses (a decision), states a
requirement or a deadline, names a colleague, or talks about their own life (an aside).

Pure functions over text, no graph: the rules in :mod:`rolling_graph.probe.offline.intent` turn
their findings into patch ops. The rules read the shape of the language (imperatives, modal
verbs, "let's", "by <date>", "<Name> from the <team> team"), never particular words of one
session.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.probe.offline import acts
from rolling_graph.probe.offline.clauses import clause

# Assent and lead-in words before what a sentence says ("ok so, …", "hmm, also …"): the
# lexicon's classes (assent, assent_apart, lead_in), "hmmm" too.
# Lead-in words, and a heading that names the act ("Decided: keep cron for now") or the kind of
# message ("Q: …", "FYI: …")
PREAMBLE = (
    rf"(?:(?:{acts.assent()}|{acts.alternation('lead_in')}|hm+)\b[,!.:]?\s+"
    rf"|(?:{acts.alternation('act_heading')}|{acts.alternation('message_tag')})\s*:\s+)*"
)
# Modal verbs that ask something of the agent: "can you …", "would you …"
_MODAL = acts.alternation("modal")
LEAD = (
    r"(?:let'?s|lets|let us|we need to|we should|we have to|we must|i need you to|i want you to|"
    r"i'?d like you to|i would like you to|you (?:should|need to|can)|go ahead and|"
    rf"{_MODAL} you(?: please)?|please|pls|try to|make sure to|"
    r"i (?:think|guess|feel like) (?:we should|let'?s|you should))\s+"
)
# A sentence that opens with one of these asks for work (lexicon class work_verbs).
WORK_VERBS = frozenset(acts.words("work_verbs"))
_CHOICE_VERBS = (
    r"go with|use|using|switch(?:ing)? (?:over )?to|stick with|stay with|pick|choose|opt for|"
    r"adopt|move to|migrate to|prefer|settle on|standardi[sz]e on"
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|what if|how about|could we|should we|shall we|would it|"
    r"do you think|i wonder|not sure|possibly|consider(?:ing)?|any chance)\b",
    re.I,
)
_TEMPORARY = re.compile(
    r"\bfor (?:a (?:bit|while|moment|minute|sec(?:ond)?)|now)\b|\bbriefly\b|\bquickly\b", re.I
)
_QUESTION_START = re.compile(
    r"^(?:what|why|how|where|when|who|whom|which|is|are|was|were|does|do|did|has|have|had|"
    r"should|shall|would|will|can|could|isn'?t|aren'?t|doesn'?t|don'?t|am)\b",
    re.I,
)
# A character of a phrase up to its clause's end: a full stop or comma inside a word stays
# ("Python 3.8", "pyproject.toml", "1,000 rows").
PHRASE_CHAR = r"(?:[^.,;!?\n]|[.,](?=[^\s.,;!?]))"
# ... and up to its sentence's end (commas in).
SENTENCE_CHAR = r"(?:[^.;!?\n]|\.(?=[^\s.;!?]))"
# An imperative choice ("use memcached for the cache", "go with B", "I'd stick with SQLite").
_CHOICE = re.compile(
    rf"^{PREAMBLE}(?:(?:i|we)(?:'d| would)(?: rather)? |i prefer to |actually,? |instead,? )?"
    rf"(?P<verb>{_CHOICE_VERBS})\s+(?P<obj>{PHRASE_CHAR}{{1,80}})|\bgo with\s+(?P<obj2>{PHRASE_CHAR}{{1,60}})",
    re.I,
)
_COMMIT = re.compile(
    r"\b(?:let'?s|lets|let us|we(?:'ll| will| should| are going to|'re going to| want to)|"
    r"i(?:'ll| will|'m going to| want to| prefer to|'d rather| think we should| think let'?s)|"
    r"decided to|plan is to)\s+(?P<verb>keep|store|have|make|do|leave|put|use|go with|"
    r"switch to|stick with|pick|choose|drop|skip|bump|roll back|revert|move|default to|"
    r"treat|name|call|split|merge|return|send|expose|go for|limit|defer|postpone|mark|target|"
    r"support|allow|require|rely on|base it on|build on|wait|hold off on|ship|cap|restrict|"
    r"scope|also keep|also store|also track|also record|only|just|not)\s+(?P<obj>"
    + SENTENCE_CHAR
    + r"{1,70})",
    re.I,
)
# What opens a clause preferred ("I'd prefer [that] we …", "I'd prefer to …"), not a thing.
_PREFERRED = re.compile(r"(?:that\s+)?(?:we|i)\s+|to\s+", re.I)
# "Redis is the way to go": a choice however it came up. "X is fine", "X sounds good" approve
# X only when the agent proposed it (acts.toml appraisal, copula-approval; objects.agreement).
_IT_IS = re.compile(r"^(?P<obj>[\w .#/-]{1,40}?)\s+is the way to go\b", re.I)
_CONSTRAINT = re.compile(
    r"\b(?:must(?:n'?t| not)?|should (?:always|never|not|be)|never|always|make sure|ensure|"
    r"don'?t|do not|avoid|only|has to|have to|needs? to be|default(?:s)? to|required?|"
    r"without|no more than|at most|at least|keep (?:it|them|this)|in (?:british|american) english|"
    r"backwards? compatible|must be|no need to)\b"
    # A quality asked for to the utmost: "as light as possible", "less code weight possible".
    r"|\bas \w+ as possible\b|\b(?:less|least|more|most|fewer|smallest|fastest|lightest|"
    r"minimal)\b[\w\s-]{0,30}?\bpossible\b",
    re.I,
)
# "Priya Raman from the platform team", "ask Tom", "Sarah said", "@alice", "my manager Jo".
_PERSONAL = re.compile(
    r"\b(?:my|our) (?:daughter|son|kids?|children|wife|husband|partner|mom|mum|dad|mother|father|"
    r"parents|sister|brother|family|dog|cat|doctor|dentist|gym|vacation|holiday|birthday|"
    r"wedding|flight|appointment|anniversary|weekend|friends?)\b|\b(?:dentist|doctor'?s?|"
    r"haircut|groceries|pick up the kids|day off|vacation|birthday party|dinner with)\b",
    re.I,
)


_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_URL = re.compile(r"https?://\S+")
_QUOTED_LINE = re.compile(r"(?m)^\s*>.*$")


@lru_cache(maxsize=256)
def strip_code(text: str) -> str:
    """Code, quotes and URLs are not the person's own words. (Cached: a dozen rules ask it of
    the same sentence.)"""
    return _QUOTED_LINE.sub(" ", _URL.sub(" ", _FENCE.sub(" ", text)))


# Asked of one sentence by several rules (and of the agent's sentences for each reply): the
# answers below are kept per text (they are values: a bool, a string, a pair).
@lru_cache(maxsize=1024)
def is_question(sentence: str) -> bool:
    s = acts.strip_lead(sentence)  # "one thing though, can you …" asks as "can you …" does
    if re.match(rf"^{PREAMBLE}{_MODAL} you\b", s, re.I):
        return bool(_talk_request(s))
    s = re.sub(rf"^{PREAMBLE}", "", s, flags=re.I)
    return s.endswith("?") or bool(_QUESTION_START.match(s) and not _aux_imperative().match(s))


@lru_cache(maxsize=1)
def _aux_imperative() -> re.Pattern[str]:
    """ "do" and "have" open a question when the subject follows them ("do we…", "don't you
    think…", "have you…"), an imperative when a verb or an object does ("don't forget to push",
    "Do NOT use OpenZeppelin v5", "dont use /tmp", "have a look")."""
    subject = "|".join(
        acts.alternation(c) for c in ("subjects", "subject_pronoun", "determiners", "quantifier")
    )
    return re.compile(
        rf"^(?:do(?:n'?t|\s+not)?\s+(?!(?:{subject}|he|she|there)\b)"
        rf"|have\s+(?!(?:{acts.alternation('subjects')}|he|she|it)\b))[a-z]",
        re.I,
    )


def asks_for_work(sentence: str) -> bool:
    """A question that asks for work: "how do we make sudo passwordless?", or an imperative
    said with a question mark ("update the cache?")."""
    s = re.sub(rf"^{PREAMBLE}", "", strip_code(sentence).strip(), flags=re.I)
    how = re.match(
        r"how (?:do|can) (?:we|i)\s+(?:(?:also|then|now|just)\s+)?(?P<verb>[a-z-]+)", s, re.I
    )
    if how:
        return how.group("verb").lower() in WORK_VERBS
    # A lower-case imperative: a work verb with no subject after it ("do we…?" is a question).
    first = re.match(r"([a-z][a-z-]*)\s+(?!(?:we|you|i|they|it|he|she)\b)\w", s)
    return bool(first) and first.group(1) in WORK_VERBS


def _talk_request(s: str) -> bool:
    m = re.search(r"\byou (?:please )?(\w+)", s, re.I)
    return bool(m and m.group(1).lower() in acts.words("talk"))


_REQUEST = re.compile(
    rf"^(?:{_MODAL} (?:you|we)|how (?:do|can|would|should) (?:we|i|you)|help me|"
    r"we need to|i need (?:you )?to|i want (?:you )?to|i'?d like (?:you )?to|time to|"
    r"let'?s|lets|let us|please|pls|go ahead and|make sure (?:to|that)?)\s+",
    re.I,
)
_NOT_VERBS = frozenset(
    # Pronouns and auxiliaries; and choosing verbs: "let's use Redis" is a decision, not work.
    "i you we it this that there they he she be is are was were have has had get got the a an "  # noqa: SIM905
    "not just also really actually know think see understand go try like start use stick "
    "switch pick choose adopt prefer keep store leave".split()
)


def names_no_thing(word: str) -> bool:
    """A verb of work or choice, a pronoun, an auxiliary or a question word: no noun ("no fix
    the agents" refuses; "no survey that day" says there was none)."""
    w = word.lower()
    pointing = acts.words("question_open") + acts.words("lead_in") + acts.words("hedge")
    return w in WORK_VERBS or w in _NOT_VERBS or w in pointing


_ONE_WORD_TASKS = frozenset(
    ["commit", "push", "deploy", "merge", "release", "publish", "rebase", "ship"]
)


@lru_cache(maxsize=1024)
def task_phrase(sentence: str) -> str | None:
    """The work a sentence asks for, as a short imperative ("Create a draft PR"), or ``None``."""
    s = strip_code(sentence).strip().strip("\"'`")
    s = re.sub(r"^/[\w:-]+\s+", "", s)  # a slash command's argument is the request
    s = acts.strip_lead(s) or s  # "one thing though, can you fix …"
    s = re.sub(r"^(?:don'?t|do not) forget to\s+", "", s, flags=re.I)  # "don't forget to push"
    if re.match(r"^(?:don'?t|do not|never)\b", s, re.I):
        # "don't apply them yet - cull the candidates first": a negative imperative asks for no
        # work; the clause after it may.
        rest = re.split(r"[,;]\s+|\s[-—–]\s", s, maxsplit=1)[1:]
        return task_phrase(rest[0]) if rest else None
    if not s or _talk_request(s):
        return None
    m = re.match(rf"^{PREAMBLE}(?P<rest>.+)$", s, re.I | re.S)
    rest = m.group("rest") if m else s
    if _hedged(s, rest):
        return None
    asked = _REQUEST.match(rest) or re.match(LEAD, rest, re.I)
    if asked:
        rest = rest[asked.end() :]
    rest = re.sub(
        r"^(?:also|just|quickly|now|then|please|first|maybe|go ahead and|have a (?:quick )?look (?:at|into)?)\s+",
        lambda x: "look at " if "look" in x.group(0) else "",
        rest,
        flags=re.I,
    )
    verb = re.match(r"([a-z][a-z-]*)\b", rest, re.I)
    word = verb.group(1).lower() if verb else ""
    if not word or word in _NOT_VERBS or not asked and word not in WORK_VERBS:
        return None
    if (
        s.endswith("?")
        and not re.search(rf"\b{_MODAL} (?:you|we)\b|\bhow (?:do|can) (?:we|i)\b", s, re.I)
        and not (not asked and asks_for_work(s))
    ):
        return None  # "should we add tests?" is a question, not a request
    phrase = clause(rest, 9, before_subordinate=True)
    if len(phrase.split()) < 2 and word not in _ONE_WORD_TASKS:
        return None  # "fix", "continue": no work named
    return phrase[:1].upper() + phrase[1:]


def _hedged(s: str, rest: str) -> bool:
    """A suggestion, not a request: a hedge in the first clause ("maybe we add …", "should we
    …"), unless it is the modal request that opens it ("could we review the checklist?" asks as
    "can we …" does). ``rest`` is ``s`` after its lead-in words."""
    if "you" in s.lower():
        return False
    opens = len(s) - len(rest) if re.match(rf"{_MODAL} we\b", rest, re.I) else -1
    return any(h.start() != opens for h in _HEDGE.finditer(s.split(",")[0]))


# Where one request ends and another may begin: ", and then", ", can you", "; ", " - ", " and then".
_NEXT_REQUEST = re.compile(
    r",\s+(?:and\s+|then\s+|also\s+)*(?=(?:can|could|would) you\b|please\b|let'?s\b|[a-z]+\s)"
    r"|;\s+|\s[-—–]\s|\s+and then\s+|\s+then\s+(?=[a-z]+\s)|\(",
    re.I,
)
# At most this many further requests are read from one sentence.
MAX_FURTHER_REQUESTS = 2


def further_requests(sentence: str) -> list[str]:
    """The work asked for in the clauses after the first: "update the issue, and create a new
    one" → ["Create a new one"] (the first clause is :func:`task_phrase`'s)."""
    parts = _NEXT_REQUEST.split(strip_code(sentence))[1:]
    found = [p for p in (task_phrase(x.strip(" ,()")) for x in parts if x.strip()) if p]
    return found[:MAX_FURTHER_REQUESTS]


# A skill run from the prompt, raw or through a shell line: `claude "/review-pr 42 …"`.
_SKILL_CALL = re.compile(
    r"^\s*(?:claude\s+)?[\"'`]?/(?P<cmd>[a-z][\w:-]*)\s+(?P<rest>\S.*)$", re.I | re.S
)


def skill_task(sentence: str) -> str | None:
    """The work a skill invocation asks for: its argument when that is a request ("/build Build
    the API client"), else the skill's name with what it is about ("Roast my product: …")."""
    m = _SKILL_CALL.match(strip_code(sentence))
    if not m:
        return None
    rest = m.group("rest").strip().strip("\"'`")
    asked = task_phrase(rest)
    if asked:
        return asked
    name = " ".join(re.split(r"[-_]+", m.group("cmd").split(":")[-1]))
    about = clause(rest, 7)
    return f"{name[:1].upper()}{name[1:]}: {about}" if about else None


_WANT = re.compile(
    r"^\s*(?:and |but |also |so )?i (?:only |really |just )?(?P<verb>want|prefer)\s+"
    r"(?!you\b|to\b|it\b|this\b|that\b)"
    r"(?P<obj>" + SENTENCE_CHAR + r"{3,80})",
    re.I,
)
_PREFERABLY = re.compile(
    r"\b(?:preferably|ideally)\s+(?:with |via |using |in )?(?P<obj>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
    re.I,
)
_KEEP = re.compile(
    rf"^{PREAMBLE}(?P<verb>keep|leave|stick with|drop|skip|defer|postpone|limit|cap)\s+"
    r"(?!in mind|track|an eye|going|looking|trying|me\b|you\b)(?P<obj>"
    + SENTENCE_CHAR
    + r"{2,70})",
    re.I,
)


# What a "let's do"/"let's make" chooses: an option ("2", "B", "option 3", "both"), a value for
# something named by a pronoun ("make it 40"); anything else is work ("let's do some cleanup").
_CHOSEN = re.compile(
    r"^(?:(?:\d+|[a-h])(?=$|\s+(?:for|then|and|now|please)\b)|option \w+|both|either|neither|"
    rf"{acts.alternation('object_pronoun')} \S+)",
    re.I,
)
# "let's do all the investigation in phase 1", "let's do that on another pass": work put in a
# stage of the plan is a choice of when (ElixirTrials__medgemma-hackathon, saross__trap-extraction).
_STAGED = re.compile(
    r"\b(?:(?:in|on|at|during|for)\s+(?:the\s+|a\s+|another\s+|a\s+later\s+|its\s+own\s+)?|"
    r"(?:next|another|the following)\s+)"
    r"(?:phase|step|stage|pass|round|sprint|milestone|iteration|release|week|pr|follow-?up)\b"
    r"|\b(?:later|tomorrow|afterwards|separately)\b",
    re.I,
)


def errand(verb: str, obj: str) -> bool:
    """ "let's mark the PR ready", "let's do some housekeeping": after "let's", a verb of work
    with its object asks for work, not a choice ("move to X", "do 2" and work put in a stage,
    "ship it tomorrow", still choose)."""
    if verb not in acts.words("errand") or verb == "move" and obj.lower().startswith("to "):
        return False
    if _STAGED.search(obj):
        return False
    return verb not in ("do", "make") or not _CHOSEN.match(obj)


# Where a request of the agent follows a statement in one sentence: "…, can you …", "…, and
# could you …" (what is before it is read on its own).
ASKED_AFTER = re.compile(rf",\s*(?:and\s+|but\s+|so\s+)?(?={_MODAL}\s+you\b)", re.I)


@lru_cache(maxsize=1024)
def decision_phrase(sentence: str) -> tuple[str, str] | None:
    """(label, object) when the sentence commits to a choice; ``None`` for questions,
    suggestions, and temporary topic switches ("let's switch to docs for a bit")."""
    s = strip_code(sentence).strip()
    # "let's store it in metadata, can you give an example?": the question after the comma
    # does not make the choice before it a question.
    s = ASKED_AFTER.split(s)[0].strip()
    # "for now" after keeping, skipping or limiting something is a choice made for the time
    # being ("keep cron for now", "limit to 20 for now"), not a detour of the topic
    temporary = _TEMPORARY.search(s) and not _KEEP.search(s)
    if not s or s.endswith("?") or _HEDGE.search(s) or temporary:
        return None
    m = _COMMIT.search(s)
    if m:
        verb, obj = m.group("verb").lower(), clause(m.group("obj"), 8, before_subordinate=True)
        if not obj or obj.lower() in ("it", "this", "that", "so", "them") or errand(verb, obj):
            return None
        if re.match(_CHOICE_VERBS, verb):
            return "Use " + obj, obj
        return f"{verb[:1].upper()}{verb[1:]} {obj}", obj
    m = _CHOICE.search(s)
    if m and not _QUESTION_START.match(s):
        preferred = (m.group("verb") or "").lower() == "prefer" and _PREFERRED.match(m["obj"])
        if preferred:
            # "I'd prefer we go with X", "I'd prefer to keep X": the clause preferred is the
            # choice, as "let's …" says it (its object alone reads "Use we go with X").
            return decision_phrase("let's " + s[m.start("obj") + preferred.end() :])
        obj = clause(m.group("obj") or m.group("obj2") or "", 6)
        # "go with your recommendation" names no choice: the agent's proposal is read instead
        pointing = ("it", "this", "that", "the", "a", "an", "them", "your")
        if obj and obj.split()[0].lower() not in pointing:
            return "Use " + obj, obj
    m = _IT_IS.match(s)
    if m and len(m.group("obj").split()) <= 5:
        obj = m.group("obj").strip()
        return "Use " + obj, obj
    for rx, prefix in ((_KEEP, ""), (_WANT, ""), (_PREFERABLY, "Use ")):
        m = rx.search(s)
        if not m:
            continue
        obj = clause(m.group("obj"), 8, before_subordinate=True)
        if not obj or obj.lower() in ("it", "this", "that", "them"):
            continue
        if rx is _KEEP:
            verb = m.group("verb").lower()
            return f"{verb[:1].upper()}{verb[1:]} {obj}", obj
        if rx is _WANT:
            # "I want a coloured dot" → "Have a coloured dot"; "I prefer SQLite" → "Use SQLite":
            # the choice as an imperative, not the person's sentence without its subject
            prefix = "Use " if m.group("verb").lower() == "prefer" else "Have "
        return prefix + obj, obj
    return None


# How a named thing is to behave: "the guidelines should state that X supersedes Y"
# (saross__trap-extraction), "each subagent should do a web search" (moredip__session-share),
# "the timeout should be 10 seconds". A pronoun subject ("it should be after") names nothing; a
# negation or an invariant ("must …", "should stay …") is a constraint; a passive ("should be
# updated to") a request.
_SHOULD = re.compile(
    rf"^{PREAMBLE}(?P<np>(?:{acts.alternation('determiners')}|each|every|all)\s+[\w./#-]+"
    r"(?:\s+[\w./#-]+){0,3}?)\s+should\s+"
    r"(?P<adv>(?:always|only|also|just)\s+)?"
    r"(?!not\b|never\b|stay\b|remain\b|be\s+(?:able|possible|\w+ed)\b)"
    r"(?P<rest>[a-z]" + SENTENCE_CHAR + r"{2,80})",
    re.I,
)


def behaviour(sentence: str) -> tuple[str, str] | None:
    """("Make the timeout 10 seconds", object) when the sentence says how a named thing is to
    behave or be ("the timeout should be 10 seconds"); ``None`` for questions."""
    s = strip_code(sentence).strip()
    m = _SHOULD.match(s)
    if not m or s.endswith("?") or _HEDGE.search(s):
        return None
    np, rest = m.group("np"), clause(m.group("rest"), 10, before_subordinate=True)
    rest = re.sub(r"^be\s+", "", rest, flags=re.I)
    if len(rest.split()) < 1:
        return None
    what = f"{np[:1].lower()}{np[1:]} {(m.group('adv') or '').strip()} {rest}"
    return "Make " + " ".join(what.split()), rest


def constraint_phrase(sentence: str) -> str | None:
    """The requirement a sentence states: the clause that carries the cue ("use British
    spelling" of "write the notes, and make sure to use British spelling")."""
    s = strip_code(sentence).strip()
    if not s or s.endswith("?"):
        return None
    parts = re.split(
        r",\s+(?:and\s+|but\s+)?|;\s+|\s+and\s+(?=make sure|ensure|don|never|always)", s
    )
    for i, part in enumerate(parts):
        m = _CONSTRAINT.search(part)
        if m:
            rule = re.sub(
                r"^(?:make sure(?: to| that)?|ensure(?: that)?|please)\s+",
                "",
                part[m.start() :],
                flags=re.I,
            )
            rule = clause(rule if len(rule.split()) >= 2 else part, 14)
            # "must be controlled by configuration, default to 'off'": a short clause that
            # follows completes the same requirement.
            if (
                i + 1 < len(parts)
                and len(parts[i + 1].split()) <= 4
                and _CONSTRAINT.search(parts[i + 1])
            ):
                rule = f"{rule}, {clause(parts[i + 1], 4)}"
            return rule or None
    return None


def is_aside(sentence: str) -> bool:
    return bool(_PERSONAL.search(sentence))
