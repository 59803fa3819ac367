"""What the person said, turn by turn: names become nodes, and each sentence is read for what it
does (asks for work, chooses, corrects, binds with a deadline or a rule, names a colleague, talks
about their own life). The agent's text before a prompt resolves "option 2" and "yes, do that".
"""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.core.slug import normalize_term, slugify
from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline import (
    asked_values,
    clauses,
    commands,
    dates,
    instruments,
    intent,
    objects,
    offers,
    options,
    points,
    proposals,
    questions,
    referents,
    speech,
)
from rolling_graph.probe.offline import corrections as correcting
from rolling_graph.probe.offline.decisions import (
    USE_WORDS,
    content_words,
    decisions_in,
    live_decisions,
    means,
    naming,
    own_plan,
    replace_entities,
    replaced,
    unclipped,
)
from rolling_graph.probe.offline.entities import (
    KIND_PRIORITY,
    entity_node,
    is_name_word,
    occurrences,
    useful,
)
from rolling_graph.probe.offline.labels import fit
from rolling_graph.probe.offline.markup import without_console
from rolling_graph.probe.offline.plan import (
    MAX_DECISIONS,
    MAX_PAIR_ENTITIES,
    REDACTED,
    Plan,
    clip,
    kind_of,
    label_of,
    quote,
)


def _clauses(part: str) -> list[str]:
    """A sentence split before a request that follows a statement of at least three words
    (``speech.ASKED_AFTER``): "I'll review the sheet - while I do that, could you check the
    form?" (saross__trap-extraction), "let's do 2 for now, can you create the linear issue?"
    (entireio__cli). Each part is read as a sentence."""
    out = [part]
    for m in reversed(list(speech.ASKED_AFTER.finditer(part))):
        if len(out[0][: m.start()].split()) >= 3:
            out[0:1] = [out[0][: m.end()], out[0][m.end() :]]  # the comma stays, offsets hold
    return out


def sentences(text: str, nlp_mod: Any, model: str) -> list[tuple[str, list[Any], str, str]]:
    """(sentence, entities in it, its domain, the whole sentence a clause was split from) for
    each sentence of ``text``."""
    doc = nlp_mod.analyse(text, model)
    ents = nlp_mod.entities_from_doc(doc)
    out = []
    for sent in doc.sents:
        # Lines and list items are sentences of their own ("- use OpenWeatherMap").
        start = sent.start_char
        for part in re.split(r"(\n+\s*(?:[-*•]|\d{1,2}[.)])?\s*)", sent.text):
            end = start + len(part)
            if part.strip() and not re.fullmatch(r"\n+\s*(?:[-*•]|\d{1,2}[.)])?\s*", part):
                at = start
                for clause in _clauses(part):
                    s_ents = [e for e in ents if at <= e.start < at + len(clause)]
                    out.append((clause.strip().rstrip(",").rstrip(), s_ents, part.strip()))
                    at += len(clause)
            start = end
    dom = nlp_mod.classify_domain(text, doc=doc).winner
    return [(s, e, dom, whole) for s, e, whole in out]


_CONTINUED = re.compile(r"\\(?=\n)")


def prompt_activity(plan: Plan, req: ProbeRequest, nlp_mod: Any, model: str) -> None:
    # the agent's text just before the prompt: what "option 2" or "yes" answers
    before = REDACTED.sub(" ", req.before or "")
    earlier = REDACTED.sub(" ", req.earlier or "")
    for t in req.turns:
        # a backslash before a line break is how the person typed the break (Claude Code's
        # input; an /export keeps it): a space, so offsets into the prompt hold
        text = without_console(_CONTINUED.sub(" ", REDACTED.sub(" ", t.user or "")))
        if text.strip():
            first = len(plan.decisions)
            _prompt(plan, req, t.turn, text, before, nlp_mod, model)
            for did in plan.decisions[first:]:
                _refers_back(plan, did, text, [before, earlier], t.turn)
        if t.assistant:
            before, earlier = REDACTED.sub(" ", t.assistant), before


def _refers_back(plan: Plan, did: str, text: str, messages: list[str], turn: int) -> None:
    """A decision made in this prompt keeps what its definite nouns refer back to."""
    summary = plan.new.get(did, {}).get("summary", "")
    at = text.find(summary[:40]) if summary else -1
    said = text[:at] if at > 0 else ""
    referents.carry(plan, did, said, [m for m in messages if m], f"turn {turn}")


def _prompt(
    plan: Plan, req: ProbeRequest, turn: int, text: str, before: str, nlp_mod: Any, model: str
) -> None:
    reason = f"turn {turn}: {quote(text)}"
    intent.task_done(plan, text, reason)
    answered = questions.answered_questions(plan, text, before, reason)
    answered = answered or points.approved_points(plan, text, before, reason)
    # An answer sheet to numbered questions is not a pick of "option 1".
    if answered:
        picked: str | None = answered[0]
    elif options.quoted_back(text, before):
        picked = None  # a line of the agent's pasted back to discuss picks nothing
    else:
        picked = intent.options_decision(plan, text, before, reason)
    item = options.named_item(text, before) if before and not picked else None
    if item:  # "install usage4claude" after four apps and "help installing one of these?"
        picked = plan.decision(
            f"Use {item[0]}",
            f"picked among what the agent listed: {reason}",
            clip(f"{text} — among {', '.join(item[1])}", 190),
        )
    if before and not picked:  # "eu-west-1" after "Which region should it live in?"
        picked = asked_values.value_answer(plan, text, before, reason)
    for sentence, ents, domain, whole in sentences(text, nlp_mod, model)[:12]:
        _sentence(plan, req, turn, sentence, ents, domain, before, nlp_mod, picked, whole)
        picked = None
    _spec_decisions(plan, text, reason)


def _spec_decisions(plan: Plan, text: str, reason: str) -> None:
    """ "the sort would need to be something like: - group by X - order by Y": one decision per
    item of the person's design."""
    for item, lead in proposals.spec_items(text):
        if len(plan.decisions) >= MAX_DECISIONS:
            return
        plan.decision(
            item[:1].upper() + item[1:],
            f"how the person says it is to be: {reason}",
            summary=f"{lead} {item}",
        )


def _named(
    plan: Plan,
    req: ProbeRequest,
    sentence: str,
    ents: list[Any],
    domain: str,
    reason: str,
    persons: list[str],
) -> list[str]:
    """Entities of the sentence as nodes, and nodes it names again (strengthened)."""
    person_words = {
        w for pid in persons for w in normalize_term(plan.new.get(pid, {}).get("label", "")).split()
    }
    named = [
        e for e in ents if useful(e) and not set(normalize_term(e.text).split()) <= person_words
    ]
    named.sort(key=lambda e: (KIND_PRIORITY.get(e.kind, 9), e.start))
    ids: list[str] = list(persons)
    for e in named:
        nid = entity_node(plan, e, domain, f"named in {reason}")
        if nid and nid not in ids:
            ids.append(nid)
    norm_sentence = f" {normalize_term(sentence)} "
    existing = plan.existing
    for term, nid in plan.known.items():
        if len(term) >= 3 and f" {term} " in norm_sentence and nid in existing:
            label = label_of(req, nid)
            # "Build", "Bento": a capitalised one-word name is mentioned only as written, not
            # by its common-word homonym ("build it").
            if (
                is_name_word(label)
                and term == normalize_term(label)
                and not occurrences(label, sentence, exact_case=True)
            ):
                continue
            plan.strengthen(nid, f"mentioned again in {reason}")
            if nid not in ids:
                ids.append(nid)
    return ids


def _sentence(
    plan: Plan,
    req: ProbeRequest,
    turn: int,
    sentence: str,
    ents: list[Any],
    domain: str,
    before: str,
    nlp_mod: Any,
    picked: str | None,
    whole: str = "",
) -> None:
    reason = f"turn {turn}: {quote(sentence)}"
    persons = intent.people(plan, sentence, reason)
    if domain == "personal" and not speech.is_aside(sentence) and _names_the_work(plan, sentence):
        domain = "project"  # the lexicon's "home", "personal": words of the work here
    ids = _named(plan, req, sentence, ents, domain, reason, persons)
    aside = speech.is_aside(sentence) or domain == "personal" and not persons
    corrections = nlp_mod.correction_cues(sentence)
    if not corrections and correcting.rejects_something(sentence, before):
        corrections = ["rejects"]
    decision = picked or _decision(
        plan, req, sentence, ids, domain, corrections, reason, before, context=whole
    )
    task = None if aside else _task(plan, sentence, before, reason, decision, ents, whole)
    if (
        decision
        and corrections
        and (not plan.replaced(decision) or correcting.pushes_back(sentence, before))
    ):
        # A choice made in correcting tone with no earlier decision to replace: it replaces
        # what it rejects, else the agent's statement it answers.
        correcting.supersede_claim(plan, decision, sentence, before, reason)
    if corrections and not speech.is_question(sentence) or corrections and before:
        intent.supersede_entities(plan, sentence, reason)
        if decision is None:
            decision = intent.reversal_decision(plan, req, sentence, reason)
            if decision is not None:  # "let's roll back": the agent's own work goes too
                correcting.undone_work(plan, decision, before, reason)
        if decision is None and task is None:
            correcting.correction(plan, sentence, before, reason)
        elif decision is None and task is not None:
            # "No, debug these two scripts": the request replaces what the agent announced.
            correcting.supersede_claim(plan, task, sentence, before, reason)
    if aside:
        _aside(plan, sentence, reason)
    intent.constraints(plan, sentence, reason, task, decision, persons)
    if task and decision and task != decision:
        plan.edge(task, "uses", decision, f"the work follows the decision: {reason}")
    for pid in persons:
        target = task or (intent.active_task(plan) if dates.deadline(sentence) else None)
        if target:
            plan.edge(pid, "depends-on", target, f"waits on it: {reason}")
    pair = [i for i in ids if i not in persons][:MAX_PAIR_ENTITIES]
    for i, a in enumerate(pair):
        for b in pair[i + 1 :]:
            plan.edge(a, "relates-to", b, f"named together in {reason}", symmetric=True)
    if len(ids) >= 2 and USE_WORDS.search(sentence):
        tools = [i for i in ids if kind_of(plan, req, i) == "tool"]
        users = [i for i in ids if kind_of(plan, req, i) not in ("tool", "decision", "person")]
        if tools and users:
            for tool in tools[:2]:
                plan.edge(users[0], "uses", tool, f"'use' with both named in {reason}")
    if task:
        for nid in ids[:3]:
            if nid not in persons and kind_of(plan, req, nid) not in ("task", "decision"):
                plan.edge(task, "uses", nid, f"the work names it: {reason}")


def _task(
    plan: Plan,
    sentence: str,
    before: str,
    reason: str,
    decision: str | None = None,
    ents: list[Any] | None = None,
    whole: str = "",
) -> str | None:
    summary = speech.strip_code(whole or sentence)  # a clause keeps its sentence
    point = points.answered(sentence, plan.prompt_of(sentence), before) if before else None
    if point:  # "7. (generate rules)": the agent's point 7 says what about
        summary = f"{summary} — on the agent's point: {point[0]}"
    summary = clip(summary, 190)
    skill = speech.skill_task(sentence)  # a skill run is work, even when it asks a question
    if skill:
        return intent.add_task(plan, skill, reason, summary)
    if (
        speech.is_question(sentence)
        and not speech.asks_for_work(sentence)
        and not objects.requested(sentence)  # "can we add some tests?" asks for work
    ):
        return None
    phrase = speech.task_phrase(sentence) or commands.bare_command(sentence, ents or [])
    if phrase is None and decision is None:
        # "the export is still slow, profile it": the request follows a clause that asks none
        said = correcting.unmarked(correcting.said_part(sentence))  # "No, lint these ●…"
        phrase = next(iter(speech.further_requests(said)), None)
    # "let's examine 2" after a numbered list: the work is the agent's point 2
    if decision is None:  # "let's do 2" that picked option 2 asks for no work of its own
        phrase = points.point_work(sentence, before) or phrase
    if phrase is None:
        return None
    words = phrase.lower().split()
    obj = phrase.partition(" ")[2]
    if decision is not None and words[0] in ("do", "make") and not speech.errand(words[0], obj):
        return None  # "let's do 2 for now": the pick itself, no work of its own
    if len(words) <= 3 and any(w in ("it", "this", "that", "them") for w in words[1:]):
        offer = offers.approved_offer(before)  # "yes, do it" after "Want me to add tests?"
        if offer is None:
            return None
        phrase = offer
    if decision is not None and slugify(clip(phrase, 80)) == decision:
        # "let's bump it to a follow-up - create an issue - …": the first clause is the
        # decision; the work asked for is the next one.
        rest = re.split(r"\s[-—–]+\s|;\s|,\s*(?:and\s+|then\s+)?", sentence, maxsplit=1)[1:]
        phrase = speech.task_phrase(rest[0]) if rest else None
        if phrase is None:
            return None
    return intent.add_task(plan, phrase, reason, summary)


def _decision(
    plan: Plan,
    req: ProbeRequest,
    sentence: str,
    ids: list[str],
    domain: str,
    corrections: list[str],
    reason: str,
    before: str = "",
    context: str = "",
) -> str | None:
    said = sentence
    stated = speech.decision_phrase(sentence)
    if stated and proposals.not_a_choice(sentence, *stated):
        stated = None  # "a branch which we'll merge to main", "let's make sure …"
    if not stated and corrections:  # "No, use Redis for the cart"
        stated = speech.decision_phrase(correcting.unmarked(sentence))
    if not stated and before and options.asks_to_choose(before):
        stated = speech.decision_phrase(options.unhedged(sentence))
    stated = stated or own_plan(sentence) or naming(sentence) or means(sentence)
    stated = stated or instruments.request_means(sentence) or instruments.built_on(sentence)
    stated = stated or proposals.instead(sentence) or proposals.opinion_choice(sentence)
    stated = stated or speech.behaviour(sentence)  # "the timeout should be 10 seconds"
    if not stated and before and options.asks_to_choose(before):
        stated = proposals.counter_proposal(sentence)
    if not stated and not corrections and before:  # "UTC timestamps make sense to me"
        agreed = objects.agreement(plan, sentence, before, reason)
        if agreed:
            return agreed
    found = [stated] if stated else []
    if not found and corrections:
        found = [(label, obj) for label, obj in decisions_in(sentence, []) if label][:1]
    if not found or len(plan.decisions) >= MAX_DECISIONS:
        return None
    whole = unclipped(*found[0], sentence)
    if whole is None:
        return None
    label, obj = whole
    option = options.expanded_option(obj, before) if before else None
    if option:  # "use ps GPG alt": the option it abbreviates, in the agent's words
        label, sentence = options.headline(option), f"{sentence} — {option}"
    candidates = live_decisions(plan, req.turn) if corrections else []
    # a clause keeps its whole sentence in the summary ("…, can you give a json example for
    # your better option?" says what the choice is about)
    summary = sentence.replace(said, context, 1) if context else sentence
    did = plan.node(
        clip(label, 80), "decision", domain or "project", f"decision in {reason}", summary=summary
    )
    if did is None:
        return None
    if did not in plan.decisions:
        plan.decisions.append(did)
    norm_obj = normalize_term(obj)
    for e_id in ids:
        lab = normalize_term(plan.new.get(e_id, {}).get("label", "") or label_of(req, e_id))
        if lab and f" {lab} " in f" {norm_obj} ":
            plan.edge(did, "uses", e_id, f"the decision names it ({reason})")
    if corrections:
        old = replaced(plan, req, sentence, did, candidates)
        if old:
            plan.edge(
                did, "supersedes", old, f"correction ({', '.join(corrections[:3])}) in {reason}"
            )
            replace_entities(plan, req, old, obj, ids, reason)
    return did


_WORK_DOMAINS = ("project", "technical")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _names_the_work(plan: Plan, sentence: str) -> bool:
    """Whether a sentence the domain lexicon reads as personal names what the session works
    on: a content word of it is a word of the name of a project or technical node ("check the
    weather at departure time (home)" where DEPARTURE_HOUR is known; "traceability of DNS
    queries for personal inspection" in a session about DNS). Then it is about the work, not an
    aside; the words of the person's own life (:func:`speech.is_aside`) still make one."""
    mine = content_words(sentence)
    if not mine:
        return False
    names = [(n.label, *n.aliases) for n in plan.req.nodes if n.domain in _WORK_DOMAINS]
    names += [
        (v["label"], *v.get("aliases", []))
        for v in plan.new.values()
        if v.get("domain") in _WORK_DOMAINS
    ]
    return any(mine & content_words(_CAMEL.sub(" ", text)) for name in names for text in name)


def _aside(plan: Plan, sentence: str, reason: str) -> None:
    """A personal aside: remembered in the personal domain, apart from the work. Its label is
    the clause that says the personal thing, without the lead-in ("Unrelated, but remind me:")."""
    text = speech.strip_code(sentence).strip()
    parts = [c.strip() for c in re.split(r"[,;:.!?\n]+", text) if c.strip()]
    marked = [c for c in parts if speech.is_aside(c)] or parts
    best = max(marked, key=lambda c: (speech.is_aside(c), len(c.split()) >= 3, -parts.index(c)))
    best = re.sub(rf"^{speech.PREAMBLE}", "", best, flags=re.I)
    best = re.sub(
        r"^(?:(?:personal note|side note|unrelated|btw|by the way|off topic|also)\s*)?"
        r"(?:remind me to|i need to|i have to|i must|don'?t let me forget to)?\s*",
        "",
        best,
        flags=re.I,
    )
    # The whole clause ("pick up my son from football practice at the community centre"), cut
    # at a word within the node's room, never after a dangling "at".
    label = fit(clauses.clause(best, 16), 80)
    if len(label.split()) < 2:
        return
    when = dates.deadline(sentence) or dates.day_named(sentence)
    plan.node(
        label[:1].upper() + label[1:],
        "task" if speech.task_phrase(best) else "concept",
        "personal",
        f"a personal aside: {reason}",
        summary=sentence,
        attrs={"when": when} if when else None,
    )
