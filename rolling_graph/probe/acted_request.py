"""A request the agent acted on: a prompt that no rule of the probe read as a task, a decision
or a correction, after which the agent went to work (a tool call that reads, runs or edits),
was a request all the same. It becomes a task in the person's words.

What carries this is the agent's behaviour, observable from the tool events, not a phrase: it
holds for "perform remediation", "op signin and auth ssh key" and "troubleshoot the network"
alike, for a question the agent answers by working ("what do I need to test manually?"), and in
any language. The probe runner notes, when a probe's patch placed nothing from the latest
prompt (:func:`placed`), that prompt as unplaced; the first working tool call of the same turn
turns it into a task (:func:`task_patch`, from the probe plugin). A follow-up that names the
task again strengthens it, which counts as placed: follow-ups make no new task.

Kept in memory only: a worker that restarts between the prompt and the tool call forgets it
(the prompt then makes no task, as before).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import cache
from typing import Any

from rolling_graph.core.model import MAX_LABEL, HotGraph
from rolling_graph.core.task_lifecycle import ACTED, IN_PROGRESS

#: the agent's bookkeeping and questions: calls that do no work on the request
BOOKKEEPING = frozenset(
    [
        "TodoWrite",
        "TaskCreate",
        "TaskUpdate",
        "TaskList",
        "TaskGet",
        "TaskOutput",
        "AskUserQuestion",
        "ExitPlanMode",
        "EnterPlanMode",
        "update_plan",  # Codex CLI's plan
    ]
)
# Our own memory tools (``mcp__rolling-graph__memory_note``, or ``memory_note`` where a client
# names MCP tools bare): the agent keeping notes, not working on the request
_OWN_TOOLS = re.compile(r"rolling[-_]graph|^memory_")


def bookkeeping(tool: str) -> bool:
    """Whether a tool call does no work on the person's request (a plan, a question, a note)."""
    return tool in BOOKKEEPING or _OWN_TOOLS.search(tool) is not None


#: a node of these kinds, made or touched by the prompt's probe, places the prompt
PLACING_KINDS = frozenset(["task", "decision", "correction"])
#: a prompt of at most this many words that only says yes, picks an option or goes on asks for
#: no work of its own (the agent's offer or option is read by the probe)
GO_ON_WORDS = 4
LABEL_WORDS = 9
SUMMARY_CHARS = 190
# "2", "B.", "option 3", "1, 3": an option picked
_PICK = re.compile(
    r"^\W*(?:option\s*)?(?:\d{1,2}|[a-e])(?:\s*(?:,|and|&)\s*(?:\d{1,2}|[a-e]))*\W*$", re.I
)


# "can you …", "could you …": a request of the agent, for work or for talk
@cache
def _talk() -> re.Pattern[str]:
    from rolling_graph.nlp import lexicon

    return re.compile(rf"^\W*{lexicon.alternation('modal')} you\b", re.I)


# What a digest line adds after the call itself: its identifiers, its error.
_DIGEST_TAIL = re.compile(r" \| ids: .*$| \(error(?:: [^)]*)?\)$")
_LONG_PATH = re.compile(r"(?<!\S)[/~][^\s'\"]{24,}")
# Two questions joined by a dash or a semicolon: the first is the label's
_JOINED = re.compile(r"\s[-—–]+\s|;\s")
# Letters of scripts written without spaces between words (CJK): one "word" is a phrase.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def placed(graph: HotGraph, touched: Iterable[str]) -> bool:
    """Whether a probe's patch made or touched a task, a decision or a correction."""
    for nid in touched:
        node = graph.nodes.get(nid)
        if node is not None and node.kind in PLACING_KINDS:
            return True
    return False


class UnplacedPrompts:
    """Per session, the latest prompt whose probe placed nothing: noted by the probe runner
    after each applied patch, taken once by the first working tool call of its turn."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_session: dict[str, tuple[int, str]] = {}

    def note(self, graph: HotGraph, req: Any, touched: set[str]) -> None:
        """After a probe of ``req`` (a :class:`~rolling_graph.probe.base.ProbeRequest`) touched
        ``touched``: its latest prompt is unplaced, or placed."""
        said = next((t for t in reversed(req.turns) if t.user.strip()), None)
        if said is None:
            return  # a probe of tool activity only: the prompt's own probe decided
        with self._lock:
            if placed(graph, touched):
                self._by_session.pop(graph.session_id, None)
            else:
                self._by_session[graph.session_id] = (said.turn, said.user)

    def take(self, session_id: str, turn: int) -> str | None:
        """The prompt of ``turn`` that its probe placed nothing from, once (then forgotten)."""
        with self._lock:
            noted = self._by_session.get(session_id)
            if noted is None or noted[0] != turn:
                return None
            del self._by_session[session_id]
            return noted[1]


def _sentences(text: str) -> list[str]:
    return [s.strip(" -*#>•\t") for s in re.split(r"(?<=[.!?。！？])\s+|\n+", text) if s.strip()]


def _goes_on(text: str) -> bool:
    """ "yes", "ok go ahead", "2", "continue": no request of its own."""
    from rolling_graph.probe.offline import acts

    words = text.split()
    if _PICK.match(text):
        return True
    if len(words) > GO_ON_WORDS:
        return False
    plain = acts.strip_lead(text).strip(" .,!")
    return (
        not plain
        or acts.has(text, "agree") is not None
        or acts.has(text, "reject") is not None
        or plain.lower() in acts.words("go_ahead")
        or len(plain.split()) == 1  # "continue", "resume", "local": no work named
        and not _UNSPACED.search(plain)
    )


def names_nothing(label: str) -> bool:
    """Whether a label names no object of its own: "Tackle them", "Commit this", "Check
    again", "Can you retry" (the verb, then only pointers and words of repetition or time)."""
    from rolling_graph.probe.offline import acts

    if _UNSPACED.search(label):
        return False  # one "word" is a phrase: nothing to tell its object by
    words = _talk().sub("", label).lower().strip(" .!?").split()[1:]
    empty = {*acts.words("deictic"), *acts.words("again"), *acts.words("lead_in")}
    return all(w.strip(",;:") in empty for w in words)


def _referent(said: list[str], at: int, work: str) -> str:
    """What a label that names nothing is about: the person's sentence before it ("new beads
    for the epic were added. tackle them"), else the agent's first work on it (``work``, its
    tool digest line: "Bash: bd ready" → "bd ready")."""
    if at > 0:
        return " ".join(said[at - 1].rstrip(" .!?:;,").split()[:LABEL_WORDS])
    line = _DIGEST_TAIL.sub("", work).strip().removeprefix("Bash: ")
    # An absolute path in a command says where, not what: its last parts name it.
    return _LONG_PATH.sub(lambda m: "…/" + "/".join(m.group(0).rstrip("/").split("/")[-2:]), line)


def request_label(prompt: str, work: str = "") -> str | None:
    """The task a prompt asks for, in its words: the work its first request-like sentence
    names ("perform remediation" → "Perform remediation"), else its first sentence said (not
    pasted); ``None`` for a prompt that only goes on or holds no words of the person's. A
    label that names nothing ("Tackle them") is followed by what it is about
    (:func:`_referent`; ``work``: the digest of the agent's first work on it)."""
    from rolling_graph.probe.offline import claims, speech

    text = speech.strip_code(prompt).strip()
    if not text or text.startswith("/") and len(text.split()) == 1 or _goes_on(text):
        return None
    said = [
        s
        for s in _sentences(text)
        if claims.said(s, least=2) or _UNSPACED.search(s) and len(s) >= 4
    ]
    found = _said_label(said)
    if found is None:
        return None
    label, at = found
    if names_nothing(label) and (about := _referent(said, at, work)):
        label = f"{label} — {about}"
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1].rstrip() + "…"


def _said_label(said: list[str]) -> tuple[str, int] | None:
    """(label, index of its sentence) of the first sentence that asks for work, else of the
    first sentence with words of its own."""
    from rolling_graph.probe.offline import acts, speech

    for i, s in enumerate(said):
        found = speech.task_phrase(s)
        if found and len(found.split()) >= 2:
            return found, i
    for i, s in enumerate(said):
        if _talk().match(acts.strip_lead(s)) and speech.is_question(s):
            continue  # "can you explain …": asks for talk, not work (the lexicon's "talk")
        plain = re.sub(r"^(?:please|pls|kindly)\s+", "", acts.strip_lead(s), flags=re.I)
        if _asks_only(s):
            return _question_label(plain), i
        # the sentence's first words, commas and all ("I forgot to tell you, we already
        # have …"): a statement's first clause alone is often only its opener
        phrase, _ = _first_words(plain)
        if len(phrase.split()) >= 2 or _UNSPACED.search(phrase):
            return phrase[:1].upper() + phrase[1:], i
    return None


def _head(text: str) -> str:
    """The first word, lower-cased, without a contraction ("How's" → "how")."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return re.split(r"['’]", first.lower(), maxsplit=1)[0]


def _asks_only(sentence: str) -> bool:
    """A question that asks for no work of its own ("did run 8841 wait for the service?",
    "where is mullvad in the dns architecture?"): the agent's work on it finds the answer."""
    from rolling_graph.probe.offline import acts, objects, speech

    plain = acts.strip_lead(sentence).lower()
    # asked, not only opened like a question: "do it again" tells the agent what to do
    asked = plain.rstrip().endswith("?") or _head(plain) in acts.words("question_word")
    return (
        asked
        and speech.is_question(sentence)
        and not speech.asks_for_work(sentence)
        and not objects.requested(sentence)
    )


def _question_label(plain: str) -> str:
    """A question the agent worked on, as a task that reads as a question in "Done:" and
    "Open tasks:": "Is the binary bridge online?". Its first question where a dash or a
    semicolon joins two ("how's the health check doing — did run 8841 wait?"), its first
    words where it is long (then "…?")."""
    first = _JOINED.split(plain, maxsplit=1)[0]
    phrase, cut = _first_words(first if len(first.split()) >= 3 else plain)
    return f"{phrase[:1].upper()}{phrase[1:]}{'…' if cut else ''}?"


def _first_words(text: str) -> tuple[str, bool]:
    """The first :data:`LABEL_WORDS` words of ``text``, not ending on a dangling word, and
    whether any were left off."""
    from rolling_graph.probe.offline import acts
    from rolling_graph.probe.offline.markup import closed

    words = text.rstrip(" .!?:;,").split()
    cut = len(words) > LABEL_WORDS
    # not inside a parenthesis it opens: "uninstall the services(goodcloud, …"
    kept = closed(" ".join(words[:LABEL_WORDS])).split() or words[:LABEL_WORDS]
    cut = cut or len(kept) < len(words[:LABEL_WORDS])
    words = kept
    while len(words) > 1 and words[-1].lower().strip(",;:") in acts.words("dangling"):
        words.pop()
        cut = True
    return " ".join(words).rstrip(",;:"), cut


def task_patch(graph: HotGraph, prompt: str, tool: str, work: str = "") -> dict[str, Any] | None:
    """The patch that records the unplaced ``prompt`` as a task in progress, now that the agent
    works on it (``tool``; ``work``: that call's digest line); ``None`` when it asks for
    nothing or the task is there already."""
    from rolling_graph.core.slug import node_id

    label = request_label(prompt, work)
    if label is None:
        return None
    nid = node_id(label, "task")  # a CJK request: a stable hash
    if nid in graph.nodes:
        return None
    from rolling_graph.probe.offline import speech

    summary = " ".join(speech.strip_code(prompt).split())  # the person's words, not a paste
    summary = summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"
    value = {
        "label": label,
        "domain": "project",
        "kind": "task",
        "summary": summary,
        "attrs": {"status": IN_PROGRESS, "source": "prompt", "via": ACTED},
    }
    why = f"the agent went to work on the person's request ({tool}) that no rule had placed"
    return {
        "rationale": "a request the agent acted on",
        "ops": [{"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": why}],
    }
