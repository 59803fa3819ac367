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
  audit log reproduces them). Nodes already in the hot graph are never duplicated.
- pending-final markers (``<home>/pending/<session>.json``) make SessionEnd's merge survive
  a killed process: written before the final flush, removed after it; the next session
  start or ``rolling-graph recover`` finishes what is left.

**Scope** (the project key of the warm graph): :func:`rolling_graph.project.project_key` —
``ROLLING_GRAPH_PROJECT`` (``project =`` in the config file) when set, else the repository's
normalized remote URL, root commit or work-tree path; outside a repository (or without a
``cwd``), the person's own scope. A project key never starts with ``~``, which starts
personal scopes. Pulls read the project scope and the person's own scope only
(``identity.own_scope``: ``~<person>`` on PostgreSQL, ``""`` in SQLite, where
``rolling-graph seed --scope ''`` puts personal memories); flushes are routed by domain to
the two (``warm.routing``). On a session's first pull, warm data keyed the old way (folder
name) is adopted when safe (:mod:`rolling_graph.warm.rekey`); personal scopes never move.

**What a flush sends**: every node and edge of the hot graph except those that a pull put
there and that this session never touched since (same or lower weight, not activated after
the pull): re-sending them would count every pulled node as seen in every session and
inflate cross-session frequency. Endpoints of sent edges are always sent. ``routing`` then
splits it by domain into a project batch and a personal batch (same ``flush_seq``, each
applied at most once) and keeps private nodes on the machine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rolling_graph.hotstore import HotStore, atomic_write_json
from rolling_graph.model import (
    ANCHOR_FLOOR,
    ATTR_KEY_RE,
    DOMAINS,
    KINDS,
    MAX_ALIAS,
    MAX_ALIASES,
    MAX_ATTR_VALUE,
    MAX_ATTRS,
    MAX_LABEL,
    MAX_SUMMARY,
    Edge,
    HotGraph,
    Node,
    edge_key,
)
from rolling_graph.patch import apply_normalized
from rolling_graph.paths import safe_session_id
from rolling_graph.project import project_key
from rolling_graph.slug import is_slug
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.identity import own_scope, person_for
from rolling_graph.warm.merge import (
    MergeParams,
    effective_strength,
    effective_weight,
    normalize_term,
    prepare_batch,
)
from rolling_graph.warm.outbox import Delivery, Outbox, OutboxEntry
from rolling_graph.warm.records import DEFAULT_SCOPE, MergeBatch, MergeResult, WarmBranches
from rolling_graph.warm.routing import route

log = logging.getLogger("rolling_graph.warm")

STATE = "warm"
PENDING_DIR = "pending"
PULL_SOURCE = "warm"
MAX_MENTION_TERMS = 600
MAX_NGRAM = 4
_STOP = frozenset(
    (  # noqa: SIM905 - a word list reads better as one string
        "a an and are as at be but by do for from has have how i if in is it its me my no not of "
        "on or our so that the then this to up us was we what when where which who why will with "
        "you your can could should would please let lets just also"
    ).split()
)


def utcnow() -> datetime:
    return datetime.now(UTC)


def project_scope(
    settings: Any, cwd: str | os.PathLike[str] | None, personal: str = DEFAULT_SCOPE
) -> str:
    """The warm-graph scope of a session (see the module docstring)."""
    # ``~`` starts personal scopes: a project key never does. Outside a repository
    # project_key gives "", the person's own scope, which is ``personal`` ("~<person>" on a
    # shared PostgreSQL store, where "" would be a scope every teammate reads).
    configured = str(getattr(settings, "project", "") or "").strip().lstrip("~")
    return project_key(cwd, configured) or personal


def mention_terms(prompt: str | None) -> list[str]:
    """Normalized word n-grams (1–4 words) of a prompt: what a warm id, label or alias can
    match exactly (``load_branches`` compares normalized terms). Lone stop words are left out."""
    if not prompt:
        return []
    words = normalize_term(prompt).split()
    terms: dict[str, None] = {}
    for n in range(1, MAX_NGRAM + 1):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if n == 1 and (gram[0] in _STOP or len(gram[0]) < 2):
                continue
            terms[" ".join(gram)] = None
            if len(terms) >= MAX_MENTION_TERMS:
                return list(terms)
    return list(terms)


def store_params(settings: Any) -> MergeParams:
    return MergeParams(
        mode=getattr(settings, "merge", "max"),
        new_penalty=float(getattr(settings, "new_node_penalty", 0.8)),
    )


@dataclass
class FlushResult:
    """What one flush did. ``status``: ``applied`` | ``duplicate`` (already applied) |
    ``queued`` (in the outbox) | ``empty`` (nothing to send)."""

    session_id: str
    scope: str
    status: str
    flush_seq: int | None = None
    final: bool = False
    nodes: int = 0
    edges: int = 0
    merge: MergeResult | None = None
    outbox_file: str | None = None
    error: str | None = None
    delivered: Delivery | None = None
    flagged: list[str] = field(default_factory=list)
    scopes: dict[str, str] = field(default_factory=dict)  # scope → applied|duplicate|queued
    kept_private: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = {
            "session_id": self.session_id,
            "scope": self.scope,
            "status": self.status,
            "flush_seq": self.flush_seq,
            "final": self.final,
            "nodes": self.nodes,
            "edges": self.edges,
        }
        if self.outbox_file:
            out["outbox_file"] = self.outbox_file
        if self.error:
            out["error"] = self.error
        if self.flagged:
            out["graduation_flagged"] = self.flagged
        if len(self.scopes) > 1:
            out["scopes"] = self.scopes
        if self.kept_private:
            out["kept_private"] = self.kept_private
        return out


@dataclass
class PullResult:
    """What one pull did."""

    scope: str
    nodes_added: list[str] = field(default_factory=list)
    edges_added: list[str] = field(default_factory=list)
    anchors_marked: list[str] = field(default_factory=list)
    mentioned: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ops(self) -> int:
        return len(self.nodes_added) + len(self.edges_added) + len(self.anchors_marked)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scope": self.scope,
            "nodes": len(self.nodes_added),
            "edges": len(self.edges_added),
        }
        if self.error:
            out["error"] = self.error
        return out


@dataclass(frozen=True)
class Unreconciled:
    """A session that never got its final merge (see :meth:`Reconciler.unreconciled`)."""

    session_id: str
    reason: str
    has_graph: bool
    transcript_path: str | None = None
    modified: datetime | None = None


# --------------------------------------------------------------------------- hot-node values


def _hot_node_value(wn: Any, weight: float, turn: int) -> dict[str, Any]:
    aliases = [a[:MAX_ALIAS].strip() for a in wn.aliases if a and a.strip()][:MAX_ALIASES]
    value: dict[str, Any] = {
        "id": wn.id,
        "label": (wn.label or wn.id)[:MAX_LABEL].strip() or wn.id,
        "domain": wn.domain if wn.domain in DOMAINS else "project",
        "weight": round(max(weight, ANCHOR_FLOOR) if wn.anchor else weight, 6),
        "last_activated": turn,
        "aliases": aliases,
        "anchor": bool(wn.anchor),
    }
    if wn.summary:
        value["summary"] = wn.summary[:MAX_SUMMARY].strip()
    if wn.kind in KINDS:
        value["kind"] = wn.kind
    attrs = {
        k: v[:MAX_ATTR_VALUE].strip()
        for k, v in (wn.attrs or {}).items()
        if v and v.strip() and re.match(ATTR_KEY_RE, k)  # one bad key must not drop the node
    }
    if attrs:
        value["attrs"] = dict(list(attrs.items())[:MAX_ATTRS])
    return value


def _valid(model: type[Node] | type[Edge], value: dict[str, Any]) -> bool:
    try:
        model.model_validate(value)
    except ValidationError:
        return False
    return True


class Reconciler:
    """Flushes, pulls and recovers for one data home; the warm store opens lazily, once.

    Thread-safe enough for the worker: store access is serialized by a lock (the stores
    themselves are not shared across threads otherwise).
    """

    def __init__(
        self,
        settings: Any,
        hot: HotStore | None = None,
        *,
        pm: Any = None,
        url: str | None = None,
        schema: str | None = None,
        drafting: bool = True,
    ) -> None:
        self.settings = settings
        self.hot = hot or HotStore(Path(settings.home))
        self.home = Path(settings.home)
        self.pm = pm
        self.url = url if url is not None else (getattr(settings, "warm", "") or None)
        self.schema = schema
        self.outbox = Outbox(self.home)
        self.person = person_for(self.url, str(getattr(settings, "person", "") or ""))
        self.own_scope = own_scope(self.url, self.person)
        self.drafting = drafting
        self._store: WarmStore | None = None
        self._drafter: Any = None
        self._drafter_ready = False
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ store

    def store(self) -> WarmStore:
        """The open store; raises ``WarmStoreUnavailable`` when it cannot be reached."""
        with self._lock:
            if self._store is None:
                from rolling_graph.warm import open_store

                self._store = open_store(
                    self.url, self.home, params=store_params(self.settings), schema=self.schema
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

    def drafter(self) -> Any:
        if not self._drafter_ready:
            self._drafter_ready = True
            if self.drafting:
                from rolling_graph.warm.graduation import probe_drafter

                self._drafter = probe_drafter(self.settings, self.pm)
        return self._drafter

    # ------------------------------------------------------------------ state

    def state(self, session_id: str) -> dict[str, Any]:
        state = self.hot.read_state(session_id, STATE, {})
        return state if isinstance(state, dict) else {}

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

    def flush_doc(self, graph: HotGraph, state: dict[str, Any]) -> dict[str, Any]:
        """The hot-graph document to send: pulled-and-untouched nodes and edges left out."""
        doc = graph.to_json_dict()
        pulled: dict[str, Any] = state.get("pulled") or {}
        pulled_edges: dict[str, Any] = state.get("pulled_edges") or {}

        def touched(value: dict[str, Any], mark: Any, key: str) -> bool:
            turn, before = int(mark[0]), float(mark[1])
            return int(value.get("last_activated", 0)) > turn or float(value[key]) > before + 1e-9

        edges = {
            k: e
            for k, e in doc.get("edges", {}).items()
            if k not in pulled_edges or touched(e, pulled_edges[k], "strength")
        }
        keep = {e["source"] for e in edges.values()} | {e["target"] for e in edges.values()}
        nodes = {
            i: n
            for i, n in doc.get("nodes", {}).items()
            if i not in pulled or i in keep or touched(n, pulled[i], "weight")
        }
        doc["nodes"], doc["edges"] = nodes, edges
        return doc

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
            self.flush_doc(graph, state),
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
        entry = {
            "seq": seq,
            "at": now.isoformat(),
            "status": status,
            "turn": graph.turn,
            "nodes": len(graph.nodes),
            "edges": len(graph.edges),
        }
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
                branches = store.load_branches(
                    scope=scope,
                    mentions=terms,
                    top=top,
                    recent=recent,
                    neighbors=neighbors,
                    now=now,
                )
                parts = [branches]
                if scope != self.own_scope:
                    parts.append(
                        store.load_branches(
                            scope=self.own_scope,
                            mentions=terms,
                            top=top // 2,
                            recent=recent // 2,
                            neighbors=neighbors // 2,
                            now=now,
                        )
                    )
                params = store.params
        except Exception as err:  # noqa: BLE001 - a pull is best effort; the session goes on
            self._drop_store()
            result.error = f"{type(err).__name__}: {err}"
            log.warning("warm pull for %s failed: %s", sid, err)
            return result
        ops, reasons = self._pull_ops(graph, parts, now, params, result, session)
        if ops:
            apply_normalized(graph, ops)
            session.log_event(
                {
                    "type": "patch",
                    "status": "applied",
                    "turn": graph.turn,
                    "source": {"probe": PULL_SOURCE, "scope": scope},
                    "applied": ops,
                    "reasons": reasons,
                    "time": now.isoformat(),
                }
            )
            pulled = state.setdefault("pulled", {})
            for nid in result.nodes_added:
                if nid not in result.mentioned:  # named by the person: seen this session
                    pulled[nid] = [graph.turn, graph.nodes[nid].weight]
            pulled_edges = state.setdefault("pulled_edges", {})
            for key in result.edges_added:
                pulled_edges[key] = [graph.turn, graph.edges[key].strength]
        self.write_state(sid, state)
        return result

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

    def _pull_ops(
        self,
        graph: HotGraph,
        parts: Sequence[WarmBranches],
        now: datetime,
        params: MergeParams,
        result: PullResult,
        session: Any,
    ) -> tuple[list[dict[str, Any]], list[str]]:
        ops: list[dict[str, Any]] = []
        reasons: list[str] = []
        present = set(graph.nodes)
        limits = getattr(getattr(session, "params", None), "limits", None)
        relationships = getattr(limits, "relationships", None)
        max_nodes = getattr(limits, "max_nodes", 20_000)
        max_edges = getattr(limits, "max_edges", 100_000)
        seen: set[str] = set()
        for part in parts:
            for wn in part.nodes:
                if wn.id in seen or not is_slug(wn.id):
                    continue
                seen.add(wn.id)
                if wn.id in graph.nodes:
                    hot = graph.nodes[wn.id]
                    if wn.anchor and not hot.anchor:
                        # Keep the anchor: flag and floor (a floor needs weight ≥ 0.2).
                        if hot.weight < ANCHOR_FLOOR:
                            ops.append(
                                {
                                    "op": "replace",
                                    "path": f"/nodes/{wn.id}/weight",
                                    "value": ANCHOR_FLOOR,
                                }
                            )
                            reasons.append("warm: anchor floor")
                        ops.append({"op": "add", "path": f"/nodes/{wn.id}/anchor", "value": True})
                        reasons.append("warm: anchor")
                        result.anchors_marked.append(wn.id)
                    continue
                if len(present) >= max_nodes:
                    break
                value = _hot_node_value(wn, effective_weight(wn, now, params), graph.turn)
                if not _valid(Node, value):
                    continue
                ops.append({"op": "add", "path": f"/nodes/{wn.id}", "value": value})
                reasons.append(f"warm: {part.reasons.get(wn.id, 'pulled')}")
                present.add(wn.id)
                result.nodes_added.append(wn.id)
                if part.reasons.get(wn.id) in ("id", "mention"):
                    result.mentioned.append(wn.id)
        edge_count = len(graph.edges)
        for part in parts:
            for we in part.edges:
                key = edge_key(we.source, we.relationship, we.target)
                if key in graph.edges or key in result.edges_added:
                    continue
                if we.source not in present or we.target not in present:
                    continue
                if relationships is not None and we.relationship not in relationships:
                    continue
                if edge_count >= max_edges:
                    break
                value = {
                    "source": we.source,
                    "target": we.target,
                    "relationship": we.relationship,
                    "strength": round(effective_strength(we, now, params), 6),
                    "last_activated": graph.turn,
                }
                if not _valid(Edge, value):
                    continue
                ops.append({"op": "add", "path": f"/edges/{key}", "value": value})
                reasons.append("warm: edge")
                result.edges_added.append(key)
                edge_count += 1
        return ops, reasons

    # ------------------------------------------------------------------ pending final

    def _pending_dir(self) -> Path:
        return self.home / PENDING_DIR

    def _pending_path(self, session_id: str) -> Path:
        return self._pending_dir() / f"{safe_session_id(session_id)}.json"

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
        path = self._pending_path(session_id)
        atomic_write_json(
            path,
            {
                "session_id": session_id,
                "scope": state.get("scope") or self.scope_for(cwd),
                "cwd": cwd or state.get("cwd"),
                "transcript_path": transcript_path or state.get("transcript_path"),
                "created": (now or utcnow()).isoformat(),
            },
        )
        return path

    def clear_pending(self, session_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._pending_path(session_id))

    def pending(self) -> list[dict[str, Any]]:
        """The pending-final markers (sessions whose final merge may not have happened)."""
        d = self._pending_dir()
        if not d.exists():
            return []
        out = []
        for path in sorted(d.glob("*.json")):
            try:
                doc = json.loads(path.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(doc, dict) and doc.get("session_id"):
                out.append(doc)
        return out

    # ------------------------------------------------------------------ recovery

    def unreconciled(
        self, *, older_than: timedelta = timedelta(minutes=60), now: datetime | None = None
    ) -> list[Unreconciled]:
        """Sessions that never reconciled: a pending-final marker, or a hot graph older than
        ``older_than`` whose final merge is not recorded (or that changed after it)."""
        now = now or utcnow()
        out: dict[str, Unreconciled] = {}
        for marker in self.pending():
            sid = str(marker["session_id"])
            out[sid] = Unreconciled(
                sid,
                "pending final flush",
                self.hot.exists(sid),
                marker.get("transcript_path") or self.state(sid).get("transcript_path"),
            )
        for info in self.hot.sessions():
            sid = info.session_id
            if sid in out:
                continue
            state = self.state(sid)
            has_graph = self.hot.exists(sid)
            if info.modified > now - older_than:
                continue  # maybe still live
            final = state.get("final")
            if has_graph:
                if info.nodes == 0:
                    continue
                if final and (final.get("turn"), final.get("nodes"), final.get("edges")) == (
                    info.turn,
                    info.nodes,
                    info.edges,
                ):
                    continue
                reason = "changed after its final merge" if final else "no final merge"
                out[sid] = Unreconciled(
                    sid, reason, True, state.get("transcript_path"), info.modified
                )
            elif not final and state.get("transcript_path"):
                out[sid] = Unreconciled(
                    sid, "hot graph gone", False, state["transcript_path"], info.modified
                )
        return sorted(out.values(), key=lambda u: u.session_id)

    @contextlib.contextmanager
    def _session_lock(self, session_id: str, timeout: float) -> Iterator[None]:
        with self.hot.lock(session_id, timeout=timeout):
            yield

    def reconcile_session(
        self,
        session_id: str,
        *,
        transcript_path: str | None = None,
        lock_timeout: float = 10.0,
        allow_transcript: bool = True,
        now: datetime | None = None,
        session: Any = None,
    ) -> FlushResult | None:
        """Final-flush one session from its hot graph, or from its transcript when the hot
        graph is gone; clears its pending marker. ``None`` when there is nothing to use."""
        from rolling_graph.session import HotSession, SessionParams

        if session is not None:
            result = self.flush(session, final=True, now=now, reason="recover")
            self.clear_pending(session_id)
            return result
        marker = next((m for m in self.pending() if m.get("session_id") == session_id), {})
        transcript = (
            transcript_path
            or marker.get("transcript_path")
            or self.state(session_id).get("transcript_path")
        )
        if self.hot.exists(session_id):
            with self._session_lock(session_id, lock_timeout):
                sess = HotSession.open(
                    self.hot, session_id, SessionParams.from_settings(self.settings)
                )
                result = self.flush(sess, final=True, now=now, reason="recover")
        elif transcript and allow_transcript and Path(transcript).exists():
            graph = rebuild_from_transcript(Path(transcript), session_id, self.settings)
            with self._session_lock(session_id, lock_timeout):
                self.hot.save(graph)  # a hot graph again: `show` works, recovery is visible
                self.hot.audit(session_id).append(
                    {"type": "recover", "from": "transcript", "path": str(transcript)}
                )
                result = self.flush_graph(graph, final=True, now=now, reason="recover-transcript")
        else:
            return None
        self.clear_pending(session_id)
        return result

    def finish_pending(
        self,
        *,
        exclude: str | None = None,
        engine: Any = None,
        lock_timeout: float = 0.2,
        allow_transcript: bool = False,
    ) -> list[FlushResult]:
        """Finish final flushes that a killed SessionEnd left behind (called at session start).

        Skips sessions another thread or process holds (it is finishing them itself).
        """
        done = []
        for marker in self.pending():
            sid = str(marker["session_id"])
            if sid == exclude:
                continue
            tlock = engine.thread_lock(sid) if engine is not None else None
            if tlock is not None and not tlock.acquire(timeout=lock_timeout):
                continue
            try:
                if not self._pending_path(sid).exists():
                    continue  # finished meanwhile
                result = self.reconcile_session(
                    sid, lock_timeout=lock_timeout, allow_transcript=allow_transcript
                )
                if result is not None:
                    done.append(result)
            except Exception as err:  # noqa: BLE001 - timeouts, a broken graph: leave it for `recover`
                log.info("pending final flush of %s left for later: %s", sid, err)
            finally:
                if tlock is not None:
                    tlock.release()
        return done


# --------------------------------------------------------------------------- transcripts


def rebuild_from_transcript(path: Path, session_id: str, settings: Any) -> HotGraph:
    """Rebuild a hot graph from a transcript with the in-process replay and the offline probe
    (no network), without the warm plugin (the caller flushes the result itself)."""
    from rolling_graph.engine import Engine
    from rolling_graph.hotstore import ReplayStore
    from rolling_graph.plugins import get_plugin_manager
    from rolling_graph.replay import Replayer

    with tempfile.TemporaryDirectory(prefix="rg-recover.") as tmp:
        out = Path(tmp)
        replay_settings = settings.model_copy(
            update={"home": out / "store", "probe": "offline", "warm": ""}
        )
        pm = get_plugin_manager(load_entry_points=False)
        with contextlib.suppress(ValueError, AssertionError):
            pm.unregister(name="rolling_graph.default_plugins.warm_plugin")
        engine = Engine(replay_settings, pm=pm, store=ReplayStore(out / "store"), replay=True)
        with Replayer(out, settings=replay_settings, engine=engine, write_outputs=False) as r:
            summary = r.replay_file(path)
            graph = r.engine.store.load(summary.session_id).graph
    return graph.model_copy(update={"session_id": session_id})
