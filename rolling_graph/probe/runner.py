"""Running probes without holding up a prompt.

The probe plugin records what happened since the last probe in a per-session buffer (already
redacted; kept in the session directory as ``probe_buffer.json``) and asks the runner for a
probe when the gate fired. The runner:

- runs at most one probe per session at a time, on a small thread pool, so the hook returns
  at once; triggers that fire meanwhile are **coalesced** into one more run after it;
- takes the session lock only to snapshot the buffer and graph and, afterwards, to apply the
  patch — never while the backend works — so results of turn N show from the next hook event;
- on any failure (backend error, timeout, refusal, unparsable or rejected patch) leaves the
  graph as it was, writes a ``probe_failure`` record to the audit log, keeps the buffer, and
  lets the next trigger try again;
- in replay (``services.replay``) runs inline, so a replay is deterministic and
  ``ctx.ops_applied`` reports what the probe did on that very event.

With a paid backend, probes come in two tiers (:mod:`rolling_graph.probe.tiers`): a ``paid``
request runs on it unless budgets or backoff stop it, and falls back to the offline probe for
the same turns when it fails; a ``free`` request runs the offline probe. The buffer then has
two cursors: a paid probe consumes the turns it read, a free one only moves ``free_seq``, so the
next paid probe still reads everything since the last paid one.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rolling_graph.core.decay import focus_cluster
from rolling_graph.core.patch import PatchResult, PatchSource
from rolling_graph.probe.acted_request import UnplacedPrompts
from rolling_graph.probe.base import (
    NodeView,
    ProbeBackend,
    ProbeError,
    ProbeReply,
    ProbeRequest,
    TurnDigest,
)
from rolling_graph.probe.buffer import (
    advance_free_cursor,
    consume_buffer,
    count_paid_call,
    peek_buffer,
)

if TYPE_CHECKING:
    from rolling_graph.probe.services import ProbeServices

log = logging.getLogger("rolling_graph")

COMPONENT = "probe_runner"


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------


# A graph's node views: node id → (the node object, in focus, superseded, its view). The patch
# engine swaps in a new node object whenever a node's fields change, so a view is reused while
# its node and both flags are the same: a long session's probe no longer rebuilds a view of
# every node. Views are read, never changed, by the backends. Kept for the last few graphs
# (a worker serves a few sessions), each checked by identity through a weak reference.
_VIEWS: OrderedDict[int, tuple[weakref.ref[Any], dict[str, tuple[Any, bool, bool, NodeView]]]] = (
    OrderedDict()
)
_VIEW_GRAPHS = 8


def _view(n: Any, focus: bool, superseded: bool) -> NodeView:
    return NodeView(
        id=n.id,
        label=n.label,
        domain=n.domain,
        weight=n.weight,
        kind=n.kind,
        aliases=list(n.aliases),
        last_activated=n.last_activated,
        focus=focus,
        superseded=superseded,
        attrs=dict(n.attrs) if n.attrs else None,
    )


def graph_view(
    graph: Any, focus_size: int = 5
) -> tuple[list[NodeView], list[tuple[str, str, str]]]:
    focus = set(focus_cluster(graph, focus_size)) if graph.nodes else set()
    superseded = set(graph.superseded_by())
    kept = _VIEWS.pop(id(graph), None)
    old = kept[1] if kept is not None and kept[0]() is graph else {}
    views: dict[str, tuple[Any, bool, bool, NodeView]] = {}
    nodes = []
    for nid, n in graph.nodes.items():
        f, s = nid in focus, nid in superseded
        hit = old.get(nid)
        if hit is None or hit[0] is not n or hit[1] is not f or hit[2] is not s:
            hit = (n, f, s, _view(n, f, s))
        views[nid] = hit
        nodes.append(hit[3])
    _VIEWS[id(graph)] = (weakref.ref(graph), views)
    while len(_VIEWS) > _VIEW_GRAPHS:
        _VIEWS.popitem(last=False)
    edges = [(e.source, e.relationship, e.target) for e in graph.edges.values()]
    return nodes, edges


def build_request(
    sess: Any, store: Any, triggers: list[dict[str, Any]] | None = None, *, free: bool = False
) -> tuple[ProbeRequest, int] | None:
    """A request from the session's buffer and graph, and the buffer position it covers.
    ``free``: only the turns after the free tier's cursor (a stand-in beside a paid backend)."""
    buf = peek_buffer(store, sess.graph.session_id)
    after = int(buf.get("free_seq", 0)) if free else 0
    turns = [
        t
        for t in buf["turns"]
        if int(t.get("seq", 0)) > after and (t.get("user") or t.get("assistant") or t.get("tools"))
    ]
    if not turns:
        return None
    # The agent's text the first prompt answers, from turns probed already.
    taken = [t for t in buf["turns"] if int(t.get("seq", 0)) <= after and t.get("assistant")]
    before = str(taken[-1]["assistant"]) if taken else str(buf.get("last_assistant") or "")
    earlier = (
        str(taken[-2]["assistant"])
        if len(taken) > 1
        else str(buf.get("last_assistant" if taken else "earlier_assistant") or "")
    )
    nodes, edges = graph_view(sess.graph, sess.params.decay.focus_size)
    req = ProbeRequest(
        session_id=sess.graph.session_id,
        turn=sess.graph.turn,
        turns=[TurnDigest.from_dict(t) for t in turns],
        nodes=nodes,
        edges=edges,
        triggers=list(triggers or []),
        max_ops=sess.params.limits.max_ops,
        relationships=tuple(sorted(sess.params.limits.relationships)),
        before=before,
        earlier=earlier,
    )
    return req, max(int(t.get("seq", 0)) for t in buf["turns"])


def paid_calls(store: Any, session_id: str) -> int:
    return int(peek_buffer(store, session_id).get("paid_calls", 0))


# ---------------------------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------------------------


@dataclass
class _SessionState:
    in_flight: bool = False
    pending: bool = False
    coalesced: int = 0
    paid: bool = False  # a paid probe was asked for (coalesced requests keep the higher tier)
    triggers: list[dict[str, Any]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)


class ProbeRunner:
    """One per engine (``engine.component("probe_runner", ProbeRunner)``); what it needs from
    the engine is :class:`~rolling_graph.probe.services.ProbeServices`."""

    def __init__(
        self, services: ProbeServices, backend: ProbeBackend | None = None, workers: int = 4
    ) -> None:
        from rolling_graph.probe.tiers import Tiers

        self.services = services
        self.tiers = Tiers(services.settings, lambda: backend or self._make_backend())
        self._guard = threading.Lock()
        self._states: dict[str, _SessionState] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._workers = workers
        self.runs = 0  # probes actually run (for tests and stats)
        self.backend_failures = 0  # backend calls failed in a row (worker status / doctor)
        self.last_backend_error: str | None = None
        self.unplaced = UnplacedPrompts()  # prompts whose probe placed nothing (acted_request)

    def _make_backend(self) -> ProbeBackend:
        from rolling_graph.probe.select import make_backend

        return make_backend(self.services.settings, self.services.pm)

    # -- backend
    @property
    def backend(self) -> ProbeBackend:
        return self.tiers.primary

    @property
    def paid(self) -> bool:
        """Whether the configured backend is paid (probes then come in two tiers)."""
        return self.tiers.paid

    # -- scheduling
    def request(
        self, session_id: str, triggers: list[dict[str, Any]], ctx: Any = None, tier: str = "paid"
    ) -> str:
        """Ask for a probe (``tier``: ``paid`` or ``free``, see :mod:`rolling_graph.gate.paid`).
        Returns ``"inline"`` (replay: already applied), ``"started"`` or ``"coalesced"`` (one
        is in flight; it will be followed by one more run)."""
        paid = tier == "paid"
        if self.services.replay and ctx is not None:
            result = self._execute(lambda: contextlib.nullcontext(ctx.session), triggers, 0, paid)
            if result is not None:
                ctx.ops_applied += result.ops_applied
            return "inline"
        with self._guard:
            st = self._states.setdefault(session_id, _SessionState())
            st.triggers.extend(triggers)
            st.paid |= paid
            if st.in_flight:
                st.pending = True
                st.coalesced += 1
                return "coalesced"
            st.in_flight = True
            st.done.clear()
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="rg-probe")
            self._pool.submit(self._loop, session_id)
        return "started"

    def counts(self) -> dict[str, int]:
        """Probes in flight and follow-up runs queued behind them, over all sessions (for
        ``worker status`` and for the worker's idle exit, which must wait for them)."""
        with self._guard:
            states = list(self._states.values())
        return {
            "in_flight": sum(1 for st in states if st.in_flight),
            "queued": sum(1 for st in states if st.pending),
        }

    def in_flight(self, session_id: str) -> bool:
        with self._guard:
            st = self._states.get(session_id)
            return bool(st and st.in_flight)

    def wait(self, session_id: str, timeout: float = 30.0) -> bool:
        """Block until no probe is in flight for the session (tests, flush before exit)."""
        with self._guard:
            st = self._states.get(session_id)
            if st is None or not st.in_flight:
                return True
            done = st.done
        return done.wait(timeout)

    def _loop(self, session_id: str) -> None:
        while True:
            with self._guard:
                st = self._states[session_id]
                triggers, st.triggers = st.triggers, []
                coalesced, st.coalesced = st.coalesced, 0
                paid, st.paid = st.paid, False
                st.pending = False
            try:
                self._execute(
                    lambda: self.services.locked_session(session_id), triggers, coalesced, paid
                )
            except Exception:  # noqa: BLE001 - a worker thread must survive anything
                log.exception("probe run for session %s crashed", session_id)
            with self._guard:
                if st.pending:
                    continue
                st.in_flight = False
                st.done.set()
                return

    # -- one probe, inline (caller holds the session lock)
    def run_now(
        self, sess: Any, triggers: list[dict[str, Any]] | None = None, *, paid: bool = True
    ) -> PatchResult | None:
        return self._execute(lambda: contextlib.nullcontext(sess), list(triggers or []), 0, paid)

    def _execute(
        self, open_session: Any, triggers: list[dict[str, Any]], coalesced: int, paid: bool
    ) -> PatchResult | None:
        """One probe: the paid backend when asked for and allowed, else (or when it fails) the
        offline probe over the same turns. The session lock is held only around snapshots and
        applying, never while a backend works."""
        store = self.services.store
        extra: dict[str, Any] = {}
        if paid and self.paid:
            with open_session() as sess:
                built = build_request(sess, store, triggers)
                stop = self.tiers.stop_reason(paid_calls(store, sess.graph.session_id))
            if built is None:
                return None
            if stop is None:
                req, upto = built
                reply, error = self._call(self.backend, req)
                cost = self.tiers.cost_fields(reply)
                with open_session() as sess:
                    count_paid_call(store, sess.graph.session_id)
                    result = self._finish(sess, req, upto, reply, error, coalesced, cost)
                    ok = result is not None and result.applied
                    if ok:
                        consume_buffer(store, sess.graph.session_id, upto)
                    sess.save()
                error = error or (result.error if result is not None else None)
                self.tiers.account(reply, ok, error, cost["cost_usd"])
                if ok:
                    return result
                extra = {"fallback": "failure", "paid_error": (error or "")[:300]}
            else:
                self.tiers.note_stop(*stop)
                extra = {"fallback": stop[0]}
        return self._run_free(open_session, triggers, coalesced, extra)

    def _run_free(
        self, open_session: Any, triggers: list[dict[str, Any]], coalesced: int, extra: dict
    ) -> PatchResult | None:
        store = self.services.store
        beside_paid = self.paid
        with open_session() as sess:
            built = build_request(sess, store, triggers, free=beside_paid)
        if built is None:
            return None
        req, upto = built
        reply, error = self._call(self.tiers.offline, req)
        with open_session() as sess:
            fields = {"tier": "free", **extra} if beside_paid else {}
            result = self._finish(sess, req, upto, reply, error, coalesced, fields)
            if beside_paid and result is not None and result.applied:
                advance_free_cursor(store, sess.graph.session_id, upto)
            elif result is not None and result.applied:
                consume_buffer(store, sess.graph.session_id, upto)
            sess.save()
        return result

    def _call(
        self, backend: ProbeBackend, req: ProbeRequest
    ) -> tuple[ProbeReply | None, str | None]:
        with self._guard:
            self.runs += 1
        req.prompt_id = req.prompt_id or str(getattr(self.services.settings, "prompt", "") or "")
        try:
            return backend.run(req), None
        except ProbeError as err:
            return err.reply, str(err)
        except Exception as err:  # noqa: BLE001 - a backend bug is a failed probe, not a crash
            log.exception("probe backend raised")
            return None, f"{type(err).__name__}: {err}"

    def _finish(
        self,
        sess: Any,
        req: ProbeRequest,
        upto: int,
        reply: ProbeReply | None,
        error: str | None,
        coalesced: int,
        fields: dict[str, Any],
    ) -> PatchResult | None:
        """Apply a reply and write its audit record (the caller moves the buffer cursors)."""
        base: dict[str, Any] = {
            "turn": sess.graph.turn,
            "probe_turns": [req.turns[0].turn, req.turns[-1].turn],
            "triggers": sorted({t.get("name", "?") for t in req.triggers}),
            **fields,
        }
        if coalesced:
            base["coalesced"] = coalesced
        if reply is not None:
            base.update(reply.audit_fields())
        else:
            base["backend"] = getattr(self.tiers._primary, "name", "?")
        if error is not None or reply is None:
            self.backend_failures += 1
            self.last_backend_error = error
            sess.log_event({"type": "probe_failure", "stage": "backend", "error": error, **base})
            return None
        if fields.get("paid_error"):
            # The offline probe stood in for a failing paid backend: the graph grew, but the
            # paid backend failed again (worker status and doctor say so).
            self.backend_failures += 1
            self.last_backend_error = fields["paid_error"]
        elif fields.get("fallback") is None:
            self.backend_failures = 0
        result = sess.apply(
            reply.raw, PatchSource(reply.backend, reply.prompt_id, reply.prompt_hash)
        )
        if not result.applied:
            sess.log_event(
                {"type": "probe_failure", "stage": "patch", "error": result.error, **base}
            )
            return result
        self.unplaced.note(sess.graph, req, result.touched_nodes)
        sess.log_event(
            {
                "type": "probe",
                "status": "applied",
                "ops": result.ops_applied,
                "new_nodes": len(result.new_nodes),
                "new_edges": len(result.new_edges),
                "rationale": result.rationale,
                **base,
            }
        )
        return result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=False)
            self._pool = None
        self.tiers.close()


def get_runner(engine: Any) -> ProbeRunner:
    """The engine's runner, built on first use (the engine serves as its ProbeServices)."""
    return engine.component(COMPONENT, ProbeRunner)
