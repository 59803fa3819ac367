"""Reconciliation between a session's hot graph and the warm store (DESIGN §6).

- :meth:`Reconciler.flush` — hot graph → ``prepare_batch`` → ``WarmStore.merge`` (one
  transaction). Each flush takes the next ``flush_seq`` of its session, kept in the session's
  ``warm.json`` state and persisted *before* the merge, so a number is never reused; the
  store applies each ``(scope, session, seq)`` at most once and counts a session once per
  node (its sighting rows), so a PreCompact flush followed by the SessionEnd merge counts the
  session once. When the store cannot be reached the batch goes to the outbox
  (:mod:`rolling_graph.warm.outbox`); pending outbox entries are delivered first at every
  flush and pull, so flushes reach the store in order.
- :meth:`Reconciler.pull` — at session start (and on the first prompt, for the nodes it
  mentions) load the relevant warm branches into the hot graph through the patch engine's
  normalized path, audited as a ``patch`` record with source ``warm`` (a rebuild from the
  audit log reproduces them; the operations come from :mod:`rolling_graph.warm.pull`).
  Nodes already in the hot graph are never duplicated.
- pending-final markers (:mod:`rolling_graph.warm.pending`) make SessionEnd's merge survive
  a killed process; :mod:`rolling_graph.pipeline.recovery` finishes what is left (from the hot graph,
  or by rebuilding it from the transcript).

**Scope**: the project key of the session's warm graph
(:func:`rolling_graph.warm.identity.project_scope`). Pulls read the project scope and the
person's own scope only (``identity.own_scope``); flushes are routed by domain to the two
(``warm.routing``). On a session's first pull, warm data keyed the old way (folder name) is
adopted when safe (:mod:`rolling_graph.warm.rekey`).

**What a flush sends**: the hot graph but what a pull put there and this session never
touched (:func:`rolling_graph.warm.flush.flush_doc`), split by ``routing`` into a project
batch and a personal batch; private nodes stay on the machine.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import apply_normalized
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.flush import FlushResult, flush_doc, flush_record
from rolling_graph.warm.graduation import Drafter
from rolling_graph.warm.identity import own_scope, person_for, project_scope
from rolling_graph.warm.merge import prepare_batch, store_params
from rolling_graph.warm.outbox import Delivery, Outbox, OutboxEntry
from rolling_graph.warm.pending import PendingMarkers, Unreconciled, find_unreconciled
from rolling_graph.warm.pull import (
    PullResult,
    load_parts,
    mention_terms,
    pull_ops,
    remember_pulled,
)
from rolling_graph.warm.records import MergeBatch
from rolling_graph.warm.routing import route

__all__ = [
    "FlushResult",
    "PullResult",
    "Reconciler",
    "Unreconciled",
    "mention_terms",
    "project_scope",
    "store_params",
    "utcnow",
]

log = logging.getLogger("rolling_graph.warm")

STATE = "warm"


def session_state(hot: Any, session_id: str) -> dict[str, Any]:
    """A session's warm state as the hooks keep it in the hot store (its cwd, scope,
    transcript path, flushes); {} when it has none."""
    state = hot.read_state(session_id, STATE, {})
    return state if isinstance(state, dict) else {}


PULL_SOURCE = "warm"

DrafterSource = Callable[[], Drafter | None]
"""Makes the graduation drafter on first use (``None``: the offline template). The probe's
drafter comes from above (:func:`rolling_graph.probe.drafter.probe_drafter`): the warm
package never imports the probe."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class Reconciler:
    """Flushes, pulls and pending-final markers for one data home; the warm store opens
    lazily, once (recovery of what is left: :mod:`rolling_graph.pipeline.recovery`).

    Thread-safe enough for the worker: store access is serialized by a lock (the stores
    themselves are not shared across threads otherwise).
    """

    def __init__(
        self,
        settings: Any,
        hot: HotStore | None = None,
        *,
        drafter: DrafterSource | None = None,
        url: str | None = None,
        schema: str | None = None,
    ) -> None:
        self.settings = settings
        self.hot = hot or HotStore(Path(settings.home))
        self.home = Path(settings.home)
        self.url = url if url is not None else (getattr(settings, "warm", "") or None)
        self.schema = schema
        self.outbox = Outbox(self.home)
        self.person = person_for(self.url, str(getattr(settings, "person", "") or ""))
        self.own_scope = own_scope(self.url, self.person)
        self.markers = PendingMarkers(self.home, durable=self.hot.durable)
        self._drafter_source = drafter
        self._store: WarmStore | None = None
        self._drafter: Drafter | None = None
        self._drafter_ready = False
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ store

    def store(self) -> WarmStore:
        """The open store; raises ``WarmStoreUnavailable`` when it cannot be reached."""
        with self._lock:
            if self._store is None:
                from rolling_graph.warm import open_store

                self._store = open_store(
                    self.url,
                    self.home,
                    params=store_params(self.settings),
                    schema=self.schema,
                    batch=not self.hot.durable,  # a replay writes the warm store in one batch
                )
            return self._store

    def read(self, fn: Callable[[WarmStore], Any]) -> Any:
        """``fn(store)`` under the reconciler's lock (reads for other components)."""
        with self._lock:
            return fn(self.store())

    def _drop_store(self) -> None:
        # A lost connection leaves the store object broken: reopen on the next use.
        with self._lock:
            if self._store is not None:
                with contextlib.suppress(Exception):
                    self._store.close()
            self._store = None

    def close(self) -> None:
        self._drop_store()

    def __enter__(self) -> Reconciler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def drafter(self) -> Drafter | None:
        if not self._drafter_ready:
            self._drafter_ready = True
            if self._drafter_source is not None:
                self._drafter = self._drafter_source()
        return self._drafter

    # ------------------------------------------------------------------ state

    def state(self, session_id: str) -> dict[str, Any]:
        return session_state(self.hot, session_id)

    def write_state(self, session_id: str, state: dict[str, Any]) -> None:
        # Durable: the flush sequence must never be reused, even after a power cut.
        self.hot.write_state(session_id, STATE, state, durable=True)

    def remember(
        self, session_id: str, *, cwd: str | None = None, transcript_path: str | None = None
    ) -> dict[str, Any]:
        """Keep the session's cwd, scope and transcript path (recovery needs them later)."""
        state = self.state(session_id)
        changed = False
        for key, value in (("cwd", cwd), ("transcript_path", transcript_path)):
            if value and state.get(key) != value:
                state[key] = value
                changed = True
        if "scope" not in state:
            state["scope"] = self.scope_for(state.get("cwd"))
            changed = True
        if changed:
            self.write_state(session_id, state)
        return state

    def scope_for(self, cwd: str | None) -> str:
        """This session's project scope (the own scope outside a repository)."""
        return project_scope(self.settings, cwd, self.own_scope)

    def scope_of(self, session_id: str, cwd: str | None = None) -> str:
        state = self.state(session_id)
        if "scope" in state:
            return str(state["scope"])
        return self.scope_for(cwd or state.get("cwd"))

    # ------------------------------------------------------------------ outbox

    def deliver_outbox(self) -> Delivery:
        """Try to deliver pending flushes now (returns what happened; never raises)."""
        entries = self.outbox.entries()
        if not entries:
            return Delivery()
        try:
            store = self.store()
        except Exception as err:  # noqa: BLE001 - down: keep everything for later
            self._drop_store()
            self.outbox.note_failure(entries[0], str(err))  # the one we tried: visible
            return Delivery(pending=len(entries), error=str(err))
        with self._lock:
            result = self.outbox.deliver(store, on_applied=self._after_delivery)
        if result.error:
            self._drop_store()
        return result

    def _after_delivery(self, entry: OutboxEntry) -> None:
        self._flag(entry.batch)

    # ------------------------------------------------------------------ flush

    def flush(
        self,
        session: Any,
        *,
        final: bool,
        now: datetime | None = None,
        cwd: str | None = None,
        reason: str = "",
    ) -> FlushResult:
        """Merge a session's hot graph into the warm store now (or queue it in the outbox)."""
        return self.flush_graph(session.graph, final=final, now=now, cwd=cwd, reason=reason)

    def flush_graph(
        self,
        graph: HotGraph,
        *,
        final: bool,
        session_id: str | None = None,
        now: datetime | None = None,
        cwd: str | None = None,
        reason: str = "",
    ) -> FlushResult:
        sid = session_id or graph.session_id
        now = now or utcnow()
        state = self.state(sid)
        if cwd and not state.get("cwd"):
            state["cwd"] = cwd
        scope = str(state["scope"]) if "scope" in state else self.scope_for(cwd)
        state["scope"] = scope
        routed = route(
            flush_doc(graph, state),
            project=scope,
            personal=self.own_scope,
            share_relationships=bool(getattr(self.settings, "share_relationships", False)),
        )
        if not routed.parts:
            self._record(sid, state, graph, final=final, now=now, seq=None, status="empty")
            return FlushResult(sid, scope, "empty", final=final, kept_private=len(routed.private))
        # Persist the number before merging: a crash after a merge must never make a later
        # flush reuse it (the store would ignore that flush as already applied).
        seq = int(state.get("seq", 0)) + 1
        state["seq"] = seq
        self.write_state(sid, state)
        batches = [
            prepare_batch(d, flush_seq=seq, now=now, scope=s, session_id=sid, person=self.person)
            for s, d in sorted(routed.parts.items())
        ]
        result = FlushResult(
            sid,
            scope,
            "queued",
            seq,
            final,
            nodes=sum(len(b.nodes) for b in batches),
            edges=sum(len(b.edges) for b in batches),
            kept_private=len(routed.private),
        )
        result.delivered = self.deliver_outbox()
        for batch in batches:
            self._send(batch, result, final)
        states = set(result.scopes.values())
        result.status = next(s for s in ("queued", "applied", "duplicate") if s in states)
        self._record(sid, state, graph, final=final, now=now, seq=seq, status=result.status)
        return result

    def _send(self, batch: MergeBatch, result: FlushResult, final: bool) -> None:
        error = result.delivered.error if result.delivered else None
        if error or result.outbox_file:
            # The store is down (or older flushes are stuck): queue behind them, in order.
            self._queue(batch, result, error or result.error or "queued behind", final)
            return
        try:
            with self._lock:
                merged = self.store().merge(batch)
        except Exception as err:  # noqa: BLE001 - nothing lost: any failure → outbox
            self._drop_store()
            log.warning(
                "warm flush of %s seq %d queued: %s", batch.session_id, batch.flush_seq, err
            )
            self._queue(batch, result, f"{type(err).__name__}: {err}", final)
            return
        result.scopes[batch.scope] = "applied" if merged.applied else "duplicate"
        if result.merge is None or batch.scope == result.scope:
            result.merge = merged
        if merged.applied:
            result.flagged += self._flag(batch)

    def _queue(self, batch: MergeBatch, result: FlushResult, error: str, final: bool) -> None:
        path = self.outbox.put(batch, reason=error, final=final)
        result.status = result.scopes[batch.scope] = "queued"
        result.outbox_file = path.name
        result.error = error

    def _flag(self, batch: MergeBatch) -> list[str]:
        """Flag graduation candidates among the nodes a merge touched (never raises)."""
        if not batch.nodes:
            return []
        try:
            from rolling_graph.warm.graduation import flag_candidates

            with self._lock:
                flagged = flag_candidates(
                    self.store(),
                    scope=batch.scope,
                    now=batch.now,
                    drafter=self.drafter(),
                    only={n.id for n in batch.nodes},
                )
            return [c.node.id for c in flagged]
        except Exception as err:  # noqa: BLE001 - graduation must not fail a flush
            log.warning("graduation check failed: %s", err)
            return []

    def _record(
        self,
        sid: str,
        state: dict[str, Any],
        graph: HotGraph,
        *,
        final: bool,
        now: datetime,
        seq: int | None,
        status: str,
    ) -> None:
        entry = flush_record(graph, now=now, seq=seq, status=status)
        state["last_flush"] = entry
        if final:
            state["final"] = entry
        self.write_state(sid, state)

    # ------------------------------------------------------------------ pull

    def pull(
        self,
        session: Any,
        first_prompt: str | None,
        *,
        now: datetime | None = None,
        cwd: str | None = None,
        top: int = 20,
        recent: int = 10,
        neighbors: int = 20,
    ) -> PullResult:
        """Bring this project's (and this person's) relevant warm branches into the hot graph.

        ``top``/``recent`` 0 with a prompt pulls only what the prompt mentions (and its
        neighbours): the first-prompt pull.
        """
        graph: HotGraph = session.graph
        sid = graph.session_id
        now = now or utcnow()
        state = self.state(sid)
        if cwd and not state.get("cwd"):
            state["cwd"] = cwd
        scope = str(state["scope"]) if "scope" in state else self.scope_for(cwd)
        state["scope"] = scope
        result = PullResult(scope)
        terms = mention_terms(first_prompt)
        if not terms and top <= 0 and recent <= 0:
            return result
        self.deliver_outbox()
        try:
            with self._lock:
                store = self.store()
                self._adopt_legacy(store, state, scope)
                parts = load_parts(
                    store,
                    scope=scope,
                    own_scope=self.own_scope,
                    terms=terms,
                    top=top,
                    recent=recent,
                    neighbors=neighbors,
                    now=now,
                )
                params = store.params
        except Exception as err:  # noqa: BLE001 - a pull is best effort; the session goes on
            self._drop_store()
            result.error = f"{type(err).__name__}: {err}"
            log.warning("warm pull for %s failed: %s", sid, err)
            return result
        limits = getattr(getattr(session, "params", None), "limits", None)
        ops, reasons = pull_ops(graph, parts, now, params, result, limits)
        if ops:
            self._apply_pulled(session, ops, reasons, scope, now)
            remember_pulled(state, graph, result)
        self.write_state(sid, state)
        return result

    def _apply_pulled(
        self, session: Any, ops: list[dict[str, Any]], reasons: list[str], scope: str, now: datetime
    ) -> None:
        # Audited like a probe's patch, so a rebuild from the audit log reproduces the pull.
        apply_normalized(session.graph, ops)
        session.log_event(
            {
                "type": "patch",
                "status": "applied",
                "turn": session.graph.turn,
                "source": {"probe": PULL_SOURCE, "scope": scope},
                "applied": ops,
                "reasons": reasons,
                "time": now.isoformat(),
            }
        )

    def _adopt_legacy(self, store: WarmStore, state: dict[str, Any], scope: str) -> None:
        if state.get("legacy_checked") or str(getattr(self.settings, "project", "") or ""):
            return
        from rolling_graph.warm.rekey import adopt_legacy_scope

        state["legacy_checked"] = True
        adopted = adopt_legacy_scope(
            store, state.get("cwd"), scope, lambda sid: self.state(sid).get("cwd"), self.own_scope
        )
        if adopted is not None:
            state["adopted_scope"] = adopted

    # ------------------------------------------------------------------ pending final

    def mark_pending(
        self,
        session_id: str,
        *,
        cwd: str | None = None,
        transcript_path: str | None = None,
        now: datetime | None = None,
    ) -> Path:
        """Write the "pending final flush" marker (before SessionEnd's merge)."""
        state = self.state(session_id)
        return self.markers.write(
            session_id,
            {
                "scope": state.get("scope") or self.scope_for(cwd),
                "cwd": cwd or state.get("cwd"),
                "transcript_path": transcript_path or state.get("transcript_path"),
                "created": (now or utcnow()).isoformat(),
            },
        )

    def clear_pending(self, session_id: str) -> None:
        self.markers.clear(session_id)

    def is_pending(self, session_id: str) -> bool:
        return self.markers.exists(session_id)

    def pending(self) -> list[dict[str, Any]]:
        """The pending-final markers (sessions whose final merge may not have happened)."""
        return self.markers.all()

    def unreconciled(
        self, *, older_than: timedelta = timedelta(minutes=60), now: datetime | None = None
    ) -> list[Unreconciled]:
        """Sessions that never reconciled (see :func:`~rolling_graph.warm.pending.find_unreconciled`)."""
        return find_unreconciled(
            self.hot, self.pending(), self.state, older_than=older_than, now=now or utcnow()
        )
