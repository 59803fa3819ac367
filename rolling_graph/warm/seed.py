"""Seeding: existing flat memories become anchor nodes of the warm graph (spec decision 10).

Accepted inputs (by content, whatever the file name):

- **JSONL**: one object a line with ``text`` (required), and optional ``label``, ``domain``,
  ``kind``, ``summary``;
- **Markdown / CLAUDE.md-style**: every bullet (``-``, ``*``, ``+``, ``1.``) is one memory;
  headings give context (the domain guess and the summary prefix); prose paragraphs,
  code blocks and HTML comments are skipped.

Each memory becomes an **anchor** node (floor 0.2: it never decays below that):

- id = slug of the memory text (so the same memory always lands on the same node), label =
  its first words (≤ 80 characters), summary = the text (≤ 200 characters);
- an ordinary memory enters with hot weight 0.5 (0.4 in the warm graph after the new-node
  penalty); a **correction** with hot weight 1.0 (0.8 warm): a high-weight anchor, kind
  ``correction``.

The correction rule: a memory is a correction when, after Markdown emphasis is stripped, it
*starts* with "don't", "do not", "never", "avoid", "stop", "no," or "actually", or it
contains "use X not Y" / "use X, not Y" / "X instead of Y" / "prefer X over Y".

Idempotent: all seeds are merged as the pseudo-session ``seed`` with a ``flush_seq`` that is
a hash of the memories, so importing the same file twice changes nothing, and importing a
grown file adds only the new memories (a memory is never counted as a second session).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rolling_graph.core.model import DOMAINS, KINDS, MAX_LABEL, MAX_SUMMARY
from rolling_graph.core.slug import slugify
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.merge import make_batch
from rolling_graph.warm.records import DEFAULT_SCOPE, HotNode, MergeResult

SEED_SESSION = "seed"
SEED_WEIGHT = 0.5
CORRECTION_WEIGHT = 1.0

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*\S)\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*\S)\s*$")
_EMPHASIS = re.compile(r"[*_`~]+")
_CORRECTION_START = re.compile(
    r"^(?:don['’]?t|do not|never|avoid|stop|no,|actually)\b", re.IGNORECASE
)
_CORRECTION_FORM = re.compile(
    r"\buse\s+\S.*?,?\s+not\s+\S|\binstead of\b|\bprefer\s+\S.*?\s+over\s+\S", re.IGNORECASE
)
_DOMAIN_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("personal", re.compile(r"\b(personal|about me|preferences?|habits?|me)\b", re.I)),
    ("relationship", re.compile(r"\b(team|people|colleagues?|relationships?|contacts?)\b", re.I)),
    (
        "technical",
        re.compile(
            r"\b(code|coding|style|tech|technical|tools?|tests?|testing|build|commands?|"
            r"conventions?|stack|architecture|python|git)\b",
            re.I,
        ),
    ),
)


@dataclass(frozen=True)
class Memory:
    """One flat memory read from a file."""

    text: str
    label: str | None = None
    domain: str | None = None
    kind: str | None = None
    summary: str | None = None
    section: str | None = None


def plain(text: str) -> str:
    """Text without Markdown emphasis and with collapsed whitespace."""
    return " ".join(_EMPHASIS.sub("", text).split())


def is_correction(text: str) -> bool:
    """The documented correction rule (see the module docstring)."""
    t = plain(text)
    return bool(_CORRECTION_START.match(t) or _CORRECTION_FORM.search(t))


def guess_domain(*texts: str | None) -> str:
    for domain, pattern in _DOMAIN_HINTS:
        if any(t and pattern.search(t) for t in texts):
            return domain
    return "project"


def _short_label(text: str) -> str:
    words = plain(text).split()
    label = ""
    for w in words[:10]:
        if len(label) + len(w) + 1 > MAX_LABEL:
            break
        label = f"{label} {w}".strip()
    return (label or plain(text)[:MAX_LABEL]).rstrip(".,;:") or "memory"


def parse_markdown(text: str) -> list[Memory]:
    out: list[Memory] = []
    section: str | None = None
    in_code = False
    in_comment = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = _HEADING.match(line)
        if heading:
            section = plain(heading.group(1))
            continue
        bullet = _BULLET.match(line)
        if bullet and plain(bullet.group(1)):
            out.append(Memory(text=plain(bullet.group(1)), section=section))
    return out


def parse_jsonl(text: str) -> list[Memory]:
    out: list[Memory] = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        body = obj.get("text") or obj.get("content") or obj.get("memory")
        if not isinstance(body, str) or not body.strip():
            continue

        def opt(key: str, obj: dict[str, object] = obj) -> str | None:
            value = obj.get(key)
            return value.strip() if isinstance(value, str) and value.strip() else None

        out.append(
            Memory(
                text=plain(body),
                label=opt("label"),
                domain=opt("domain"),
                kind=opt("kind"),
                summary=opt("summary"),
            )
        )
    return out


def parse_memories(text: str) -> list[Memory]:
    """JSONL when the first non-blank line is a JSON object, Markdown otherwise."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        return parse_jsonl(text)
    return parse_markdown(text)


def memory_node(m: Memory) -> HotNode:
    correction = is_correction(m.text)
    label = (m.label or _short_label(m.text))[:MAX_LABEL].strip() or "memory"
    summary = m.summary or m.text
    if m.section and not m.summary:
        summary = f"{m.section}: {summary}"
    domain = m.domain if m.domain in DOMAINS else guess_domain(m.section, m.text)
    kind = "correction" if correction else (m.kind if m.kind in KINDS else "preference")
    return HotNode(
        id=slugify(m.label or m.text),
        label=label,
        domain=domain,
        weight=CORRECTION_WEIGHT if correction else SEED_WEIGHT,
        summary=summary[:MAX_SUMMARY].strip(),
        kind=kind,
        anchor=True,
    )


@dataclass(frozen=True)
class SeedResult:
    memories: int
    corrections: int
    nodes: tuple[HotNode, ...]
    merge: MergeResult


def seed_nodes(memories: list[Memory]) -> list[HotNode]:
    """One node per distinct id (the first memory with an id wins)."""
    nodes: dict[str, HotNode] = {}
    for m in memories:
        node = memory_node(m)
        nodes.setdefault(node.id, node)
    return list(nodes.values())


def seed(
    store: WarmStore,
    path: Path,
    *,
    scope: str = DEFAULT_SCOPE,
    now: datetime | None = None,
) -> SeedResult:
    """Import the flat memories in ``path`` as anchors (idempotent, one transaction)."""
    from rolling_graph.core.textfile import read_text

    memories = parse_memories(read_text(path))  # UTF-8, or UTF-16/32 with a BOM
    nodes = seed_nodes(memories)
    digest = hashlib.sha256(
        json.dumps(sorted((n.id, n.weight, n.summary) for n in nodes)).encode()
    ).digest()
    seq = int.from_bytes(digest[:4], "big") & 0x7FFFFFFF  # fits every backend's integer
    batch = make_batch(
        nodes, scope=scope, session_id=SEED_SESSION, flush_seq=seq, now=now or datetime.now(UTC)
    )
    result = store.merge(batch) if nodes else MergeResult(applied=False)
    return SeedResult(
        memories=len(memories),
        corrections=sum(1 for n in nodes if n.kind == "correction"),
        nodes=tuple(nodes),
        merge=result,
    )
