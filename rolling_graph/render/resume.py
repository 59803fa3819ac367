"""The "where we left off" block a new session starts with (SessionStart startup / clear).

In this order, each part only as long as the budget allows:

1. the header: which session this continues and when it ended;
2. the previous session's open tasks with their status (and due dates), what it completed;
3. decisions in force (a superseded one only as "X (supersedes Y)"), then corrections;
4. files it last changed, and errors it left unresolved;
5. what changed since (git): commits and files, named briefly;
6. the rest of the previous session, then what ranks next across earlier sessions, as
   comma-separated names filling the budget (names are what the next session looks for).

Phrased as plain facts. Input is :class:`rolling_graph.warm.resume.ResumeData` and
:class:`rolling_graph.observe.worktree_changes.Changes`; the token estimate is the project's.
"""

from __future__ import annotations

import re

from rolling_graph.core.agent_claims import corrects_agent, said_by_agent
from rolling_graph.core.tokens import CHARS_PER_TOKEN
from rolling_graph.nlp.text import closed
from rolling_graph.observe.worktree_changes import Changes
from rolling_graph.render.block import HARD_CHAR_CAP, Lines, clip
from rolling_graph.warm.records import WarmNode
from rolling_graph.warm.resume import ResumeData

OPEN = ("in_progress", "pending", "blocked", "open", "todo")
DONE = ("completed", "done", "closed", "cancelled")
_ERROR = re.compile(r"\b(fail(ed|ing|ure)?|error|exception|traceback|broken)\b", re.I)
_RESOLVED = ("fixed", "resolved", "passing", "passed", "completed", "done")
MAX_SUMMARY = 90
MAX_FILES = 10
MAX_TASKS = 8
MAX_DECISIONS = 6


def display_name(node: WarmNode) -> str:
    """The label; a path shortened to its last two parts (the file name is what is looked for)."""
    label = node.label.strip()
    if node.kind == "file" or ("/" in label and " " not in label):
        parts = [p for p in label.replace("\\", "/").split("/") if p and p not in ("~", "…")]
        label = "/".join(parts[-2:]) if parts else label
    return label


def _summary(node: WarmNode) -> str:
    text = (node.summary or "").strip()
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1].rstrip() + "…"


def _task_text(node: WarmNode) -> str:
    attrs = node.attrs or {}
    status = attrs.get("status", "pending").replace("_", " ")
    # The facts a reader acts on; where a task came from (source, ref) is bookkeeping.
    extra = "; ".join(f"{k} {attrs[k]}" for k in ("due", "tests", "constraint") if attrs.get(k))
    return f"[{status}] {display_name(node)}" + (f" ({extra})" if extra else "")


def _unresolved(node: WarmNode) -> bool:
    status = (node.attrs or {}).get("status", "")
    if status in _RESOLVED:
        return False
    return status in ("failing", "failed", "error", "broken") or bool(
        _ERROR.search(node.summary or "")
    )


def render_resume(
    data: ResumeData, changes: Changes | None = None, *, budget: int = 800
) -> tuple[str, list[str]]:
    """The block and the ids of the nodes it names; ``("", [])`` when there is nothing."""
    if data.empty and (changes is None or changes.empty):
        return "", []
    block = Lines(min(int(budget * CHARS_PER_TOKEN) - 4, HARD_CHAR_CAP))
    block.line(_header(data))
    _previous_parts(block, data)
    if changes is not None and not changes.empty:
        _changes(block, changes)
    _fill(block, data)
    return "\n".join(block.lines), sorted(block.shown)


PREV_SHARE = 0.6  # measured with bench/resume.py: 0.4–0.6 alike, all-previous lower


def _fill(block: Lines, data: ResumeData) -> None:
    """The rest of the budget: the previous session's other nodes and the earlier sessions',
    each ranked (weight, recurrence across sessions, recency), interleaved so that the
    previous session takes about ``PREV_SHARE`` of the room; two lines."""
    superseded = {e.target for e in data.edges if e.relationship == "supersedes"}

    def ranked(nodes: list[WarmNode]) -> list[WarmNode]:
        keep = (n for n in nodes if n.id not in superseded and n.id not in block.shown)
        return sorted(keep, key=lambda n: (-data.rank.get(n.id, 0.0), n.id))

    queues = {True: ranked(data.previous), False: ranked(data.earlier)}
    heads = ("Also from the last session:", "From earlier sessions:")
    room = block.room() - sum(len(h) + 3 for h in heads)
    picked: dict[bool, list[tuple[str, str]]] = {True: [], False: []}
    used = {True: 0, False: 0}
    misses = 0
    said = {w for line in block.lines for w in _words(line)}
    while (queues[True] or queues[False]) and misses <= 20:
        total = used[True] + used[False]
        side = bool(queues[True]) and (not queues[False] or used[True] <= PREV_SHARE * total)
        n = queues[side].pop(0)
        text = display_name(n)
        if not text or text.lower() in block.names or not _adds_words(text, said):
            continue
        if len(text) + 2 > room:
            misses += 1
            continue
        room -= len(text) + 2
        used[side] += len(text) + 2
        picked[side].append((n.id, text))
        block.names.add(text.lower())
        said.update(_words(text))
    for head, items in zip(heads, (picked[True], picked[False]), strict=True):
        if items:
            block.lines.append(closed(head + " " + ", ".join(t for _, t in items)))
            block.shown.update(i for i, _ in items)


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(text: str) -> set[str]:
    """Lower-cased words of a name, camelCase and snake_case split (``tc.IsTaskCheckpoint`` →
    tc, is, task, checkpoint)."""
    return {w.lower() for w in _WORD.findall(text)}


def _adds_words(text: str, said: set[str]) -> bool:
    """Whether a name says anything the block has not: a name made only of words already
    in it (``tc.CommitHash.String`` after ``commitHash`` and ``tc.Message``) is skipped."""
    new = {w for w in _words(text) if len(w) >= 3} - said
    return bool(new) or not _words(text) <= said


def _header(data: ResumeData) -> str:
    if data.previous_session and data.previous_ended:
        when = data.previous_ended.strftime("%Y-%m-%d %H:%M UTC")
        more = f"; {data.sessions} sessions in all" if data.sessions > 1 else ""
        return (
            f"Rolling memory from earlier sessions, where we left off (last session"
            f" {data.previous_session[:8]}, ended {when}{more}):"
        )
    return "Rolling memory from earlier sessions of this project:"


def _previous_parts(block: Lines, data: ResumeData) -> None:
    prev = sorted(data.previous, key=lambda n: (-data.weights.get(n.id, n.weight), n.id))
    superseded: dict[str, list[str]] = {}
    labels = {n.id: n.label for n in (*data.previous, *data.earlier)}
    claims = {n.id for n in (*data.previous, *data.earlier) if said_by_agent(n.attrs)}
    for e in data.edges:
        if e.relationship == "supersedes" and e.source in labels:
            superseded.setdefault(e.source, []).append(e.target)
    replaced = {t for ts in superseded.values() for t in ts}
    tasks = [n for n in prev if n.kind == "task"]
    open_tasks = [n for n in tasks if (n.attrs or {}).get("status", "pending") not in DONE]
    done = [n for n in tasks if (n.attrs or {}).get("status") in DONE]
    # The task in progress first: newer pending requests must not push it out of the line.
    # Tasks of one session share its last flush time: those first seen at a later flush (asked
    # after a compaction) go first, not the first in the alphabet.
    recent = sorted(
        open_tasks,
        key=lambda n: (
            (n.attrs or {}).get("status") != "in_progress",
            -n.last_seen.timestamp(),
            -n.first_seen.timestamp(),
            n.id,
        ),
    )[:MAX_TASKS]
    block.items("Open tasks:", ((n.id, _task_text(n)) for n in recent), sep="; ")
    done = sorted(done, key=lambda n: (-n.last_seen.timestamp(), n.id))[:MAX_TASKS]
    block.items("Completed last time:", ((n.id, display_name(n)) for n in done))

    def decision(n: WarmNode, with_summary: bool) -> str:
        text = clip(n.label, 70)
        old = [clip(labels[t], 40) for t in superseded.get(n.id, []) if t in labels]
        if old and all(t in claims for t in superseded.get(n.id, []) if t in labels):
            text, old = corrects_agent(text, old), []
        if old:
            text += f" (supersedes {', '.join(old)})"
        summary = _summary(n) if with_summary else ""
        return f"{text}: {summary}" if summary else text

    def of_agent(n: WarmNode) -> bool:  # replaces what the agent said, and no choice
        olds = [t for t in superseded.get(n.id, []) if t in labels]
        return bool(olds) and all(t in claims for t in olds)

    # The latest few say why; the rest are named, so that names of the work still fit.
    decisions = [
        n for n in prev if n.kind == "decision" and n.id not in replaced and not of_agent(n)
    ]
    decisions = sorted(decisions, key=lambda n: (-n.last_seen.timestamp(), n.id))[:MAX_DECISIONS]
    block.items(
        "Decisions in force:",
        ((n.id, decision(n, i < 2)) for i, n in enumerate(decisions)),
        sep="; ",
    )
    block.shown.update(replaced & {n.id for n in prev})  # never shown as current
    corrections = [
        n
        for n in prev
        if (n.kind == "correction" or (n.kind == "decision" and of_agent(n)))
        and n.id not in replaced
    ][:3]
    block.items("Corrections:", ((n.id, decision(n, False)) for n in corrections), sep="; ")
    files = sorted(
        (n for n in prev if n.kind == "file"),
        key=lambda n: ("edited" not in (n.summary or ""), -n.last_seen.timestamp(), n.id),
    )
    block.items("Files last touched:", ((n.id, display_name(n)) for n in files[:MAX_FILES]))
    errors = [n for n in prev if _unresolved(n) and n.id not in block.shown]
    block.items(
        "Unresolved:",
        ((n.id, f"{display_name(n)} ({_summary(n)})" if n.summary else display_name(n))
         for n in errors[:6]),
        sep="; ",
    )  # fmt: skip


def _changes(block: Lines, changes: Changes) -> None:
    parts: list[str] = []
    if changes.commits:
        more = f" (+{changes.more_commits} more)" if changes.more_commits else ""
        parts.append(f"{len(changes.commits)}{more}: " + "; ".join(changes.commits))
    files = changes.files + [f for f in changes.uncommitted if f not in changes.files]
    if parts:
        block.line("Committed since then: " + " ".join(p + "." for p in parts))
    block.items("Files changed since then:", ((f"file:{f}", f) for f in files))
