"""What the agent claimed, and the replies that contradict it: a failure reported after a
success claim ("it still crashes" after "fixed and operational"), a quantity other than the one
the agent stated ("why does the dashboard say 58?" after "the total is 412"), a numbered reply
answering the agent's numbered points one by one.

Pure functions over text: :mod:`rolling_graph.probe.offline.corrections` turns them into nodes
and ``supersedes`` edges.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.probe.offline import acts, speech
from rolling_graph.probe.offline.markup import unmark

# A statement that reports success: the state words of a status report, or a check mark.
_SUCCESS = re.compile(
    r"(?:^|\s)[✅✓✔]|\b(?:works?|working|worked|fixed|resolved|done|complete|completed|"
    r"pass(?:es|ed|ing)?|correct(?:ly)?|operational|online|running|succeed\w*|successful(?:ly)?|"
    r"ready|checks? out|match(?:es)?|up and running|all good|stays? \w+|green|healthy|"
    r"looks? (?:good|right|correct))\b",
    re.I,
)
# "n't" with or without its apostrophe ("doesnt"), never a word that merely ends in "nt".
_NOT = (
    r"(?:\w+n['’]t|cannot|(?:do|does|did|is|was|are|were|wo|ca|have|has|had|would|could|"
    r"should)nt)"
)
_NEGATION = re.compile(rf"\b(?:not|no|never|nothing|{_NOT})\b|[❌✗✘]", re.I)
# What goes wrong, said of the thing the agent reported working: a verb ("it crashes") or, after
# a copula, a state ("it's broken").
_FAILS = r"(?:crash\w*|fail\w*|breaks|hangs|freezes|quits|dies|died|stops|stopped|exits|throws)"
_FAILED = r"(?:broken|stuck|missing|wrong|hanging|down|dead|the same|empty|failing|crashing)"
_REPORTS_FAILURE = re.compile(
    # "still": the state the agent said it changed has not changed ("it still crashes").
    rf"\bstill\b(?:\s+\S+){{0,4}}?\s+(?:{_FAILS}|{_FAILED}|not|no|{_NOT})\b"
    # a negated state of the thing: "it doesn't work", "nothing runs", "isn't running"
    rf"|\b(?:{_NOT}|not|never|nothing)\s+(?:\w+\s+){{0,2}}?(?:work\w*|run\w*|start\w*|load\w*|"
    r"build\w*|compil\w*|pass\w*|show\w*|appear\w*|change\w*|connect\w*|respond\w*)\b"
    # "it crashes", "this is broken": a failure said of the thing in play
    rf"|\b(?:it|this|that|they|which)\s+(?:now\s+|just\s+|also\s+)?{_FAILS}\b"
    rf"|\b{acts.alternation('subject_pronoun')}(?:'s|'re| is| are)\s+(?:now\s+|still\s+|just\s+)?{_FAILED}\b"
    # an error met: "I get an error", "getting the same exception"
    r"|\b(?:get|gets|got|getting|see|seeing|throws?|throwing)\s+(?:an?\s+|the\s+|this\s+|that\s+)?"
    r"(?:same\s+|new\s+|other\s+)?(?:\w+\s+)?(?:errors?|exceptions?|tracebacks?)\b"
    # "same error", "the same problem again"
    r"|^\W*(?:nope\W+|no\W+)?(?:the\s+)?same\s+(?:\w+\s+)?(?:errors?|issues?|problems?|thing|result)\b",
    re.I,
)
# What would have happened is no report of what did: "grep would not have worked", "it
# couldn't have passed".
_COUNTERFACTUAL = re.compile(r"\b(?:would|could|might|should)(?:n['’]?t|\s+not)?\s+have\b", re.I)
# "still" of a state the person does not praise: "I still see the old banner" (not "it still
# works", "still there, good").
_STILL = re.compile(r"\bstill\b", re.I)
_PRAISE = re.compile(r"\b(?:good|fine|great|nice|perfect|thanks?)\b", re.I)
# A request to repair what was just reported working: "fix it", "fix this".
_FIX_IT = re.compile(rf"\b(?:fix|repair|debug)\s+{acts.alternation('object_pronoun')}\b", re.I)
# A quantity as written in a report: "+582", "−0", "4.5", "80%", "12 ms".
_QUANTITY = re.compile(
    r"(?<![\w./#:-])[+\-−]?(\d+(?:[.,]\d+)?)(?![\w.\d])(\s?%|\s?[a-zA-Z]{1,3}\b)?"
)
# Said, not pasted: opens with a word, holds no symbols of logs, tables or code, and is mostly
# words.
_PASTED = re.compile(r"[|=<>{}\[\]●│$;]|^\W|^\d")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?[.,!?:…-]*")
_CHALLENGE = re.compile(r"^(?:why|how come|where does|where do)\b", re.I)
QUANTITY_WORDS = 15  # a longer sentence with numbers is a description or pasted output


# A heading of the agent's message, its marks gone: a few words without sentence punctuation,
# each word of four letters or more capitalised ("What I Should Have Done", "Root Cause").
HEADING_WORDS = 8
_CHECKED = re.compile(r"[✅✓✔]")


def statements(before: str, questions: bool = False) -> list[str]:
    """The sentences of the agent's last message (code blocks and headings out; its questions
    only when ``questions``)."""
    return list(_statements(before, questions))


@lru_cache(maxsize=64)
def _statements(before: str, questions: bool) -> tuple[str, ...]:
    # Asked for each sentence of a reply by several rules: the agent's message is split once.
    out = []
    text = re.sub(r"```.*?```", " ", before[-2_000:], flags=re.S)
    for x in re.split(r"(?<=[.!?])\s+|\n+", text):
        x = x.strip(" -*#>|")
        if len(x.split()) >= 3 and (questions or not x.endswith("?")) and not _heading(x):
            out.append(x)
    return tuple(out)


@lru_cache(maxsize=1024)
def _heading(line: str) -> bool:
    if _CHECKED.search(line):
        return False  # "✅ Agent System Fixed and Operational": a status line, a claim
    words = unmark(line).split()
    long = [w.strip("\"'()[]*_`") for w in words if len(w.strip("\"'()[]*_`")) >= 4]
    return (
        len(words) <= HEADING_WORDS
        and len(long) >= 2
        and all(w[:1].isupper() or w[:1].isdigit() for w in long)
        and line.rstrip()[-1:] not in ".!?:,;"
    )


def said(sentence: str, least: int = 3) -> bool:
    """Words the person wrote, not output they pasted (a log line, a status table, code): at
    least ``least`` plain words."""
    text = sentence.strip()
    words = text.split()
    if not words or _PASTED.search(text):
        return False
    plain = [w for w in words if _WORD.fullmatch(w)]
    return len(plain) >= least and len(plain) >= 0.6 * len(words)


# An instruction or an announcement is no claim: "Use ./status.sh to keep it running",
# "Now update the tests to match:".
_INSTRUCTION = re.compile(r"^(?:now |then |next,? )?(?:let me |let's |i'll |i will )?[a-z]+\b")


_ANNOUNCE = re.compile(
    r"^(?:(?:now|next|then|first|ok(?:ay)?|good|great)[,!.]?\s+)*(?:let me|let's|i'll|i will|"
    r"i'm going to|i am going to|we'll|we will)\b",
    re.I,
)


def announces(statement: str) -> bool:
    """The agent says what it will do next ("Let me try a simpler launcher:")."""
    text = unmark(statement).strip()
    return bool(_ANNOUNCE.match(text)) or text.endswith(":")


# The agent's account of work it did: "I added …", "the redirects I already added".
_DID = re.compile(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:already\s+|just\s+|also\s+)?(?:added|changed|created|"
    r"wrote|written|updated|removed|deleted|implemented|moved|renamed|replaced|introduced|"
    r"refactored|rewrote|extracted|split|merged)\b",
    re.I,
)


def work_done(before: str) -> str | None:
    """The agent's latest statement of work it did itself (first person, past)."""
    return next((s for s in reversed(statements(before)) if _DID.search(s)), None)


def is_success(statement: str) -> bool:
    """A statement that reports success, with no negation in it."""
    return bool(_SUCCESS.search(statement)) and not _NEGATION.search(statement)


def success_claims(before: str, echo: str = "") -> list[str]:
    """The agent's statements that report success, newest first (no negation in them); those
    sharing a word with ``echo`` (the reply) first."""
    out = _success_statements(before)
    if not echo or not out:
        return list(out)
    mine = {w.lower() for w in re.findall(r"[^\W\d_]{4,}", echo)}
    return sorted(out, key=lambda c: not mine & {w.lower() for w in re.findall(r"\w+", c)})


@lru_cache(maxsize=64)
def _success_statements(before: str) -> tuple[str, ...]:
    # Asked for each sentence of a reply: the agent's message is read once.
    out = []
    for s in reversed(statements(before)):
        plain = unmark(s).strip()
        if not is_success(plain) or plain.endswith(":"):
            continue
        first = _INSTRUCTION.match(plain.lower())
        if first and first.group(0).split()[-1] in speech.WORK_VERBS | {"use", "see", "let"}:
            continue
        out.append(plain)
    return tuple(out)


def reports_failure(sentence: str, before: str) -> bool:
    """After the agent reported success, the person reports that it does not hold: "it still
    crashes", "I still see the old page", "doesn't run", "it hangs", "I get an error", or asks
    to fix what was called working ("sure it works, fix it")."""
    text = speech.strip_code(sentence).strip()
    if not before.strip() or not said(text, least=2) or not success_claims(before):
        return False  # "still broken" is two words
    return says_failure(text)


def says_failure(text: str) -> bool:
    """The shape of a failure report, whatever came before (see :func:`reports_failure`)."""
    if _FIX_IT.search(text) and len(text.split()) <= 8:
        return True
    for m in _REPORTS_FAILURE.finditer(text):
        if not _COUNTERFACTUAL.search(text[max(0, m.start() - 24) : m.end()]):
            return True
    if speech.is_question(text):
        return False  # "is there still a cycle?" asks
    return bool(_STILL.search(text)) and not is_success(text) and not _PRAISE.search(text)


def _quantities(text: str) -> list[tuple[str, str]]:
    """(number, unit) pairs: the unit is "%", a short word after it, else ""."""
    return [(m.group(1), (m.group(2) or "").strip().lower()) for m in _QUANTITY.finditer(text)]


def _unnumbered(text: str) -> str:
    """``text`` without the numbers that name a thing ("run 8830", "runs 8844 to 8850"): they
    count nothing, so they contradict no count of the agent's."""
    return _numbered().sub(" ", text)


@lru_cache(maxsize=1)
def _numbered() -> re.Pattern[str]:
    return re.compile(
        rf"\b{acts.alternation('numbered')}\s+#?\d+(?:\s*(?:to|-|–|and)\s*#?\d+)?", re.I
    )


def other_quantity(sentence: str, before: str) -> bool:
    """A short statement or a challenge ("why is the total 58?") naming numbers the agent's
    message did not, when its last statements gave numbers: the person's figures contradict
    the agent's."""
    text = speech.strip_code(sentence).strip()
    if not before.strip() or len(text.split()) > QUANTITY_WORDS or not said(text):
        return False
    if speech.is_question(text) and not _CHALLENGE.match(text):
        return False
    if speech.task_phrase(text):
        return False  # "add 2 more retries" asks for work
    mine = {n for n, _ in _quantities(_unnumbered(text))}
    if not mine or mine & set(re.findall(r"\d+(?:[.,]\d+)?", before)):
        return False
    return any(_quantities(s) for s in statements(before)[-6:])


def quantity_claim(sentence: str, before: str) -> str | None:
    """The agent's latest statement with a number of the unit the person's numbers have."""
    units = {u for _, u in _quantities(speech.strip_code(sentence))}
    found = [s for s in statements(before) if _quantities(s)]
    for s in reversed(found):
        if {u for _, u in _quantities(s)} & units:
            return s
    return found[-1] if found else None


# A state that is the negative of another: "lost", "missing" deny as "not" does.
_NEGATIVE_STATE = re.compile(
    r"\b(?:lost|loses|missing|gone|drops|dropped|broken|fails?|failed|failing|orphan\w*|empty|"
    r"never)\b",
    re.I,
)
FLAT_WORDS = 8  # a flat contradiction is a short statement
FLAT_SHARED = 3  # about the same thing: three content words in common


def _negative(text: str) -> bool:
    return bool(_NEGATION.search(text) or _NEGATIVE_STATE.search(text))


@lru_cache(maxsize=1)
def _condition() -> re.Pattern[str]:
    return re.compile(rf"\b(?:{acts.alternation('condition')})\b[^,.;:()\n]*", re.I)


def asserted(statement: str) -> str:
    """A statement without its conditions: "Low severity - can verify when source drive
    mounted" says nothing of whether the drive is mounted."""
    return _condition().sub(" ", statement)


@lru_cache(maxsize=64)
def _asserted_words(before: str) -> tuple[tuple[str, frozenset[str], bool], ...]:
    """(statement, content words, negative) of each of the agent's statements, read without
    its conditions: asked for each sentence of a reply, the agent's message is read once."""
    from rolling_graph.probe.offline.decisions import content_words

    out = []
    for stmt in _statements(before, False):
        said_so = asserted(stmt)
        out.append((stmt, frozenset(content_words(said_so)), _negative(said_so)))
    return tuple(out)


def contradicted_statement(sentence: str, before: str) -> str | None:
    """A short flat statement of the person's about what one of the agent's statements is about
    (three content words shared, more than with any statement it agrees with), with the
    opposite polarity: "the merge queue keeps labels"
    against "labels are lost in the merge queue". That statement, else ``None``."""
    from rolling_graph.probe.offline.decisions import content_words

    text = speech.strip_code(sentence).strip()
    if not before.strip() or not said(text) or len(text.split()) > FLAT_WORDS:
        return None
    if speech.is_question(text) or speech.task_phrase(text) or speech.decision_phrase(text):
        return None
    mine = content_words(text)
    negative = _negative(text)
    opposite, agreeing = (0, 0, ""), 0
    for i, (stmt, words, denies) in enumerate(_asserted_words(before)):
        shared = len(words & mine)
        if denies == negative:
            agreeing = max(agreeing, shared)  # a statement it agrees with as much: no conflict
        else:
            opposite = max(opposite, (shared, i, stmt))
    return opposite[2] if opposite[0] >= FLAT_SHARED and opposite[0] > agreeing else None


def answered_point(sentence: str, prompt: str, before: str) -> str | None:
    """In a numbered reply ("1. … 2. …") to a numbered message, point N answers the agent's
    point N: its text, when the sentence belongs to the person's point N."""
    from rolling_graph.probe.offline.points import answered

    point = answered(sentence, prompt, re.sub(r"```.*?```", " ", before, flags=re.S))
    return point[1] if point else None


# Wording the person quotes as what a thing says now, and as what it should say instead.
_SAYS = re.compile(
    r"\b(?:says|reads|shows|displays|prints|is labell?ed)\s*:?\s*[\"“`](?P<q>[^\"”`\n]{2,80})[\"”`]",
    re.I,
)
_SHOULD_SAY = re.compile(
    r"\b(?:(?:updated|changed|renamed|corrected) to|should (?:say|read|be)|rename it to)\s*:?\s*"
    r"[\"“`](?P<q>[^\"”`\n]{2,80})[\"”`]",
    re.I,
)


def old_wording(sentence: str, prompt: str) -> str | None:
    """'It says "Retry later" … should say "Try again"': the wording quoted as what it says
    now, in this sentence or an earlier one of the prompt, when this one quotes what it should
    say."""
    new = _SHOULD_SAY.search(sentence)
    if not new:
        return None
    at = prompt.find(sentence[:40]) if sentence[:40] else -1
    upto = prompt[: at + len(sentence)] if at >= 0 else sentence
    olds = [m.group("q") for m in _SAYS.finditer(upto) if m.group("q") != new.group("q")]
    return olds[-1].strip() if olds else None


# "staging-eu and staging-us are separate", "differentiate A and B": the person tells apart
# what the agent took as one thing.
_SEPARATE = re.compile(
    r"\b(?:(?:are|is|as|be) (?:two |)(?:separate|distinct|different)|differentiate|"
    r"distinguish|tell apart|not the same)\b",
    re.I,
)
_COMPOUND = re.compile(r"(?<![\w./-])([^\W\d_][\w]*)[-_]([\w]+(?:[-_][\w]+)*)")


def split_name(sentence: str, before: str) -> str | None:
    """Two names that share their first part ("legion-eu", "legion-us") said to be separate,
    when the agent's last message (its code and commands too) named only that part
    ("legion"): that part, the one thing the agent wrongly took them for. Else ``None``."""
    text = speech.strip_code(sentence)
    if not before.strip() or not _SEPARATE.search(text):
        return None
    stems: dict[str, set[str]] = {}
    for m in _COMPOUND.finditer(text):
        stems.setdefault(m.group(1).lower(), set()).add(m.group(0).lower())
    low = before.lower()
    for stem, names in stems.items():
        if len(names) < 2 or len(stem) < 3 or any(n in low for n in names):
            continue
        if re.search(rf"(?<![\w-]){re.escape(stem)}(?![\w-])", low):
            return stem
    return None


# The agent says it cannot do something; the person answers that it can.
_CANNOT = re.compile(
    r"\b(?:i|we)\s*(?:can['’]?t|cannot|can not|(?:am|'m|are|'re)\s+(?:unable|not able)\s+to|"
    r"have no way to|don['’]?t have (?:a way|the ability|access))\b",
    re.I,
)
_YOU_CAN = re.compile(
    r"\byou\s+(?:can|could|are able to|'re able to|should be able to)(?!\s*not\b|['’]?t\b)\b",
    re.I,
)


def denied_inability(sentence: str, messages: list[str]) -> str | None:
    """ "I'm sure you can reboot it yourself" after "I can't reboot the box from here": the
    agent's latest statement of what it cannot do (in ``messages``, oldest first) that shares a
    content word with a statement of the person's that it can. Else ``None``."""
    from rolling_graph.probe.offline.decisions import content_words

    text = speech.strip_code(sentence).strip()
    if not _YOU_CAN.search(text) or speech.is_question(text):
        return None
    mine = content_words(re.sub(r"[()]", " ", text))
    for message in reversed(messages):
        for stmt in reversed(statements(message)):
            if _CANNOT.search(stmt) and content_words(stmt) & mine:
                return stmt
    return None


# A list item or a continuation line of what a statement introduces.
_ITEM_LINE = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+\S")
INTRODUCED_CHARS = 190  # a node summary's room
# Emphasis and code marks, not the underscores inside a name ("owner_id").
_MARKUP = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")


CODE_LINES = 2  # the lines of an introduced command block a summary keeps


def _code_after(text: str) -> list[str]:
    """The first lines of the code block ``text`` opens with (comments out), else []."""
    m = re.match(r"\s*```[^\n]*\n(.*?)(?:```|$)", text, re.S)
    if not m:
        return []
    code = [ln.strip() for ln in m.group(1).splitlines()]
    return [ln for ln in code if ln and not ln.startswith(("#", "//"))][:CODE_LINES]


def with_items(statement: str, before: str) -> str:
    """A statement that introduces a list ("Now each record links both ways:") with the items
    it introduces ("- … `owner_id` field"), or a command ("To commit by hand:" and the block
    after it): what the statement says is in them."""
    plain = _MARKUP.sub("", statement).strip()
    if not plain.endswith(":"):
        return statement
    tail = before[-4_000:]
    at = tail.rfind(statement.strip())
    if at < 0:
        return statement
    rest = tail[at + len(statement.strip()) :]
    code = _code_after(rest.split("\n", 1)[1] if "\n" in rest else "")
    if code:  # "To manually commit:" then "git commit --no-verify …"
        return " · ".join([plain, *code])[:INTRODUCED_CHARS]
    lines = re.sub(r"```.*?```", " ", rest, flags=re.S).splitlines()[1:]
    items: list[str] = []
    for ln in lines:
        if not ln.strip() and not items:
            continue  # a blank line between the statement and its list
        if not _ITEM_LINE.match(ln):
            break
        items.append(" ".join(_MARKUP.sub("", ln).strip(" -*•").split()))
    if not items:
        return statement
    return " · ".join([plain, *items])[:INTRODUCED_CHARS]


# The person says it cannot be done: "but you couldn't detect …", "we can't roll it back".
_NOT_ABLE = re.compile(
    r"\b(?:you|we|it|that|this)\s+(?:can['’]?t|cannot|can not|couldn['’]?t|could not|"
    r"(?:won['’]?t|wouldn['’]?t) be able to)\s+(?:\w+ly\s+)?(?P<verb>[a-z]{3,})\b",
    re.I,
)
_ABLE = r"\b(?:we|i|you|it|this|that)\s+(?:can|could|(?:will|'ll) be able to)\s+(?:\w+ly\s+)?"
_CODE_NAME = re.compile(r"`([A-Za-z_][\w.-]{2,40})`")


def denied_ability(sentence: str, messages: list[str]) -> str | None:
    """ "but you couldn't detect a rename" after "We can detect renames between runs:": the
    agent's latest statement (in ``messages``, oldest first) that something can be done, with
    the verb the person says cannot. Else ``None``."""
    from rolling_graph.probe.offline.decisions import content_words

    m = _NOT_ABLE.search(speech.strip_code(sentence))
    if not m or speech.is_question(sentence):
        return None
    verb = content_words(m.group("verb"))
    if not verb:
        return None
    for message in reversed(messages):
        for stmt in reversed(statements(message)):
            able = re.search(_ABLE + r"(?P<verb>[a-z]+)", stmt, re.I)
            if able and content_words(able.group("verb")) == verb:
                return stmt
    return None


def names_after(statement: str, before: str, limit: int = 4) -> list[str]:
    """The code names (in backticks) of the agent's message from ``statement`` on: what the
    work it proposes or reports is made of."""
    at = before.rfind(statement.strip()[:60])
    found = _CODE_NAME.findall(before[at:] if at >= 0 else "")
    return list(dict.fromkeys(found))[:limit]
