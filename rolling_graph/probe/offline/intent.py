"""What the person means, as graph structure: tasks they ask for, decisions (including a pick
among the options the agent just offered), corrections that supersede, people with their role
and team, deadlines and requirements as attributes of what they bind, personal asides.

Reads one prompt (with the agent's text before it) and adds to the :class:`Plan`; the sentence
level reading is :mod:`rolling_graph.probe.offline.speech`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.core.slug import normalize_term
from rolling_graph.core.task_lifecycle import ANSWER, referred_task, task_reference
from rolling_graph.nlp.text import without_recommendation
from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline import acts, clauses, dates, offers, speech
from rolling_graph.probe.offline import options as choices
from rolling_graph.probe.offline import people as persons
from rolling_graph.probe.offline.decisions import approved_offer_detail
from rolling_graph.probe.offline.markup import unmark
from rolling_graph.probe.offline.plan import Plan, clip, kind_of, label_of, quote
from rolling_graph.probe.offline.proposals import PROPOSAL_Q, approved_proposal

# A prompt may ask for several pieces of work ("1. … 2. … 3. …" answering an audit point by
# point, M-Thisness__M-Claude; several requests in one message, saross__trap-extraction).
MAX_TASKS = 4
# "A.", "b", "2", "option 3", "the second one", "2 and 3", "go with B", "yes, A", "start with
# option 4, 5" (M-Thisness__M-Claude; "start with Option A", saross__trap-extraction).
_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "last": "-1"}
_PICK = re.compile(
    rf"^\s*(?:(?:{acts.assent()}|i think|i'?d say|i prefer|prefer|let'?s|lets|"
    r"go with|do|pick|choose|take|try|start|begin)[,!.]?\s+)*(?:(?:go|do|with|for|the)\s+)*"
    r"(?:option|approach|choice|number|no\.?|#)?\s*(?P<key>[a-e]|[1-9])\s*(?:[.)!:,]|\s|$)"
    # a second key: "2 and 3", "A & B"; after a comma, a number only ("4, 5", not "B, a bit")
    r"(?:\s*(?:and|&|\+|,)\s*(?P<key2>[a-e]|[1-9])\b|(?<=,)\s*(?P<key3>[1-9])\b)?",
    re.I,
)
_ORDINAL_PICK = re.compile(
    r"\b(?:the )?(?P<ord>first|second|third|fourth|fifth|last) (?:one|option|approach)\b", re.I
)
_OPTION_LINE = re.compile(
    r"^\s*(?:[-*]\s*)?(?:#{1,4}\s*)?(?:\*\*)?\s*(?:option|approach|choice)?\s*"
    r"(?P<key>[A-Ea-e]|[1-9])\s*[.):—–-]\s*(?:\*\*)?\s*(?P<title>.{3,200})$",
    re.M | re.I,
)
_OPTION_HEAD = re.compile(
    r"^\s*(?:#{1,4}\s*|\*\*)\s*(?:option|approach|choice)\s+(?P<key>[A-Ea-e]|[1-9])\b[^\w\n]*"
    r"(?P<title>[^\n]{3,200})$",
    re.M | re.I,
)
_OPTION_ROW = re.compile(
    r"^\s*\|\s*(?:\*\*)?\s*(?:option\s+)?(?P<key>[A-Ea-e]|[1-9])\s*[.):—–-]\s*(?P<title>[^|\n]{2,160}?)"
    r"\s*(?:\*\*)?\s*\|",
    re.M | re.I,
)
_RECOMMENDED_KEY = re.compile(
    r"\b(?:i(?:'d| would)? (?:recommend|suggest|lean towards?)|recommend(?:ed|ation)?:?|"
    r"my (?:take|pick|vote|preference|choice)(?: would be| is)?:?)\s+"
    r"(?:\*\*)?(?:option|approach|choice)\s+(?P<key>[A-Ea-e]|[1-9])\b",
    re.I,
)
# The agent's proposal a bare "yes" approves: "I'd recommend X", "my suggestion: X", "the
# cleanest fix is to X" (agent messages in entireio__cli, M-Thisness__M-Claude, mode89__welpy,
# pinion05__agent-complex-task).
_RECOMMEND = re.compile(
    r"\b(?:i(?:'d| would) (?:recommend|suggest|propose|go with|lean towards?)|i recommend|"
    r"i suggest|i propose|my (?:recommendation|suggestion|proposal)(?: is)?|"
    r"recommended(?: approach| option)?|the (?:cleanest|simplest|best|safest|easiest) "
    r"(?:fix|approach|option|way|solution|path)(?: here)? (?:is|would be)(?: to)?)"
    r"\s*[:—–-]?\s*(?P<what>[^\n.]{3,160})",
    re.I,
)
_DONE = re.compile(
    r"^\s*(?:(?:great|perfect|thanks|thank you|awesome|nice|cool|excellent|works now|that works|"
    r"it works|looks good|lgtm|all good)[,.!]?\s*)+",
    re.I,
)
_REVERSAL = re.compile(
    r"\b(?:roll ?back|revert|undo|remove (?:this|that|it) again|go back to|scrap|scratch that)\b",
    re.I,
)
_INSTEAD = [
    re.compile(
        rf"(?P<new>[\w.@/+#-]+(?: [\w.@/+#-]+)?) (?:{acts.alternation('replacing')}|over) "
        r"(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
        re.I,
    ),
    re.compile(
        r"\bnot (?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?),\s*(?:but\s+)?(?:use\s+)?(?P<new>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
        re.I,
    ),
    re.compile(
        r"\breplace (?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?) with (?P<new>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
        re.I,
    ),
    re.compile(
        r"\bswitch(?:ing)? from (?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?) to (?P<new>[\w.@/+#-]+(?: [\w.@/+#-]+)?)",
        re.I,
    ),
]
_FILLER = frozenset(
    ["the", "a", "an", "use", "using", "to", "with", "for", "of", "in", "on", "and", "it"]
)


def offered_options(assistant: str) -> dict[str, str]:
    """Options the agent's text enumerated (headings, list items, table rows): key ("a", "2")
    → title, first words only; the list that ends last is the question being answered."""
    blocks: list[tuple[int, dict[str, str]]] = []
    tail = assistant[-6_000:]
    for rx in (_OPTION_HEAD, _OPTION_ROW, _OPTION_LINE):
        found: dict[str, str] = {}
        last, end, offered = "", 0, False
        for m in rx.finditer(tail):
            key = m.group("key").lower()
            if not _counts_on(last, key):
                # A list starts again (a key that does not count up): the one before is done.
                if len(found) >= 2:
                    blocks.append((end, found))
                found, offered = {}, choices.hands_over(tail, m.start())
            last, end = key, m.end()
            title = unmark(m.group("title"), "#").strip(" :—–-")
            if title.endswith("?") and not offered:
                continue  # a numbered question asks, it offers nothing to pick
            title = title.rstrip("?")
            # The headline names the option; its parenthesis and description stay in the summary.
            title = clauses.clause(re.split(r"\s\((?!recommended)", title, flags=re.I)[0], 10)
            if title:
                found[key] = title
        if len(found) >= 2:
            blocks.append((end, found))
    return max(blocks, key=lambda b: b[0])[1] if blocks else {}


def _counts_on(last: str, key: str) -> bool:
    """Whether a list's key follows the one before it ("2" after "1", "c" after "b")."""
    return bool(last) and last.isdigit() == key.isdigit() and key > last


def recommended(assistant: str, options: dict[str, str]) -> str | None:
    """The key of the option the agent recommended ("(Recommended)", "I recommend Option A")."""
    for key, title in options.items():
        if "recommended" in title.lower():
            return key
    keys = [m.group("key").lower() for m in _RECOMMENDED_KEY.finditer(assistant[-3_000:])]
    return keys[-1] if keys and keys[-1] in options else None


_KEY_IN_CLAUSE = re.compile(
    r"\b(?:do|go with|going with|pick|choose|prefer|take|try|like|with|want|tackle|implement|"
    r"start with)\s+(?i:option\s+|approach\s+)?"
    r"(?P<key>[A-E]|[1-9])\b(?![.,]\d)|\b(?i:option|approach)\s+(?P<key2>[A-Ea-e]|[1-9])\b|"
    r"^\s*(?P<key3>[A-E])\s+(?:seems|sounds|is|looks)\b|"
    r"\b(?P<key4>[A-E]) (?:seems|sounds|looks) (?:like )?(?:a |the )?(?:good|better|best|right|fine)\b",
)


@lru_cache(maxsize=1)
def _approve() -> re.Pattern[str]:
    """A prompt that only approves ("yes", "sounds good", "go ahead, please"): the lexicon's words."""
    return re.compile(rf"^\s*(?:{_approval()}[,.!]?\s*)+(?:please)?[.!]?\s*$", re.I)


@lru_cache(maxsize=1)
def _agree() -> re.Pattern[str]:
    """A prompt that opens by agreeing, or defers to the agent's recommendation."""
    return re.compile(rf"^\s*(?:(?:{_approval()}|{acts.alternation('endorse')})[,.!]?\s*)+", re.I)


def _approval() -> str:
    return (
        rf"(?:{acts.assent()}|{acts.alternation('appraise')}\s+"
        rf"{acts.alternation('approving')}|(?:that\s+)?makes?\s+sense|{acts.alternation('go_ahead')})"
    )


def _picked(prompt: str, options: dict[str, str], assistant: str = "") -> list[str]:
    first = re.split(r"[.;!?\n(]|,\s|\s-+\s", prompt.strip())[0][:120]
    if not first.strip() and prompt.strip()[:2].rstrip(".").isalnum():
        first = prompt.strip()[:2]
    keys: list[str] = []
    m = _PICK.match(prompt.strip()[:120])
    if m and len(first.split()) <= 8:
        keys = [k.lower() for k in (m.group("key"), m.group("key2"), m.group("key3")) if k]
    else:
        # "the second one", or "yes, your second option" in a short reply
        o = _ORDINAL_PICK.search(first) or (
            _ORDINAL_PICK.search(prompt) if len(prompt.split()) <= 8 else None
        )
        if o and len(first.split()) <= 14:
            ordered = list(options)
            pos = int(_ORDINALS[o.group("ord").lower()])
            if ordered and -len(ordered) <= (pos - 1 if pos > 0 else pos) < len(ordered):
                keys = [ordered[pos - 1 if pos > 0 else pos]]
    if not keys:
        for clause in re.split(r"[.;!?\n]|,\s", prompt[:400])[:4]:
            k = _KEY_IN_CLAUSE.search(clause)
            if k and k.group("key4"):  # "… B seems like a good idea", however long the clause
                keys = [k.group("key4").lower()]
                break
            if k and len(clause.split()) <= 12:
                keys = [(k.group("key") or k.group("key2") or k.group("key3")).lower()]
                break
    if not keys and _agree().match(prompt) and len(prompt.split()) <= 8:
        rec = recommended(assistant, options)
        keys = [rec] if rec else []
    return [k for k in keys if k in options]


def _subject_terms(label: str) -> set[str]:
    return {w for w in normalize_term(label).split() if w not in _FILLER and len(w) > 2}


def similar_task(plan: Plan, label: str) -> str | None:
    """An open task this one continues: most of its content words are already there. So does
    the work the agent offered that this reply approved: "yes install ccusage" to "Want me to
    install ccusage for you?" asks for it once."""
    words = _subject_terms(label)
    if not words:
        return None
    labels = [(t, plan.new[t]["label"]) for t in plan.offered if t in plan.new]
    for n in plan.req.nodes:
        if n.kind == "task" and not n.superseded and (n.attrs or {}).get("status") != "completed":
            labels.append((n.id, n.label))
    best, score = None, 0.0
    for nid, other_label in labels:
        if other := _subject_terms(other_label):
            s = len(words & other) / min(len(words), len(other))
            if s > score:
                best, score = nid, s
    return best if score >= 0.6 else None


def active_task(plan: Plan) -> str | None:
    tasks = [t for t in plan.tasks if t in plan.new]
    if tasks:
        return tasks[-1]
    open_tasks = [
        n
        for n in plan.req.nodes
        if n.kind == "task" and not n.superseded and (n.attrs or {}).get("status") != "completed"
    ]
    if not open_tasks:
        return None
    return max(
        open_tasks,
        key=lambda n: ((n.attrs or {}).get("status") == "in_progress", n.last_activated),
    ).id


def add_task(plan: Plan, label: str, reason: str, summary: str = "") -> str | None:
    if len(plan.tasks) >= MAX_TASKS:
        return None
    if label.count(")") > label.count("("):  # "(write the rules)" read from inside its brackets
        label = label.rstrip(" )")
    same = similar_task(plan, label)
    if same is not None:
        plan.strengthen(same, f"asked again: {reason}")
        plan.alias(same, label, f"asked again in other words: {reason}")
        plan.set_attrs(same, {"status": "in_progress"}, reason)
        plan.tasks.append(same)
        return same
    attrs = {"status": "in_progress", "source": "prompt"}
    if label.split(" ", 1)[0].lower() in acts.words("inform"):
        attrs["asks"] = ANSWER  # "give a json example": the agent's reply does it
    tid = plan.node(
        clip(label, 80),
        "task",
        "project",
        f"the person asks for it: {reason}",
        summary=summary or reason.split(": ", 1)[-1].strip("'"),
        attrs=attrs,
    )
    if tid is not None and tid not in plan.tasks:
        plan.tasks.append(tid)
    return tid


def options_decision(plan: Plan, prompt: str, assistant: str, reason: str) -> str | None:
    """ "A.", "go with 2", "the second one": the option the agent offered, as a decision."""
    options = offered_options(assistant) if assistant else {}
    picked = _picked(prompt, options, assistant) if options else []
    own = choices.numbered_reply(prompt)
    if own:
        picked = []  # "1. the file appears later 2. …": points of its own, not option 1
    if options and not picked and not own and (key := choices.echoed(prompt, options, assistant)):
        picked = [key]  # "keep it local!" after "1. Keep it local 2. Move it"
    if picked:
        others = "; ".join(f"{k.upper()}) {v}" for k, v in options.items() if k not in picked)
        made = []
        for k in picked:  # each option picked is a choice of its own ("4, 5"), each label whole
            chosen = choices.option_line(assistant, k) or options[k]
            did = plan.decision(
                f"Option {k.upper()}: {without_recommendation(options[k])}",
                f"picked among the agent's options: {reason}",
                clip(f"{clip(prompt, 140)} — {chosen} (over {others})", 190),
            )
            if did:
                made.append(did)
        return made[0] if made else None
    alt = choices.picked_alternative(prompt, assistant) if assistant else None
    if alt:  # "leave it" after "Should I force-remove X, or leave it?"
        return plan.decision(
            alt[0], f"picked one side of the agent's question: {reason}", clip(alt[1], 190)
        )
    if (
        _approve().match(prompt.strip()[:80])
        or _agree().match(prompt)
        and len(prompt.split()) <= 8
        or _approve().match(re.split(r"(?<=[.!?])\s|\n", prompt.strip())[0][:80])
    ) and assistant:
        tail = assistant[-1_500:]
        rec = list(_RECOMMEND.finditer(tail))
        if rec:
            what = clauses.clause(rec[-1].group("what"), 10)
            # "I'd suggest we split the module": the proposal is "split the module"
            what = re.sub(
                r"^(?:that\s+)?(?:we|you)\s+(?:should\s+|could\s+)?", "", what, flags=re.I
            )
            if len(what.split()) >= 2:
                return plan.decision(
                    what[:1].upper() + what[1:],
                    f"the person approved the agent's recommendation: {reason}",
                    clip(rec[-1].group(0), 190),
                )
        offer = offers.last_offer(tail)
        proposal = list(PROPOSAL_Q.finditer(tail))
        if proposal and (not offer or proposal[-1].start() > offer.start()):
            return approved_proposal(plan, assistant, reason)
        if offer:
            what = offers.offered_task(tail, offer)
            if what and (tid := add_task(plan, what, reason, clip(offer.group(0), 190))):
                plan.offered.add(tid)
            return approved_offer_detail(plan, tail, offer.group("what"), offer.end(), reason)
    return None


def people(plan: Plan, sentence: str, reason: str) -> list[str]:
    ids: list[str] = []
    for p in persons.people(sentence):
        attrs = {k: v for k, v in (("role", p.role), ("team", p.team)) if v}
        first = p.name.split()[0]
        aliases = [first] if " " in p.name and not first.startswith("@") else []
        nid = plan.resolve(p.name) or (plan.resolve(first) if " " not in p.name else None)
        if nid is not None and kind_of(plan, plan.req, nid) == "person":
            plan.strengthen(nid, f"named again in {reason}")
            if attrs:
                plan.set_attrs(nid, attrs, reason)
        else:
            nid = plan.node(
                p.name,
                "person",
                "personal" if p.personal else "relationship",
                f"a person named in {reason}",
                aliases=aliases,
                attrs=attrs or None,
            )
        if nid:
            ids.append(nid)
    return ids


def constraints(
    plan: Plan,
    sentence: str,
    reason: str,
    task: str | None,
    decision: str | None,
    persons: list[str],
) -> None:
    """Deadlines and requirements become attributes of what they bind, never nodes."""
    due = dates.deadline(sentence)
    # What this prompt decided binds before an older task ("B, nested. Use British spelling").
    target = task or decision or (plan.decisions[-1] if plan.decisions else active_task(plan))
    if due:
        if target:
            plan.set_attrs(target, {"due": due}, f"deadline in {reason}")
        for pid in persons:
            plan.set_attrs(pid, {"needs_by": due}, f"deadline in {reason}")
            if target:
                plan.edge(pid, "depends-on", target, f"waits on it: {reason}")
    rule = speech.constraint_phrase(sentence)
    ref = task_reference(rule or "")
    if ref:  # "only #12", "task 3 first": a reference to a task, not a requirement
        rule = None
        if (tid := referred_task(plan.req.nodes, ref)) is not None:
            plan.strengthen(tid, f"task {ref} named in {reason}")
    if rule and (decision or task or target):
        owner = decision or task or target
        assert owner is not None
        key = "constraint"
        view = plan.req.node(owner)
        have = dict(view.attrs or {}) if view else {}
        have.update(plan.new.get(owner, {}).get("attrs", {}))
        for k in ("constraint", "constraint_2", "constraint_3"):
            if have.get(k) == clip(rule, 80):
                return
            if not have.get(k):
                key = k
                break
        else:
            key = "constraint_3"
        plan.set_attrs(owner, {key: rule}, f"requirement in {reason}")


def supersede_entities(plan: Plan, sentence: str, reason: str) -> None:
    """ "memcached instead of Redis", "not Redis, memcached", "replace X with Y", "switch from X
    to Y": the new thing supersedes the old one, even when no decision named the old one."""
    for rx in _INSTEAD:
        m = rx.search(speech.strip_code(sentence))
        if not m:
            continue
        new, old = thing(plan, m.group("new")), thing(plan, m.group("old"))
        if new and old and new != old:
            plan.edge(new, "supersedes", old, f"chosen instead of it in {reason}")
        return


def thing(plan: Plan, text: str) -> str | None:
    words = [w for w in text.split() if w.lower() not in _FILLER]
    for n in (2, 1):
        if len(words) >= n:
            cand = " ".join(words[-n:]) if n == 1 else " ".join(words[:n])
            nid = plan.resolve(cand)
            if nid is not None and kind_of(plan, plan.req, nid) not in ("decision", "task"):
                return nid
    if not words or words[0].lower() in speech.WORK_VERBS:
        return None
    label = words[0] if len(words) == 1 else " ".join(words[:2])
    if len(label) < 2 or normalize_term(label) in ("it", "this", "that"):
        return None
    return plan.node(label, "entity", "technical", f"named in a correction: {quote(label)}")


def reversal_decision(plan: Plan, req: ProbeRequest, sentence: str, reason: str) -> str | None:
    """ "let's roll back", "remove this again": the latest live decision is reversed."""
    if not _REVERSAL.search(sentence):
        return None
    from rolling_graph.probe.offline.decisions import live_decisions

    live = [
        d
        for d in live_decisions(plan, req.turn)
        if d in plan.new or (v := req.node(d)) is not None and req.turn - v.last_activated <= 2
    ]
    if not live:
        return None  # "remove this again" of something older: see correction()
    old = live[0]
    label = clip(
        f"Reverted: {label_of(req, old) if old not in plan.new else plan.new[old]['label']}", 80
    )
    did = plan.node(label, "decision", "project", f"reversal in {reason}", summary=sentence)
    if did and did != old:
        plan.edge(did, "supersedes", old, f"reversed in {reason}")
        plan.decisions.append(did)
    return did


def task_done(plan: Plan, prompt: str, reason: str) -> None:
    """ "great, thanks", "works now": the task in progress is done."""
    if not _DONE.match(prompt) or len(prompt.split()) > 12:
        return
    tid = active_task(plan)
    if tid is not None and tid not in plan.new:
        plan.set_attrs(tid, {"status": "completed"}, f"the person is satisfied: {reason}")
