"""Graduation: warm nodes that proved themselves become flat-memory drafts for human review.

Criteria (DESIGN §6, spec decision 10), all of them: seen in ≥ 3 sessions, warm weight now
≥ 0.6, ≥ 2 distinct neighbours. Reconciliation calls :func:`flag_candidates` after each
applied merge; every new candidate gets a *pending* draft:

- written by the drafter the reconciler was given — the configured probe backend's drafting
  call (``draft_memory(node, relationships, sessions) -> str``) when it offers one, see
  :mod:`rolling_graph.probe.drafter` — else
- by :func:`template_draft`, an offline template (label, summary, relationships, sessions
  count) that is deterministic, so tests and offline users get the same text every time.

A person then approves, edits or rejects each draft (``rolling-graph review``); approved
and edited ones are appended to the flat memory file (``settings.flat_memory``, default
``<home>/MEMORY.md``). The store keeps the status and review time of every draft, which is
the graduation-quality record (``review --stats``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.core.hotstore import atomic_write_bytes
from rolling_graph.warm.base import DraftError, WarmStore
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    GraduationCandidate,
    GraduationDraft,
    WarmEdge,
    WarmNode,
)

log = logging.getLogger("rolling_graph.warm")

MIN_SESSIONS = 3
MIN_WEIGHT = 0.6
MIN_EDGES = 2
ARCHIVE_AFTER = timedelta(weeks=6)
"""An anchor at its floor this long is flagged for archive review (spec decision 10)."""
MAX_RELATIONSHIPS = 6

Drafter = Callable[[WarmNode, Sequence[WarmEdge], dict[str, str]], str]
"""``(node, edges touching it, id → label of its neighbours) -> draft text``."""


def relation_phrases(
    node: WarmNode, edges: Sequence[WarmEdge], labels: dict[str, str]
) -> list[str]:
    # Strongest first, then by key: deterministic for equal strengths.
    ranked = sorted(edges, key=lambda e: (-e.strength, e.key))[:MAX_RELATIONSHIPS]
    out = []
    for e in ranked:
        if e.source == node.id:
            out.append(f"{e.relationship} {labels.get(e.target, e.target)}")
        else:
            out.append(f"{labels.get(e.source, e.source)} {e.relationship} it")
    return out


def template_draft(node: WarmNode, edges: Sequence[WarmEdge], labels: dict[str, str]) -> str:
    """The offline draft: one Markdown bullet, deterministic for the same inputs."""
    text = f"**{node.label}**"
    if node.summary:
        text += f": {node.summary.rstrip('.')}."
    rels = relation_phrases(node, edges, labels)
    if rels:
        text += f" Related: {'; '.join(rels)}."
    text += f" (seen in {node.sessions_seen} sessions; {node.domain})"
    return f"- {text}"


def draft_for(
    store: WarmStore,
    node: WarmNode,
    *,
    scope: str,
    drafter: Drafter | None = None,
) -> str:
    """Draft text for one node: the drafter's, falling back to the template on any failure."""
    edges = store.get_edges(scope=scope, touching=[node.id])
    others = {e.target if e.source == node.id else e.source for e in edges}
    labels = {i: n.label for i, n in store.get_nodes(others, scope=scope).items()}
    if drafter is not None:
        try:
            text = drafter(node, edges, labels).strip()
            if text:
                return text
        except Exception as err:  # noqa: BLE001 - the template always works
            log.warning("drafting %s with the probe backend failed: %s", node.id, err)
    return template_draft(node, edges, labels)


def flag_candidates(
    store: WarmStore,
    *,
    scope: str = DEFAULT_SCOPE,
    now: datetime | None = None,
    drafter: Drafter | None = None,
    only: set[str] | None = None,
) -> list[GraduationCandidate]:
    """Write a pending draft for every new graduation candidate; return those flagged.

    ``only`` limits it to nodes a merge just touched (the others cannot have newly met the
    criteria: untouched warm weights only decay). Anchors are skipped: they were seeded from
    flat memory, so they are flat memories already.
    """
    now = now or datetime.now(UTC)
    flagged = []
    for cand in store.graduation_candidates(
        MIN_SESSIONS, MIN_WEIGHT, MIN_EDGES, scope=scope, now=now
    ):
        if only is not None and cand.node.id not in only:
            continue
        if cand.node.anchor:
            continue  # seeded from flat memory: it is a flat memory already
        text = draft_for(store, cand.node, scope=scope, drafter=drafter)
        try:
            store.put_draft(cand.node.id, text, scope=scope, now=now)
        except DraftError:
            continue  # reviewed meanwhile by another process: one-way door
        flagged.append(cand)
    return flagged


# --------------------------------------------------------------------------- review


def flat_memory_path(settings: Any) -> Path:
    configured = getattr(settings, "flat_memory", None)
    return Path(configured).expanduser() if configured else Path(settings.home) / "MEMORY.md"


def append_flat_memory(path: Path, text: str) -> None:
    """Append one memory (a Markdown bullet) to the flat memory file, atomically."""
    line = text.strip()
    if not line.startswith(("-", "*")):
        line = f"- {line}"
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = "# Memory\n\n"
    if existing and not existing.endswith("\n"):
        existing += "\n"
    atomic_write_bytes(path, (existing + line + "\n").encode("utf-8"))


def review(
    store: WarmStore,
    node_id: str,
    action: str,
    *,
    flat_memory: Path,
    scope: str = DEFAULT_SCOPE,
    text: str | None = None,
    now: datetime | None = None,
) -> GraduationDraft:
    """Approve, edit or reject a pending draft; approved/edited text goes to flat memory.

    The store transition comes first: if it fails (already reviewed), nothing is appended,
    so a memory is never graduated twice.
    """
    status = {"approve": "approved", "edit": "edited", "reject": "rejected"}.get(action, action)
    draft = store.review_draft(node_id, status, scope=scope, text=text, now=now)  # type: ignore[arg-type]
    if draft.status in ("approved", "edited") and draft.final_text:
        append_flat_memory(flat_memory, draft.final_text)
    return draft


@dataclass(frozen=True)
class ReviewStats:
    pending: int
    approved: int
    edited: int
    rejected: int

    @property
    def reviewed(self) -> int:
        return self.approved + self.edited + self.rejected

    @property
    def acceptance(self) -> float | None:
        """Share of reviewed drafts that graduated (approved or edited)."""
        return None if not self.reviewed else (self.approved + self.edited) / self.reviewed


def review_stats(store: WarmStore, *, scope: str = DEFAULT_SCOPE) -> ReviewStats:
    counts = Counter(d.status for d in store.list_drafts(scope=scope))
    return ReviewStats(counts["pending"], counts["approved"], counts["edited"], counts["rejected"])


def archive_review(
    store: WarmStore, *, scope: str = DEFAULT_SCOPE, now: datetime | None = None
) -> list[WarmNode]:
    """Anchors that have sat at their floor for 6+ weeks (flag for archive review)."""
    now = now or datetime.now(UTC)
    return store.anchors(scope=scope, at_floor_before=now - ARCHIVE_AFTER)
