"""The warm-store contract: a small typed ABC that every backend implements.

The reconciler needs exactly this much from persistence: apply one flush atomically and
at most once (``merge``), pull the relevant part of the warm graph into a fresh hot graph
(``load_branches``), and serve the graduation and archive-review workflows (candidates,
drafts, anchors). Everything else (outbox, recovery, CLI) is built on top of it.

All times are timezone-aware UTC datetimes. ``scope`` is the project key; ``""`` is the
default scope (see ``records`` for the key choices).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Self

from rolling_graph.warm.merge import DEFAULT_PARAMS, MergeParams
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    DraftStatus,
    EdgeKey,
    GraduationCandidate,
    GraduationDraft,
    MergeBatch,
    MergeResult,
    ReconciliationRecord,
    WarmBranches,
    WarmCounts,
    WarmEdge,
    WarmNode,
)


class WarmStoreError(Exception):
    """Base class of warm-store errors."""


class WarmStoreUnavailable(WarmStoreError):
    """The store cannot be reached or opened right now (server down, locked, missing driver).

    Callers treat it as transient: the flush goes to the outbox and is retried later.
    """


class DraftError(WarmStoreError):
    """A graduation-draft transition that the one-way door forbids."""


class WarmStore(ABC):
    """A persistent warm graph; use as a context manager (``with open_store(...) as s``)."""

    params: MergeParams = DEFAULT_PARAMS

    # ------------------------------------------------------------------ lifecycle

    @abstractmethod
    def open(self) -> None:
        """Connect; idempotent. Raises ``WarmStoreUnavailable`` when unreachable."""

    @abstractmethod
    def close(self) -> None:
        """Disconnect; idempotent."""

    @abstractmethod
    def migrate(self) -> int:
        """Apply pending migrations (idempotent, safe concurrently); return the version."""

    @abstractmethod
    def schema_version(self) -> int:
        """The highest applied migration, 0 for an empty store."""

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ reconciliation

    @abstractmethod
    def merge(self, batch: MergeBatch) -> MergeResult:
        """Apply one flush in one transaction, at most once per ``(scope, session, seq)``.

        Writes node and edge rows (``merge.merge_node``/``merge_edge`` against the row's
        current value, under a row lock), the ``(node, session)`` and ``(edge, session)``
        sighting rows and the reconciliation record. Concurrent merges lose no update.
        """

    @abstractmethod
    def reconciliations(
        self, *, scope: str = DEFAULT_SCOPE, session_id: str | None = None
    ) -> list[ReconciliationRecord]:
        """The applied flushes, oldest first."""

    @abstractmethod
    def load_branches(
        self,
        *,
        scope: str = DEFAULT_SCOPE,
        ids: Sequence[str] = (),
        mentions: Sequence[str] = (),
        top: int = 20,
        recent: int = 10,
        neighbors: int = 20,
        now: datetime | None = None,
        edges: bool = True,
    ) -> WarmBranches:
        """Warm nodes (and the edges among them) to seed a fresh hot graph.

        Selection, in this order, de-duplicated: nodes named by ``ids``; nodes whose id,
        label or alias matches a ``mentions`` string (normalized); up to ``neighbors``
        nodes linked to those (strongest edge first); the ``top`` nodes by weight now;
        the ``recent`` nodes by ``last_seen``; and the old decisions that selected nodes
        ``supersedes``. Within a group: weight now descending, then id. ``edges=False``:
        the same nodes, no edges (for a caller that reads the edges it needs itself).
        """

    # ------------------------------------------------------------------ reads

    @abstractmethod
    def get_nodes(self, ids: Iterable[str], *, scope: str = DEFAULT_SCOPE) -> dict[str, WarmNode]:
        """The nodes that exist among ``ids``."""

    @abstractmethod
    def get_edges(
        self,
        *,
        scope: str = DEFAULT_SCOPE,
        keys: Iterable[EdgeKey] | None = None,
        touching: Iterable[str] | None = None,
    ) -> list[WarmEdge]:
        """Edges by key, or those touching any of ``touching``, or all; sorted by key."""

    @abstractmethod
    def node_sessions(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        """The sessions that have sighted a node, sorted."""

    @abstractmethod
    def search_nodes(
        self, words: Sequence[str], *, scopes: Sequence[str] | None = None, limit: int = 20
    ) -> list[tuple[WarmNode, int]]:
        """Nodes whose id, label, aliases or summary contain any of ``words`` (lower-case
        substrings), with how many of the words each contains: most words first, then weight,
        then id. ``scopes`` None searches every scope. A full scan: lexical, no index."""

    @abstractmethod
    def session_nodes(
        self, session_id: str, *, scope: str = DEFAULT_SCOPE, limit: int = 50
    ) -> list[WarmNode]:
        """The nodes a session sighted, heaviest first (then id)."""

    @abstractmethod
    def counts(self, *, scope: str = DEFAULT_SCOPE) -> WarmCounts:
        """Sizes of one scope."""

    def session_node_ids(self, session_id: str, *, scope: str = DEFAULT_SCOPE) -> list[str]:
        """The nodes one session has sighted (its flushes), sorted. Backends override this;
        the default knows none (a resume block then has no "previous session" part)."""
        return []

    def adopt_scope(self, old: str, new: str) -> bool:
        """Move every row of scope ``old`` to ``new`` in one transaction, only when ``new``
        holds nothing yet; True when rows moved. For re-keyed projects (see
        ``rolling_graph.core.project``). Backends override this; the default moves nothing."""
        return False

    # ------------------------------------------------------------------ graduation, archive

    @abstractmethod
    def graduation_candidates(
        self,
        min_sessions: int = 3,
        min_weight: float = 0.6,
        min_edges: int = 2,
        *,
        scope: str = DEFAULT_SCOPE,
        now: datetime | None = None,
        include_drafted: bool = False,
    ) -> list[GraduationCandidate]:
        """Nodes with ≥ min_sessions sessions, weight now ≥ min_weight, ≥ min_edges
        distinct neighbours; without a draft unless ``include_drafted``. Best first."""

    @abstractmethod
    def anchors(
        self, *, scope: str = DEFAULT_SCOPE, at_floor_before: datetime | None = None
    ) -> list[WarmNode]:
        """Anchor nodes; with ``at_floor_before``, only those at their floor since then
        (pass ``now - 6 weeks`` for archive review). Sorted by at_floor_since, id."""

    @abstractmethod
    def put_draft(
        self, node_id: str, text: str, *, scope: str = DEFAULT_SCOPE, now: datetime | None = None
    ) -> GraduationDraft:
        """Create or replace a *pending* draft; ``DraftError`` once it has been reviewed."""

    @abstractmethod
    def review_draft(
        self,
        node_id: str,
        status: DraftStatus,
        *,
        scope: str = DEFAULT_SCOPE,
        text: str | None = None,
        now: datetime | None = None,
    ) -> GraduationDraft:
        """Approve, edit (``text`` required) or reject a pending draft; one way only."""

    @abstractmethod
    def get_draft(self, node_id: str, *, scope: str = DEFAULT_SCOPE) -> GraduationDraft | None:
        """The draft for a node, if any."""

    @abstractmethod
    def list_drafts(
        self, *, scope: str = DEFAULT_SCOPE, status: DraftStatus | None = None
    ) -> list[GraduationDraft]:
        """Drafts, oldest first."""
