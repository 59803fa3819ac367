"""Context recovery at compaction: does the injected block bring back what the work needs?

At each compaction boundary of a transcript, T is the set of *salient terms* that the work
after the boundary uses (the next ``window`` user / assistant / tool-input events) and that
were already seen before it. A context text recovers a term when the term occurs in it. We
report, per boundary:

- ``block``: the block the pipeline injected on ``SessionStart(source=compact)`` (from a real
  replay of the transcript, so gate, probe, decay and warm store all play their part);
- ``recent_equal``: the last N tokens of the pre-boundary conversation, N = the block's own
  token count (the baseline "at equal tokens": what the same budget buys without a graph);
- ``recent_budget``: the same at N = the render budget (800 by default: "recent-800");
- ``summary``: the harness's own compaction summary (recall and tokens), and ``union``: the
  summary together with the block, i.e. what the agent sees after compaction with us;
  ``gain`` = union − summary, what the block adds.

Transcripts without compaction get *simulated cuts* every ``cut_every`` user turns: the block
is rendered there exactly as ``SessionStart(compact)`` would render it (empty prompt, no
mentions, the session's budget), without disturbing the replay; there is no summary there.

Salient terms follow ``../shared/eval/recovery.py`` (file names from paths, CamelCase,
snake_case and capitalised words, minus stop words), with three changes, each because the
reference over-counts in a way that favours long texts or rewards noise:

1. matching is on word boundaries, not substrings: ``"api"`` is not recovered by ``"rapid"``;
   substring matching inflates the recall of 3,500-token summaries and long tails more than
   that of a short block;
2. a capitalised word counts only mid-sentence (not at the start of a line, a Markdown
   bullet or heading, or after ``.!?:``): sentence-initial "Perfect", "Now", "Looking" are
   not things a memory should carry;
3. the stop list adds spaCy's English stop words and common discourse words of agent prose.

Token counts use the project's estimate (:func:`rolling_graph.core.tokens.estimate_tokens`) for
block, tails and summary alike, so "equal tokens" is equal by one measure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rolling_graph.core.slug import slugify
from rolling_graph.core.tokens import CHARS_PER_TOKEN, estimate_tokens
from rolling_graph.eval.replay import Progress, Replayer, replay_settings, subagent_only
from rolling_graph.nlp.text import sentence_initial
from rolling_graph.render.addendum import HEAD as ADDENDUM_HEAD
from rolling_graph.transcripts import (
    AssistantText,
    CompactBoundary,
    CompactSummary,
    ToolUse,
    Transcript,
    UserPrompt,
    read_transcript,
)

# -- salient terms ----------------------------------------------------------------------------

_REFERENCE_STOP = """
the a an and or but if then else for to of in on at by with from into over under this that these those it its
is are was were be been being do does did done have has had having i you he she we they me my your our their
not no yes ok okay please thanks thank let lets let's can could would should will shall may might must just
also very more most less some any all each every both few many much other another such same so than too
what which who whom whose when where why how here there now again once only own still yet about above below
after before between through during without within along across around up down out off true false none null
self cls def return import class var const function new use used using make made get got set run
file files line lines code error errors test tests data value values name names type types user users
""".split()  # noqa: SIM905 - a word list reads better as prose
# Words of agent/person prose that are capitalised often but carry no session content.
_DISCOURSE = """
perfect great good sure done note summary step steps next first second third finally now looking
let here okay right yes great excellent awesome nice hmm well actually however also instead
update updated check checking looks look found fixed fix added adding created creating
todo todos task tasks result results output input issue issues problem problems change changes
option options approach following important key main current currently still already
""".split()  # noqa: SIM905 - a word list reads better as prose

PATH = re.compile(
    r"(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|kt|md|json|yml|yaml|toml|sql|sh|css|html|rb|c|h|cpp|txt|cfg|ini|env)\b"
)
CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
CAP = re.compile(r"\b[A-Z][a-zA-Z0-9]{2,}\b")
_LEAD = " \t#>*-•`_\"'([0-9.)]|"  # Markdown list, heading, quote and table markup


@cache
def stop_words() -> frozenset[str]:
    words = set(_REFERENCE_STOP) | set(_DISCOURSE)
    try:  # spaCy is a dependency; its list is the standard English one
        from spacy.lang.en.stop_words import STOP_WORDS

        words |= {w.lower() for w in STOP_WORDS}
    except ImportError:  # pragma: no cover - spaCy is installed with the package
        pass
    return frozenset(words)


def salient_terms(text: str) -> set[str]:
    """Terms a memory should carry: file names, code identifiers, proper names (lowercased)."""
    stop = stop_words()
    out: set[str] = set()
    for m in PATH.findall(text):
        base = m.rstrip("/").split("/")[-1].lower()
        if len(base) >= 3 and base not in stop:
            out.add(base)
    for rx in (CAMEL, SNAKE):
        for m in rx.findall(text):
            w = m.lower()
            if len(w) >= 3 and w not in stop:
                out.add(w)
    for m in CAP.finditer(text):
        w = m.group().lower()
        if w not in stop and not sentence_initial(text, m.start(), _LEAD):
            out.add(w)
    return out


def recovered(terms: Iterable[str], text: str) -> set[str]:
    """The terms that occur in ``text`` as whole words (case-insensitive)."""
    low = text.lower()
    return {
        t
        for t in terms
        if t in low and re.search(rf"(?<![a-z0-9_]){re.escape(t)}(?![a-z0-9_])", low)
    }


# -- the conversation as the model saw it ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Item:
    kind: str  # user | assistant | tool | boundary | summary
    text: str


def tool_text(inp: dict[str, Any]) -> str:
    """A tool call's input as text (scalar values only, capped), as the reference takes it."""
    return " ".join(str(v) for v in inp.values() if isinstance(v, str | int | float))[:2000]


def conversation(tr: Transcript) -> list[Item]:
    items: list[Item] = []
    for ev in tr.events:
        if isinstance(ev, UserPrompt) and ev.text.strip():
            items.append(Item("user", ev.text))
        elif isinstance(ev, AssistantText) and ev.text.strip():
            items.append(Item("assistant", ev.text))
        elif isinstance(ev, ToolUse):
            text = tool_text(ev.input)
            if text.strip():
                items.append(Item("tool", text))
        elif isinstance(ev, CompactBoundary):
            items.append(Item("boundary", ""))
        elif isinstance(ev, CompactSummary):
            items.append(Item("summary", ev.text))
    return items


def tail_tokens(texts: list[str], budget: int) -> str:
    """The last ``budget`` tokens (by the project's estimate) of ``texts`` joined."""
    chars = int(budget * CHARS_PER_TOKEN)
    if chars <= 0:
        return ""
    out: list[str] = []
    n = 0
    for t in reversed(texts):
        if n + len(t) + 1 > chars:
            out.append(t[len(t) - (chars - n) :] if chars > n else "")
            break
        out.append(t)
        n += len(t) + 1
    return "\n".join(reversed(out))


def measure(
    pre: list[Item],
    post: list[Item],
    block: str,
    summary: str | None,
    budget: int,
    addendum: str = "",
) -> dict[str, Any] | None:
    """One row: recall of the block, the tails and the summary over the target terms; with
    ``addendum`` (what the first event after the summary added, see
    :mod:`rolling_graph.render.addendum`) also block + addendum, alone and with the summary."""
    seen: set[str] = set()
    for it in pre:
        seen |= salient_terms(it.text)
    used: set[str] = set()
    for it in post:
        used |= salient_terms(it.text)
    target = used & seen
    if not target:
        return None
    pre_texts = [it.text for it in pre if it.text]
    block_tokens = estimate_tokens(block)
    hit_block = recovered(target, block)
    n = len(target)
    row: dict[str, Any] = {
        "target": n,
        "block_tokens": block_tokens,
        "block_recall": len(hit_block) / n,
        "recent_equal_recall": len(recovered(target, tail_tokens(pre_texts, block_tokens))) / n,
        "recent_budget_recall": len(recovered(target, tail_tokens(pre_texts, budget))) / n,
        "summary_tokens": None,
        "summary_recall": None,
        "union_recall": None,
        "gain": None,
        "addendum_tokens": estimate_tokens(addendum) if addendum else 0,
        "block_addendum_recall": len(hit_block | recovered(target, addendum)) / n,
        # the recent tail at the tokens of block and addendum together, for a fair comparison
        "recent_addendum_recall": len(
            recovered(target, tail_tokens(pre_texts, block_tokens + estimate_tokens(addendum)))
        )
        / n,
        "union_addendum_recall": None,
    }
    if summary is not None:
        hit_summary = recovered(target, summary)
        row["summary_tokens"] = estimate_tokens(summary)
        row["summary_recall"] = len(hit_summary) / n
        row["union_recall"] = len(hit_summary | hit_block) / n
        row["gain"] = len(hit_block - hit_summary) / n
        hit_all = hit_summary | hit_block | recovered(target, addendum)
        row["union_addendum_recall"] = len(hit_all) / n
    row["missed_sample"] = sorted(target - hit_block)[:12]
    return row


def _window_after(items: list[Item], start: int, window: int) -> tuple[list[Item], str | None]:
    """The next ``window`` user/assistant/tool items after ``start`` (stopping at the next
    boundary), and the compaction summary found there, if any."""
    post: list[Item] = []
    summary: str | None = None
    for it in items[start:]:
        if it.kind == "boundary":
            break
        if it.kind == "summary":
            if summary is None:
                summary = it.text
            continue
        post.append(it)
        if len(post) >= window:
            break
    return post, summary


MEAN_KEYS = (
    "target",
    "block_tokens",
    "block_recall",
    "recent_equal_recall",
    "recent_budget_recall",
    "summary_tokens",
    "summary_recall",
    "union_recall",
    "gain",
    "addendum_tokens",
    "block_addendum_recall",
    "recent_addendum_recall",
    "union_addendum_recall",
)


def averages(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    for k in MEAN_KEYS:
        vals = [r[k] for r in rows if r.get(k) is not None]
        out[k] = round(sum(vals) / len(vals), 4) if vals else None
    return out


def evaluate(
    paths: list[Path | str],
    out: Path | str,
    *,
    probe: str | None = "offline",
    budget: int | None = None,
    window: int = 40,
    cut_every: int = 10,
    warm: str | None = None,
    progress: Progress | None = None,
    person_of: Callable[[Path], str] | None = None,
) -> dict[str, Any]:
    """Replay ``paths`` into ``out`` and measure recovery; writes and returns ``eval.json``.

    All transcripts are one person's sessions (one warm store) unless ``person_of`` says whose
    each is: then every person gets a warm store of their own (under ``out/people/``), so that
    one person's own memories never reach another's blocks."""
    out = Path(out)
    boundaries: list[dict[str, Any]] = []
    cuts: list[dict[str, Any]] = []
    groups: dict[str, list[Path]] = {}
    for p in paths:
        groups.setdefault(person_of(Path(p)) if person_of else "", []).append(Path(p))
    budget_n = replay_settings(out, probe=probe, budget=budget, warm=warm).budget
    for n, (person, group) in enumerate(groups.items()):
        where = out / "people" / f"{n:02d}-{slugify(person)[:40]}" if person_of else out
        with Replayer(where, probe=probe, budget=budget, warm=warm) as rp:
            budget_n = rp.settings.budget
            for path in group:
                try:
                    tr = read_transcript(path)
                except ValueError:
                    continue
                if subagent_only(tr):  # not a session: nothing of its own to recover
                    continue
                items = conversation(tr)
                blocks, cut_blocks = _replay_blocks(rp, path, tr, items, cut_every, progress)
                boundaries += _boundary_rows(path.name, items, blocks, window, budget_n)
                cuts += _cut_rows(path.name, items, cut_blocks, window, budget_n)
            rp.finish()
    doc = {
        "settings": {
            "probe": probe,
            "budget": budget_n,
            "window": window,
            "cut_every": cut_every,
        },
        "boundaries": boundaries,
        "boundary_averages": averages(boundaries),
        "cuts": cuts,
        "cut_averages": averages(cuts),
        "definition": (
            "recall = |T ∩ terms found in text| / |T|, T = salient terms used in the next "
            f"{window} user/assistant/tool-input events after the cut and seen before it; "
            "whole-word matching; see rolling_graph.eval.evaluate"
        ),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    return doc


def _replay_blocks(
    rp: Replayer,
    path: Path,
    tr: Transcript,
    items: list[Item],
    cut_every: int,
    progress: Progress | None,
) -> tuple[list[tuple[str, str]], dict[int, tuple[str, str]]]:
    """Replay one transcript; the blocks injected after each compaction, and (in transcripts
    without one) the blocks of simulated compactions (PreCompact, then SessionStart(compact))
    before every ``cut_every``-th prompt, by prompt count."""
    has_compaction = any(it.kind == "boundary" for it in items)
    blocks: list[tuple[str, str]] = []
    waiting = [False]  # for the first event after SessionStart(compact): it reads the summary

    def on_record(rec: dict[str, Any]) -> None:
        if rec["event"] == "session_start" and rec["source"] == "compact":
            blocks.append((rec["injected"] or "", ""))
            waiting[0] = True
        elif waiting[0] and rec["event"] in ("user_prompt_submit", "post_tool_use"):
            waiting[0] = False
            injected = rec["injected"] or ""
            at = injected.find(ADDENDUM_HEAD)
            if at >= 0:
                blocks[-1] = (blocks[-1][0], injected[at:])

    rp.replay_file(
        path,
        transcript=tr,
        cut_every=0 if has_compaction else cut_every,
        on_record=on_record,
        progress=progress,
    )
    if has_compaction:
        return blocks, {}
    return [], {cut_every * (k + 1): b for k, b in enumerate(blocks)}


def _boundary_rows(
    name: str, items: list[Item], blocks: list[tuple[str, str]], window: int, budget_n: int
) -> list[dict[str, Any]]:
    """Real boundaries: the n-th boundary pairs with the n-th SessionStart(compact)."""
    rows: list[dict[str, Any]] = []
    b = 0
    for i, it in enumerate(items):
        if it.kind != "boundary":
            continue
        post, summary = _window_after(items, i + 1, window)
        pre = [x for x in items[:i] if x.kind != "boundary"]
        block, addendum = blocks[b] if b < len(blocks) else ("", "")
        row = measure(pre, post, block, summary, budget_n, addendum)
        if row is not None:
            rows.append({"file": name, "boundary": b, **row})
        b += 1
    return rows


def _cut_rows(
    name: str,
    items: list[Item],
    cut_blocks: dict[int, tuple[str, str]],
    window: int,
    budget_n: int,
) -> list[dict[str, Any]]:
    """Simulated cuts: just before the prompt that follows every cut_every-th turn."""
    rows: list[dict[str, Any]] = []
    prompts = 0
    for i, it in enumerate(items):
        if it.kind != "user":
            continue
        if prompts in cut_blocks:
            post, _ = _window_after(items, i, window)
            row = measure(items[:i], post, cut_blocks[prompts][0], None, budget_n)
            if row is not None:
                rows.append({"file": name, "after_turn": prompts, **row})
        prompts += 1
    return rows
