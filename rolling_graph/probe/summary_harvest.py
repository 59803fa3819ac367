"""The harness's compaction summary, harvested into the graph (issue 28).

Claude Code writes a structured summary at every compaction (pi a similar one): what is
pending, what was being worked on, what was decided, which errors were fixed. A strong model
wrote it, at no cost to the person; the rules here turn it into one patch, applied through
the patch engine and audited with the source ``summary``:

- "Pending Tasks" / "Next Steps" → task nodes (``pending``), merged with the tasks the graph
  holds (not the items that say what the person does or may do); "Current Work" / "In
  Progress" → the task in progress (other tasks in progress wait), or, where it reports work
  done ("Just created the test file …"), the "Optional Next Step" when that asks for work;
- decisions ("**Decision**: …", "User chose …", "Key Decisions") → decision nodes, superseding
  what they replace when they name it ("instead of X", "from X to Y");
- errors and their fixes → ``error`` / ``fix`` attributes of the file they name, else of the
  task in progress; people and deadlines as the extraction rules store them.

The summary was written by a model that may have read a poisoned page (issue 30): no line
that reads as an instruction to the agent is used, a decision must be found in the person's
own words (the summary's "All user messages" and the session's prompts), else it is left
out; a task (the summary words the agent's own steps: run the tests, build) must name no
address the person never gave.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rolling_graph.nlp import lexicon
from rolling_graph.nlp import text as text_facts
from rolling_graph.nlp.bounded import says
from rolling_graph.privacy.injection import (
    DECIDED,
    instruction,
    meaning_words,
    supported,
    task_refusal,
)
from rolling_graph.probe.model_writes import Writes
from rolling_graph.probe.offline import acts
from rolling_graph.probe.offline.plan import clip
from rolling_graph.probe.summary_sections import Sections, first_sentence, parse, plain

PROMPT_ID = "summary.v1"  # the rules below are the "prompt"; bump when they change
MAX_TASKS = 8
MAX_DECISIONS = 6
MAX_ERRORS = 4
MAX_PEOPLE = 4
MAX_FILES = 4  # files linked to one task

# What a decision replaces, when it says so.
_REPLACES = re.compile(
    r"\b(?:instead of|rather than|in place of|replacing|over)\s+(?P<old>[^,;.()]{3,60})|"
    r"\bfrom\s+(?P<src>[^,;.()]{3,50}?)\s+to\s+\S",
    re.IGNORECASE,
)
# "The most recent work was …", "Immediately before this summary request, I was …": lead-ins
# of a "Current Work" paragraph that say nothing of the work.
_LEAD = re.compile(
    r"^(?:immediately before (?:this |the )?(?:summary|summari[sz]ation)(?: request)?,?\s*|"
    r"(?:the )?(?:most recent|latest|current|last) (?:work|change|task|step)s?\s+"
    r"(?:was|were|is|involved|focused on)\s*:?\s*|i (?:was|am|have been)(?:\s+working on)?(?:\s+|$)|"
    r"(?:the )?(?:next|remaining) steps? (?:is|are|should be|would be|will be)\s+(?:to\s+)?)",
    re.IGNORECASE,
)
_PLACE = re.compile(r"^(?:was |were )?(?:in|on|at|inside|within)\s+\S+$", re.IGNORECASE)
_FIXED = re.compile(
    r"\b(?:fixed|resolved|solved) (?:by|with)\s+|\bfix(?:ed)?\s*:\s*|\bsolution\s*:\s*",
    re.IGNORECASE,
)


@dataclass
class Harvest:
    """What one summary added (ids by kind), what it merged, and the lines it left out."""

    added: dict[str, list[str]] = field(default_factory=dict)
    merged: list[str] = field(default_factory=list)
    current: str | None = None
    pending: list[str] = field(default_factory=list)  # task ids of the pending items, in order
    refused: list[tuple[str, str]] = field(default_factory=list)  # (line, why)
    notes: list[str] = field(default_factory=list)  # pending items about the person: no tasks
    patch: dict[str, Any] | None = None

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.added.items()}


def _clean(text: str) -> str:
    return plain(text).strip(" -–—:;")


def task_text(text: str) -> str:
    """A summary's item as a task's wording: its first sentence, without lead-ins."""
    text = _clean(text)
    while (shorter := _LEAD.sub("", text, count=1)) != text:  # lead-ins come in pairs
        text = shorter
    text = first_sentence(text)
    # "Need to commit and push": the work, not that it is needed.
    text = re.sub(rf"^(?:{acts.alternation('obligation')})\s+", "", text, flags=re.I)
    # "in src/discord.ts — removing the icons": the work, not where it was.
    where, dash, what = text.partition(" — ")
    if dash and what and (_PLACE.match(where) or len(where.split()) <= 2):
        text = what
    text = text.strip(" .:")
    return text[:1].upper() + text[1:] if text else text


_DONE = re.compile(r"^(?:✅|✔|☑|\[x\]|done\b|completed?\b|finished\b)", re.IGNORECASE)


def current_work(s: Sections) -> str:
    """What the summary says is being worked on: the "Current Work" section's opening
    sentence, else its first item not marked done. A sentence that reports the work finished
    ("Just created the test file …", "Task 1 was dispatched to a subagent") is no work in
    progress: the summary's next step is, when it asks for work, else nothing is."""
    intro = s.intro.get("current", "")
    first = first_sentence(intro)
    if len(first.split()) < 4:  # "In plan mode.": the next sentence says what
        first = first_sentence(intro[len(first) :].strip()) or first
    if not task_text(first):  # "Immediately before this summary request, I was:" leads in
        first = next((x for x in s.get("current") if not _DONE.match(x)), "")
    return next_step(s) if first and reports_done(task_text(first)) else first


def next_step(s: Sections) -> str:
    """The summary's next step when it asks for work ("Run tests and lint to verify …"): its
    first sentence, opening with a work verb once lead-ins are gone; else ""."""
    first = first_sentence(s.intro.get("next") or next(iter(s.get("next")), ""))  # read plain
    work, colon, _ = first.partition(": ")
    if colon and len(work.split()) >= 4:  # "Run the tests to verify it: bash cd … && …"
        first = work
    words = task_text(first).lower().split()
    return first if words and words[0] in lexicon.words("work_verbs") else ""


@lru_cache(maxsize=1)
def _reported() -> re.Pattern[str]:
    past = text_facts.past_form()
    adverbs = r"(?:(?:just|already|now|also|fully|successfully)\s+)*"
    return re.compile(
        rf"^(?:(?:i|we)(?:'ve|\s+had|\s+have)?\s+)?{adverbs}(?P<v>{past})\b|"
        rf"^[^,;:]{{1,80}}?\b(?:was|were|(?:has|have|had)\s+{adverbs}been)\s+{adverbs}"
        rf"(?P<p>{past})\b",
        re.IGNORECASE,
    )


def reports_done(text: str) -> bool:
    """``text`` reports work done: "I completed the rewrite", "Just re-added the comment",
    "Fixed the integration test", "The plan has been fully rewritten" (a past form opening
    it, or after "was" / "has been"), not "Fixing …" or "The change was in …"."""
    m = _reported().search(text)
    if m is None:
        return False
    return text_facts.is_past_form(m.group("v") or m.group("p"))


@lru_cache(maxsize=1)
def _about_the_person() -> re.Pattern[str]:
    return re.compile(
        rf"^(?:the\s+)?(?:user|person)\s+{lexicon.alternation('third_person_verb')}\b", re.I
    )


def about_the_person(item: str) -> bool:
    """A pending item that says what the person does or may do ("The user may want to verify
    this", "User has not yet provided feedback"): a note, not the agent's work."""
    return bool(_about_the_person().match(_clean(item)))


_DECISION_SECTIONS = ("intent", "pending", "current", "errors", "constraints", "users")
_DECISION_WORDS = (
    "decid",
    "decision",
    "chose",
    "picked",
    "selected",
    "opted",
    "confirmed",
    "agreed",
)
_DECISION_WORDS += ("approved",)


class _Harvester:
    def __init__(self, graph: Any, sections: Sections, evidence: list[str], max_ops: int) -> None:
        self.graph = graph
        self.s = sections
        self.evidence = evidence
        self.w = Writes(graph, "summary", max_ops=max_ops)
        self.out = Harvest()

    def _usable(self, line: str) -> bool:
        why = instruction(line)
        if why:
            self.out.refused.append((clip(line, 120), f"reads as an instruction ({why})"))
        return why is None

    def _task_ok(self, text: str, item: str) -> bool:
        """A task may be worded by the summary (the agent derives steps: run the tests, build);
        it must not state a decision of the person nor name an address they never gave."""
        why = task_refusal(item, self.evidence)
        if why:
            self.out.refused.append((clip(text, 120), why))
        return why is None

    def tasks(self) -> None:
        from rolling_graph.probe.offline import dates

        current = current_work(self.s)
        if current:
            text = task_text(current)
            if text and self._usable(current) and self._task_ok(text, current):
                self.out.current = self.w.task(text, "in_progress", "the summary's current work")
                self._link_files(self.out.current, current)
        for item in self.s.get("pending")[:MAX_TASKS]:
            text = task_text(item)
            if about_the_person(item):
                self.out.notes.append(clip(text, 120))
                continue
            if not text or not self._usable(item) or not self._task_ok(text, item):
                continue
            if self.out.current and self.w.similar(text, ("task",)) == self.out.current:
                self.w.plan.alias(self.out.current, clip(text, 80), "the current work again")
                continue
            tid = self.w.task(
                text, "pending", "a pending task in the summary", dates.deadline(item)
            )
            if tid == self.out.current:
                continue
            if tid:
                self.out.pending.append(tid)
                self._link_files(tid, item)
        if self.out.current:
            # A pending item may repeat the current work: it stays the one in progress.
            self.w.plan.set_attrs(self.out.current, {"status": "in_progress"}, "current work")
            self._others_wait()

    def _others_wait(self) -> None:
        """One task in progress: another the graph put in progress in this same turn (a tie
        with the summary's) waits; older ones are already behind it, and are left alone."""
        turn = self.graph.turn
        for view in self.w.plan.req.nodes:
            status = (view.attrs or {}).get("status")
            if (
                view.kind == "task"
                and view.id != self.out.current
                and status == "in_progress"
                and view.last_activated >= turn
            ):
                self.w.plan.set_attrs(view.id, {"status": "pending"}, "the summary's current work")

    def _decision_lines(self) -> Iterable[str]:
        yield from self.s.get("decisions")
        lines = [
            *(x for sec in _DECISION_SECTIONS for x in self.s.get(sec)),
            *self.s.text.get("analysis_lines", "").split("\n"),
        ]
        for line in lines:
            # A cheap test first: the regex is slow on long lines of code.
            low = line[:2000].lower()
            if any(w in low for w in _DECISION_WORDS) and DECIDED.search(line[:2000]):
                yield line

    def decisions(self) -> None:
        seen: set[str] = set()
        for line in self._decision_lines():
            if len(seen) >= MAX_DECISIONS:
                break
            text = _clean(line)
            m = DECIDED.search(text)
            said = _clean(text[m.end() :] if m else text)
            key = " ".join(sorted(meaning_words(said)))
            if not said or key in seen or not self._usable(line):
                continue
            seen.add(key)
            if not supported(said, self.evidence):
                self.out.refused.append((clip(said, 120), "no support in the person's words"))
                continue
            r = _REPLACES.search(said)
            old = (r.group("old") or r.group("src") or "") if r else ""
            self.w.decision(said, "a decision stated in the summary", old.strip())

    def errors(self) -> None:
        for item in self.s.get("errors")[:MAX_ERRORS]:
            if not self._usable(item):
                continue
            title, _, rest = item.partition(":")
            fix = _FIXED.split(rest, maxsplit=1)
            attrs = {"error": clip(_clean(title), 80)}
            if len(fix) > 1 and fix[1].strip():
                attrs["fix"] = clip(_clean(fix[1]), 80)
            target = self._file_named(item) or self.out.current
            if target:
                self.w.plan.set_attrs(target, attrs, "an error and its fix in the summary")

    def _files_named(self, text: str) -> list[str]:
        """File nodes whose name ``text`` says (``discord.ts``, ``src/discord.ts``)."""
        low = text.lower()
        out = []
        for node in self.graph.nodes.values():
            if node.kind == "file":
                base = node.label.rsplit("/", 1)[-1].lower()
                if len(base) >= 4 and says(low, base, left=".-", right="-"):
                    out.append(node.id)
        return out[:MAX_FILES]

    def _file_named(self, text: str) -> str | None:
        files = self._files_named(text)
        return files[0] if files else None

    def _link_files(self, tid: str | None, text: str) -> None:
        """The task uses the files its item names: the block lists them with the task."""
        for fid in self._files_named(text) if tid else []:
            self.w.plan.edge(str(tid), "uses", fid, "named with the task in the summary")

    def people(self) -> None:
        from rolling_graph.probe.offline import intent

        for line in self.s.get("users")[:40]:
            if len(self.w.added["person"]) >= MAX_PEOPLE:
                break
            if self._usable(line):
                for nid in intent.people(self.w.plan, line, "a person the person named"):
                    if nid in self.w.plan.new and nid not in self.w.added["person"]:
                        self.w.added["person"].append(nid)


def harvest(graph: Any, summary: str, prompts: Iterable[str] = (), *, max_ops: int = 64) -> Harvest:
    """The patch of what ``summary`` adds to ``graph`` (``Harvest.patch``, None when nothing),
    checked against the person's ``prompts`` and the summary's "All user messages"."""
    sections = parse(summary)
    # The chronological analysis before the sections states decisions line by line.
    head = summary.split("\nSummary:", 1)[0] if "\nSummary:" in summary else ""
    sections.text["analysis_lines"] = "\n".join(ln.strip(" -") for ln in head.splitlines())
    evidence = [*sections.get("users"), *(p for p in prompts if p.strip())]
    h = _Harvester(graph, sections, evidence, max_ops)
    h.tasks()
    h.decisions()
    h.errors()
    h.people()
    out = h.out
    for kind, ids in h.w.added.items():
        out.added[kind] = list(dict.fromkeys([*out.added.get(kind, []), *ids]))
    out.merged = list(dict.fromkeys(h.w.merged))
    out.patch = h.w.patch(
        f"harvested from the compaction summary: {len(out.pending)} pending, "
        f"current work {'yes' if out.current else 'no'}"
    )
    return out
