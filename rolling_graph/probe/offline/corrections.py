"""Corrections that replace no decision: what the person states now supersedes what it
rejects — a thing it negates ("don't use /tmp"), else the agent's claim it contradicts."""

from __future__ import annotations

import re

from rolling_graph.core.agent_claims import AGENT, SAID_BY, claim_label
from rolling_graph.core.slug import normalize_term
from rolling_graph.nlp.cues import HEDGED_NOT
from rolling_graph.probe.offline import acts, claims, clauses, speech, values
from rolling_graph.probe.offline.intent import thing
from rolling_graph.probe.offline.labels import MAX_STATEMENT, statement_label
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import Plan, clip

_NEGATED = re.compile(
    # a thing no longer wanted, symbols too: "I don't want the ✓ marks anymore"
    r"\b(?:don'?t|do not) want (?:the |a |an |any )?(?P<old4>[^\s,.;:!?][^,.;:!?\n]{0,39}?) "
    r"(?:anymore|any more|any longer)\b"
    rf"|\b(?:don'?t use|do not use|stop using|no more|{acts.alternation('replacing')}|"
    r"don'?t want|get rid of)\s+(?:the |a |an |any )?(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?)"
    r"|(?P<old2>[\w.@/+#-]+(?: [\w.@/+#-]+)?) (?:is|are) (?:too? much|too? many|overkill|wrong|not needed|unnecessary)"
    # an assumption about a thing denied: "AVX2 won't always be there", "X isn't always set"
    r"|(?P<old3>[\w.@/+#-]+) (?:won'?t|wont|will not|isn'?t|isnt|is not|aren'?t|are not|"
    r"doesn'?t|doesnt|does not|can'?t|cannot) (?:always|necessarily)\b",
    re.I,
)


# "summarise the checkpoint scope, not the entire log": the thing after ", not" is rejected;
# after a preposition, its object ("put them in .env.example, not as settings defaults").
_AFTER_NOT = re.compile(
    r"\w,?(?: i think| i guess| i'd say)?,\s+not "
    # "ok, not sure if …", "yes, not yet": a hedge, not a thing rejected
    rf"(?!(?:{'|'.join(HEDGED_NOT)})\b)(?:(?:as|in|into|inside|on|under|via|with|through) )?"
    r"(?:the |a |an |any )?"
    r"(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
    re.I,
)
# Discourse shapes that push back on the agent's last message: an objection ("but then …",
# "but you couldn't …"), a simpler alternative ("or just …"), a contrast ("it doesn't hang, it
# quits"), something that already exists ("there's already a helper for that").
_PUSHBACK = re.compile(
    r"^(?:but (?:then|you|that|this|it|we|wouldn'?t|won'?t|isn'?t|doesn'?t)|or just|or rather)\b"
    r"|\b(?:it|this|that) (?:doesn'?t|does not|isn'?t|is not|didn'?t|won'?t) \w+,? "
    r"(?:it|but it|it just) \w+"
    r"|^(?:there'?s|there is|there are|we(?:'ve| have)) already\b",
    re.I,
)


# What not to do, then what to do instead: "don't store tokens there, put them in a cookie",
# "I don't want the marks anymore, just remove this part" (AlexandreVassard__will-it-rain),
# "don't apply them yet - can you cull the candidates first" (saross__trap-extraction). The
# rejected thing is what the agent said it did or would do (agent_claim).
_DONT_INSTEAD = re.compile(
    r"^(?:\W*(?:ok(?:ay)?|yes|no|but|and|so|please)\b[,!]?\s*)*(?:don'?t|do not|never)\s+"
    r"(?!forget\b|worry\b)\w+\s[^,;.!?\n]{2,60}?(?:[,;]|\s[-—–]\s)\s*(?P<then>\S.{3,})$",
    re.I,
)
# A thing the person says cannot work, then what to do: "regex isn't going to work, you need to
# read them manually" (saross__trap-extraction), "<url> doesnt work and … fix the system"
# (SWORDIntel__claude-backups: a failure report, read by claims.reports_failure, as any "it
# doesn't work" is).
_WONT_WORK = re.compile(
    rf"^(?!{acts.alternation('subject_pronoun')}\b)(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?) (?:isn'?t|is not|won'?t|"
    r"will not|wont|aren'?t|are not) (?:going to )?work\b[^,;]*[,;-]\s*(?P<then>\S.{3,})$",
    re.I,
)


def instead_clause(text: str) -> str | None:
    """The clause that says what to do instead after a rejection ("don't X, do Y" → "do Y";
    "X isn't going to work, you need Y" → "you need Y"), or ``None``."""
    m = _DONT_INSTEAD.match(text) or _WONT_WORK.match(text)
    return m.group("then").strip() if m else None


_MARKER = re.compile(
    rf"^\s*(?:(?:{acts.alternation('refusal')}|{acts.alternation('correcting')}|hm+|erm+|uh+)"
    r"\b[,.!:;]*\s*)+",
    re.I,
)


# A quantity as written: "100", "2.5", "8h30" stays one token; list markers ("1.") are not.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:h]\d+)?(?![\w])(?!\.\s)")
# Words, one number and sentence punctuation: no symbols of pasted output or code.
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?[.,!…-]*|\d+(?:[.,:h]\d+)?[.,!…-]*")
# A counter-proposal is a short reply: a longer one that holds a number describes, not proposes.
COUNTER_WORDS = 8


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(speech.strip_code(text)))


def counters_number(sentence: str, before: str) -> bool:
    """A short reply that names a quantity the agent's last statements did not, when those
    statements proposed one ("let's make it 40" after "I'd cap the retries at 5"): the
    person's number replaces the agent's."""
    text = speech.strip_code(sentence).strip()
    if not before.strip() or speech.is_question(text) or len(text.split()) > COUNTER_WORDS:
        return False
    if not all(_PLAIN_WORD.fullmatch(w) for w in text.split()):
        return False  # pasted output, a log line, code: not something said
    mine = _numbers(text)
    if len(mine) != 1:
        return False
    theirs = _numbers(" ".join(_statements(before, questions=True)[-RECENT_STATEMENTS:]))
    # any digits the agent wrote, list markers too: "2" after a numbered menu picks an option
    return bool(theirs) and not mine & set(re.findall(r"\d+", before))


def _numbered_claim(before: str) -> str | None:
    """The agent's latest statement (a question too: "keep it at 50 or go to 20?") that names
    a quantity."""
    for sentence in reversed(_statements(before, questions=True)[-RECENT_STATEMENTS:]):
        if _numbers(sentence):
            return sentence
    return None


def pushes_back(sentence: str, before: str) -> bool:
    """An explicit objection to the agent's last message (see ``_PUSHBACK``)."""
    return bool(before.strip()) and bool(_PUSHBACK.search(speech.strip_code(sentence).strip()))


# Where pasted output glued to the person's words begins: a symbol of logs, tables or UIs.
_PASTE_START = re.compile(r"\s[●○■│┃|{}\[\]<>=$;❯⎿]")


def said_part(sentence: str) -> str:
    """ "DEBUG these ● Optimizer(Optimize run.sh)" → "DEBUG these": a label is the person's
    words, not the output pasted after them (the summary keeps the whole)."""
    head = _PASTE_START.split(sentence, maxsplit=1)[0].strip()
    return head if len(head.split()) >= 2 else sentence


# "no" and the word after it, nothing between: a refusal ("no fix the agents") or a determiner
# ("No survey that day", saross__trap-extraction; "No unbounded loops", yashpunmiya__Solsmile).
_BARE_NO = re.compile(r"^\s*no\s+(?P<w>[\w'’-]+)", re.I)


def unmarked(sentence: str) -> str:
    """ "No, use Redis for the cart" → "use Redis for the cart": the correcting marker is not
    part of what is said instead; "No survey that day" keeps its "No": it says there was none."""
    m = _BARE_NO.match(sentence)
    if m and not speech.names_no_thing(m.group("w")):
        return sentence
    return _MARKER.sub("", sentence)


def rejects_something(sentence: str, before: str = "") -> bool:
    """Correction language the gate's cues do not cover: "X is too much", "don't use X",
    "Y, not X"; and, in reply to the agent, an objection, a simpler alternative, a contrast,
    a quantity other than the one it proposed."""
    text = speech.strip_code(sentence).strip()
    if _NEGATED.search(text) or _AFTER_NOT.search(text) or instead_clause(text):
        return True
    return (
        pushes_back(text, before)
        or counters_number(text, before)
        or claims.reports_failure(text, before)
        or claims.other_quantity(text, before)
        or claims.contradicted_statement(text, before) is not None
        or claims.split_name(text, before) is not None
        or claims.denied_inability(text, [before]) is not None
    )


def correction(plan: Plan, sentence: str, before: str, reason: str) -> str | None:
    """A correction that replaces no decision: what the person states now supersedes what it
    rejects: a thing it negates ("don't use /tmp"), else the agent's claim it contradicts.
    With nothing to reject (a session's first prompt: no agent message, no such thing in the
    graph) it corrects nothing, and is none."""
    text = speech.strip_code(sentence).strip()
    said = said_part(unmarked(text))
    label = statement_label(instead_clause(said) or said)
    asked = " ".join(said.split())
    if len(label.split()) < 2 and asked.endswith("?") and len(asked) <= MAX_STATEMENT:
        label = asked  # "why won't you run it?": the question stays one, with its mark
    if len(label.split()) < 2:  # no clause reads as a label: the person's first words
        label = clauses.clause(said, 8)
    if len(label.split()) < 2:
        return None
    old = rejected(plan, text, before, reason)
    if old is None:
        return None
    cid = plan.node(
        clip(label[:1].upper() + label[1:], 80),
        "correction",
        "project",
        f"the person corrects: {reason}",
        summary=clip(" ".join([text, wanted_instead(text, plan.prompt_of(text))]), 190),
    )
    if cid is not None and cid != old:
        plan.edge(cid, "supersedes", old, f"corrected in {reason}")
    return cid


_WANT = re.compile(r"\b(?:don'?t|do not|no longer)\s+(?P<verb>\w+)\b", re.I)


def wanted_instead(text: str, prompt: str) -> str:
    """ "I don't want the ✓ marks anymore. I want a coloured dot": the sentence right after a
    rejection that says, with the rejected verb unnegated or as a choice, what is wanted
    instead. Else ""."""
    m = _WANT.search(text)
    at = prompt.find(text[:40]) if m and text[:40] else -1
    if at < 0:
        return ""
    rest = prompt[at + len(text) :].lstrip(" \n.!")
    nxt = re.split(r"(?<=[.!?])\s+|\n+", rest, maxsplit=1)[0].strip()
    if not nxt or speech.is_question(nxt) or _WANT.search(nxt) or claims._negative(nxt):
        return ""
    verb = m.group("verb").lower() if m else ""
    same = re.search(rf"\b{re.escape(verb)}\b", nxt, re.I)
    return nxt if same or speech.decision_phrase(nxt) else ""


def _rejected_phrase(plan: Plan, phrase: str) -> str | None:
    """A thing named by a phrase thing() cannot take (symbols, "A or B"): the phrase as is."""
    if all(re.search(r"\w", w) for w in phrase.split()):
        return thing(plan, phrase)
    label = clip(" ".join(phrase.split()), 40)
    if len(normalize_term(label).replace(" ", "")) < 3:
        label = f"Rejected: {label}"  # symbols alone make no name (nor an id)
    return plan.node(label, "entity", "technical", f"rejected in a correction: {label}")


def rejected(plan: Plan, text: str, before: str, reason: str) -> str | None:
    """What a correction rejects: the thing it negates ("don't use /tmp", "Y, not X"), else the
    agent's statement it contradicts."""
    m = _NEGATED.search(text) or _AFTER_NOT.search(text) or _WONT_WORK.match(text)
    named = next((v for k, v in m.groupdict().items() if v and k != "then"), "") if m else ""
    named = named or claims.split_name(text, before) or ""
    old = _rejected_phrase(plan, named.rstrip(".,;:!?")) if named else None
    if old is None and counters_number(text, before):
        return claim_node(plan, _numbered_claim(before), reason)
    wording = None if old else claims.old_wording(text, plan.prompt_of(text))
    if wording:  # 'it says "Retry later" … should say "Try again"'
        return plan.node(
            clip(f'"{wording}"', 80),
            "concept",
            "project",
            f"the wording a correction replaces in {reason}",
            summary=wording,
        )
    return old or agent_claim(plan, text, before, reason)


def undone_work(plan: Plan, reversal: str, before: str, reason: str) -> None:
    """A reversal ("let's roll back") undoes, besides the latest decision, the work the agent
    reported doing ("the redirects I added")."""
    old = claim_node(plan, claims.work_done(before), reason) if before.strip() else None
    if old and old != reversal:
        plan.edge(reversal, "supersedes", old, f"undone in {reason}")


def _earlier(plan: Plan, text: str) -> str:
    """The agent's message before the one a sentence of the person's answers."""
    said = [plan.req.earlier, plan.req.before]
    for t in plan.req.turns:
        if text[:40] in (t.user or ""):
            break
        said.append(t.assistant)
    said = [m for m in said if m and m.strip()]
    return said[-2] if len(said) > 1 else ""


def agent_claim(plan: Plan, text: str, before: str, reason: str) -> str | None:
    """The agent's statement a correction contradicts, as a node it can supersede: the point
    a numbered reply answers, the figure a quantity contradicts, the success claim a failure
    report contradicts, else the statement the correction is most about."""
    if not before.strip():
        return None
    cannot = claims.denied_inability(text, [_earlier(plan, text), before])
    if cannot:  # "you can restart yourself" against "I can't quit myself"
        return claim_node(plan, cannot, reason)
    point = claims.answered_point(text, plan.prompt_of(text), before)
    if point:
        return claim_node(plan, point, reason)
    if claims.other_quantity(text, before):
        return claim_node(plan, claims.quantity_claim(text, before), reason)
    able = claims.denied_ability(text, [_earlier(plan, text), before])
    if able:  # "but you couldn't detect X" against "We can detect X:", with what it proposed
        names = claims.names_after(able, before) or claims.names_after(able, _earlier(plan, text))
        more = f" · names: {', '.join(names)}" if names else ""
        return claim_node(plan, able, reason, summary=claims.with_items(able, before) + more)
    flat = claims.contradicted_statement(text, before)
    if flat:
        return claim_node(plan, flat, reason)
    # "it should be Apr 3" after "the sheet is dated Apr 4": the statement of the value replaced
    valued = values.replaced_statement(text, _statements(before), before)
    if valued:
        return claim_node(plan, valued, reason, summary=claims.with_items(valued, before))
    claim = _contradicted_claim(text, before, _earlier(plan, text))
    if claims.reports_failure(text, before):
        # The report contradicts the agent's account of success as a whole: the claim it is
        # about (else the latest) names the node, the others stay in its summary.
        plain = unmark(claim or "").strip()
        won = claims.success_claims(before, echo=text)
        won = ([plain] if claims.is_success(plain) else []) + [c for c in won if c != plain]
        return claim_node(plan, won[0], reason, summary=" · ".join(won[:4]))
    return claim_node(
        plan, claim, reason, summary=claims.with_items(claim, before) if claim else ""
    )


def claim_node(plan: Plan, claim: str | None, reason: str, summary: str = "") -> str | None:
    """An agent's statement as a node a correction can supersede."""
    if not claim:
        return None
    plain = unmark(claim, "#|").strip()
    # "Done, the build passes on every platform", "No problem - let's use the subtree split": the
    # claim is after a one- or two-word opener
    plain = re.sub(r"^[\w'!]+(?:\s[\w'!]+)?\s?[,:!—–-]\s+(?=\S+\s+\S+\s+\S+)", "", plain)
    words = clauses.clause(plain, 7)
    return plan.node(
        clip(claim_label(words), 60),
        "concept",
        "project",
        f"what the agent said before the correction in {reason}",
        summary=clip(summary or claim, 190),
        attrs={SAID_BY: AGENT},  # rendered as "corrects the agent: …" (render_claims)
    )


def supersede_claim(plan: Plan, new: str, text: str, before: str, reason: str) -> None:
    """A correction, or a decision or request made in correcting tone, replaces what it
    rejects."""
    old = rejected(plan, speech.strip_code(text).strip(), before, reason)
    if old and old != new:
        plan.edge(new, "supersedes", old, f"corrected in {reason}")


# A reply that opens by refusing: "no, …", "stop", "don't".
_REFUSAL = re.compile(rf"^\W*(?:{acts.alternation('refusal')}|stop|don'?t|do not)\b", re.I)
# The agent's last few statements are what a reply reacts to; an older one only when the
# correction shares two words with it.
RECENT_STATEMENTS = 4
# A statement of the agent's message before the last one wins when it shares this many more
# content words with the correction, and at least FLAT_SHARED.
CLEARLY_MORE = 2
FLAT_SHARED = claims.FLAT_SHARED


def _contradicted_claim(correction_text: str, before: str, earlier: str = "") -> str | None:
    """The statement of the agent's last message that the correction is most about (shared
    content words, among its last few), else its last statement; one of the message before,
    when it shares clearly more."""
    from rolling_graph.probe.offline.decisions import content_words

    sentences = _statements(before)
    if not sentences:
        return None
    mine = content_words(correction_text)
    shared = [len(content_words(x) & mine) for x in sentences]
    old = [(len(content_words(x) & mine), i, x) for i, x in enumerate(_statements(earlier))]
    if old and max(old)[0] >= max(shared) + CLEARLY_MORE and max(old)[0] >= FLAT_SHARED:
        return max(old)[2]  # "the retry loop you wrote needs a cap" about the turn before
    recent = range(max(0, len(sentences) - RECENT_STATEMENTS), len(sentences))
    plans = [i for i in recent if claims.announces(sentences[i])]
    best = max(recent, key=lambda i: (shared[i], i))
    older = max(range(len(sentences)), key=lambda i: (shared[i], i))
    if plans and max(shared) < 2 and _REFUSAL.match(correction_text):
        # "no, …" about nothing the agent said twice over: it refuses what the agent said it
        # would do ("Let me skip the build:")
        return sentences[max(plans, key=lambda i: (shared[i], i))]
    if shared[best]:
        return sentences[best]
    if shared[older] >= 2:
        return sentences[older]
    # No words in common, but a value of a shape the agent gave ("the scans are Day_03.pdf"
    # after "I read 20101102.pdf"): the statement of the agent's value
    valued = values.replaced_statement(correction_text, sentences, before, named=False)
    if valued:
        return valued
    # About nothing the agent named: after a report that ends in success (not in what the agent
    # will do next), the claim of success is what the correction denies ("we haven't touched any
    # files" after "it's working").
    won = claims.success_claims(before)
    return won[0] if won and not claims.announces(sentences[-1]) else sentences[-1]


def _statements(before: str, questions: bool = False) -> list[str]:
    return claims.statements(before, questions)
