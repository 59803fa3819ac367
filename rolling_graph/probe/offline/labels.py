"""Labels a reader trusts: a decision's label is the choice, short, in the imperative.

:func:`label_problems` is the one statement of the rules (≤ 60 characters, never a question,
never a lead-in like "One thing though" or "Can you", never pasted output, never the agent's
voice, never cut mid-phrase, naming something); :func:`tidy` repairs what can be repaired
mechanically. The plan applies both to every decision it adds: a label still failing is not
made into a decision (the person's words stay in the summary of what else the sentence made).
"""

from __future__ import annotations

import re

from rolling_graph.core.model import CHOICE_LABEL
from rolling_graph.nlp.lexicon import object_case
from rolling_graph.probe.offline import acts
from rolling_graph.probe.offline.markup import quotation

MAX_LABEL = CHOICE_LABEL
# "Option B: …", "Approved: …", "Scope & MVP: …" (an answer under its question's heading): the
# prefix says how the choice was made; the rules read the rest.
_PREFIX = re.compile(r"^(?P<p>[^:?\"]{1,30}:\s+)(?=\S)")
_MARKUP = re.compile(r"[*`#]+|(?<!\w)_+|_+(?!\w)")
# Program text: a path with a line number, a call, an assignment, braces.
_CODE = re.compile(r"\w\.\w+:\d+|[{}<>]|\s=\s|==|=>|\$\s")
# Imperatives that are not requests for a choice ("do", "have") open questions as well.
_IMPERATIVE_AUX = frozenset(["do", "have"])


def _rest(label: str) -> tuple[str, str]:
    m = _PREFIX.match(label)
    return (m.group("p"), label[m.end() :]) if m else ("", label)


def _names_the_act(prefix: str) -> bool:
    """ "Decided: …", "Q: …": the heading says what the line does or is, not what it is of."""
    said = " ".join(prefix.strip(" :").lower().split())
    return said in acts.words("act_heading") + acts.words("message_tag")


def _empty_pair(key: str, value: str) -> bool:
    """ "We: sorry": an answer's key that is only a pronoun names no setting, and a value that
    is only the word that opens a correction ("sorry", "actually", "wait") gives none."""
    said = " ".join(_first_words(value, 4))
    return all(w in acts.words("deictic") for w in _first_words(key, 4)) or (
        said in acts.words("correcting")
    )


def _first_words(text: str, n: int) -> list[str]:
    return re.findall(r"[\w'’-]+", text.lower())[:n]


def _negative_imperative(first: list[str]) -> bool:
    """ "Don't store tokens in local storage" tells, "don't you think …" asks: after "don't" a
    verb, not a subject."""
    return (
        first[0] in ("don't", "don’t", "dont")
        and len(first) > 1
        and first[1] not in acts.words("subjects") + acts.words("deictic")
    )


def label_problems(label: str) -> list[str]:
    """What makes ``label`` a label a reader would not trust, as short reasons; [] when none."""
    problems = []
    prefix, rest = _rest(label.strip())
    low = rest.lower()
    first = _first_words(rest, 2)
    if not first:
        return ["names nothing"]
    if len(label) > MAX_LABEL:
        problems.append(f"longer than {MAX_LABEL} characters")
    if rest.rstrip().endswith("?") or (
        first[0] in acts.words("question_open")
        and first[0] not in _IMPERATIVE_AUX
        and not _negative_imperative(first)
    ):
        problems.append("a question")
    lead = acts.lead_in().match(rest)
    if (
        lead
        and lead.group(0).strip()
        or re.match(rf"{acts.alternation('modal')}\s+{acts.alternation('asked')}\b", low)
    ):
        problems.append("opens with a lead-in")
    if not prefix and first[0] in acts.words("determiners") + acts.words("deictic"):
        problems.append("not an imperative")
    if any(mark in low for mark in acts.words("pasted")) or _CODE.search(rest):
        problems.append("pasted output")
    if re.search(rf"(?:^|\s){acts.alternation('agent_voice')}\b", low):
        problems.append("the agent's voice")
    if rest.endswith("…") or acts.dangles(rest):
        problems.append("cut mid-phrase")
    if rest.count('"') % 2 or rest.count("(") != rest.count(")"):
        problems.append("cut mid-phrase")
    # "Use we go with the queue", "Use to keep the settings": a clause where a thing belongs.
    thing_after_use = (
        len(first) > 1 and first[0] == "use" and first[1] in (*acts.words("subjects"), "to")
    )
    # "the fix was needed: \"yes\" to fixing it": a key that is a sentence, not a setting's name.
    key_said = prefix and any(w in acts.words("finite") for w in _first_words(prefix, 8))
    if acts.clause_start(" " + low) or thing_after_use or key_said:
        problems.append("a clause, not a choice")
    named = _first_words(rest, 12)[0 if prefix else 1 :]
    content = [w for w in named if w not in acts.words("deictic")]
    if first[0] == "do":  # "Do that tomorrow": the pro-verb names nothing, nor does a time
        when = acts.words("times") + acts.words("later") + acts.words("again")
        content = [w for w in content if w not in when]
    if not content or all(w in acts.words("dangling") for w in content):
        problems.append("names nothing")
    if prefix and _empty_pair(prefix, rest):
        problems.append("names nothing")
    return list(dict.fromkeys(problems))


def _placed(text: str) -> str:
    """ "The settings belong in pyproject.toml" → "Keep the settings in pyproject.toml": where a
    thing is to be, said as a fact, is the choice to keep it there."""
    m = re.match(
        rf"^(?P<what>(?:{acts.alternation('determiners')}\s+)?[^,;]{{1,40}}?)\s+"
        rf"(?:(?:should|must)\s+(?:be|{acts.alternation('place_verbs')})|{acts.alternation('place_verbs')})\s+"
        rf"(?P<where>{acts.alternation('place_preps')}\s+.+)$",
        text,
        re.I,
    )
    if not m:
        return text
    what = m.group("what")
    if re.fullmatch(acts.alternation("subjects"), what, re.I):
        what = object_case(what)  # "they should go on the manifest" → "Keep them on …"
    elif not re.match(rf"{acts.alternation('determiners')}\b", what, re.I):
        return text  # "theme" is no "the": a determiner is a whole word
    return f"Keep {what[:1].lower()}{what[1:]} {m.group('where')}"


def fit(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word, outside quotes and parentheses,
    without a dangling last word."""
    words = text.split()
    while words and len(" ".join(words)) > limit:
        words.pop()
    while words:
        out = " ".join(words)
        unbalanced = out.count('"') % 2 or out.count("(") != out.count(")")
        tail = out.lower().strip(" ,;:-").split()[-1] if out.strip(" ,;:-") else ""
        dangling = tail in acts.words("dangling") and acts.dangles(out)  # "why not" ends
        if not unbalanced and not dangling and not out.endswith(","):
            return out.rstrip(" ,;:-")
        words.pop()
    return ""


# Where a long item may be cut whole: before an aside, at a dash, a semicolon or a comma,
# late enough that what is kept says most of it. Not at a colon: what follows a heading is the
# work ("Spotter-fum.4 (OPEN, blocked by fum.2): "Add regression coverage …"").
_CUT = re.compile(r"\s\(|[;,]\s|\s[-—–]\s")


def shortened(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at its last aside, dash, semicolon or comma
    in the second half of the limit ("Execute Phase 3: Convert 5 sync .invoke() calls to await
    .ainvoke(), update tests …" → "… to await .ainvoke()"), else clipped with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cuts = [m.start() for m in _CUT.finditer(text[: limit + 1]) if m.start() >= limit // 2]
    for at in reversed(cuts):
        out = fit(text[:at], limit)
        if len(out.split()) >= 3:
            return out
    return text[: limit - 1].rstrip() + "…"


def tidy(label: str, limit: int = MAX_LABEL) -> str:
    """``label`` repaired where that is mechanical: no markup, no lead-in, a capital first
    letter, within :data:`MAX_LABEL` characters, not cut inside a quote or a parenthesis."""
    marks = "".join(m for m in acts.words("pasted") if len(m) == 1)
    prefix, rest = _rest(
        " ".join(_MARKUP.sub(" ", label).translate({ord(c): " " for c in marks}).split())
    )
    # "Decided: keep cron for now": a heading that names the act, not what a value is of
    act = _names_the_act(prefix)
    capital = rest[:1].isupper() or act
    prefix = "" if act else prefix
    rest = acts.strip_lead(rest).rstrip(" .!;:,")
    # The agent's hedge before what it proposed: "I'd say just proceed …" → "Proceed …"; the
    # person's wish: "I'd like to investigate X" → "Investigate X"; the
    # person's stance before a claim: "I'm sure that it works" → "It works" ("that" before a
    # subject joins a clause; before a noun it is the noun's: "I think that approach works").
    voice = "|".join(
        acts.alternation(c) for c in ("wish", "hedge", "agent_voice", "stance", "obligation")
    )
    rest = re.sub(
        rf"^(?:{voice})\s+(?:that\s+(?=(?:{acts.alternation('subjects')}|it)\b))?"
        rf"(?:(?:{voice})\s+)?",
        "",
        rest,
        flags=re.I,
    )
    rest = acts.strip_lead(rest)  # "just please confirm …": a lead-in after the hedge
    quoted = quotation(rest)
    if quoted:  # "what I meant was 'please prepare X'": what is quoted is the label
        rest = acts.strip_lead(quoted)
    rest = _placed(rest)
    # A label runs on into program text or a clause of its own: it ends before them.
    ends = [m.start() for m in (_CODE.search(rest), acts.clause_start(rest)) if m and m.start() > 0]
    rest = rest[: min(ends)] if ends else rest
    if capital or not prefix:  # a value under a heading keeps its case ("Region: eu-west-1")
        rest = rest[:1].upper() + rest[1:]
    return prefix + _phrase_within(rest, limit - len(prefix))


def _phrase_within(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word (:func:`fit`); a phrase of means or
    purpose the cut leaves three words or fewer of, its next word cut off, goes whole ("Fix the
    duplication by removing unused" → "Fix the duplication"), where three words or more stay
    before it."""
    kept = fit(text, limit)
    after = text[len(kept) :].lstrip() if text.startswith(kept) else ""
    if not after[:1].isalnum():
        return kept  # whole, or cut where the text itself pauses ("… to clarify names (in …")
    opens = [
        m.start()
        for m in re.finditer(rf"\s{acts.alternation('phrase_open')}\s", kept, re.I)
        if len(kept[: m.start()].split()) >= 3
    ]
    if opens and len(kept[opens[-1] :].split()) <= 4:  # the opener and three words
        return fit(kept[: opens[-1]], limit)
    return kept


# A correction may state a fact at more length than a decision's choice (the plan's limit).
MAX_STATEMENT = 80
# A clause that says only that something is wrong ("that's not it", "not quite") names nothing;
# a label is read from the clause after it.
_CLAUSES = re.compile(r"\s[-—–]+\s|[—–]|(?<=[.!?;])\s+|,\s+")
_UNCUT = 10_000  # a limit no label reaches
_UNREAD = frozenset(["names nothing", "cut mid-phrase", "a question", "not an imperative"])


def _clauses(text: str) -> list[str]:
    """The clauses of ``text``; a comma inside parentheses splits none ("restart (quit the
    session, launch a new one) yourself" is one)."""
    out: list[str] = []
    start, open_at = 0, -1  # open_at: where the clause with an unclosed "(" began
    for m in [*_CLAUSES.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[open_at if open_at >= 0 else start : end]
        if m and piece.count("(") > piece.count(")"):
            open_at = open_at if open_at >= 0 else start
        else:
            open_at = -1
            if piece.strip():
                out.append(piece)
        start = m.end() if m else len(text)
    return out


def _marker(clause: str) -> bool:
    """A clause made only of the words that open a correction or lead in to one."""
    said = " ".join(_first_words(clause, 6))
    return said in acts.words("correcting") + acts.words("lead_in") + acts.words("refusal")


def _instruction(label: str) -> bool:
    from rolling_graph.probe.offline.speech import WORK_VERBS

    first = _first_words(label, 1)
    return bool(first) and (first[0] in WORK_VERBS or first[0] in acts.words("instruct"))


def _stated(text: str) -> str:
    """A statement said with a question mark ("we didn't write or change any tests?", "but then
    the diff in the end wouldn't be clean right?"): the person puts it to the agent to confirm,
    and what it says is the statement, without the mark and the tag before it. A sentence that
    opens as a question ("why …?", "can you …?", "is it …?") stays one."""
    s = text.strip()
    first = _first_words(acts.strip_lead(s), 1)
    if not s.endswith("?") or not first or first[0] in acts.words("question_open"):
        return text
    tag = rf"(?:,\s*{acts.alternation('question_tag')}|\s+{acts.alternation('question_tag_bare')})"
    return re.sub(rf"{tag}?[\s?]+$", "", s, flags=re.I)


def _within(label: str, limit: int) -> str:
    """A tidied statement longer than ``limit`` ends before the last word within it that joins
    a clause or a phrase ("… to complete and should be more limited than an entire" → "… to
    complete"), where that leaves four words or more; then it is cut at a word (:func:`fit`)."""
    if len(label) <= limit:
        return label
    joins = [
        m.start()
        for m in re.finditer(rf"\s{acts.alternation('joining')}\s", label[: limit + 1], re.I)
        if len(label[: m.start()].split()) >= 4
    ]
    return fit(label[: joins[-1]] if joins else label, limit)


def statement_label(text: str) -> str:
    """A correction's label: its first clause that gives an instruction ("No, not X — call the
    table subscribers" → "Call the table subscribers"), else its first clause that names
    something ("Only confirmed subscribers go to Bento"), tidied; a clause that only says what
    is rejected ("not X", "that's not it") is passed over. "" when none reads as a label."""
    labels, fronted = [], []
    for clause in _clauses(_stated(text)):
        first = _first_words(clause, 1)
        if first and first[0] in acts.words("negation") + acts.words("refusal"):
            continue
        if _marker(clause):
            continue  # "my apologies", "hold on": says that a correction comes, not what
        # tidied whole (no limit yet), then cut where a clause joins
        label = _within(tidy(clause, _UNCUT), MAX_STATEMENT)
        problems = set(label_problems(label)) - {"not an imperative"}
        if len(label.split()) >= 2 and not problems & _UNREAD:
            # "In those cases, we do not need …": the phrase before the comma says when or
            # where; the statement is what follows it.
            (fronted if first and first[0] in acts.words("fronted") else labels).append(label)
    labels = labels or fronted
    return next((x for x in labels if _instruction(x)), labels[0] if labels else "")
