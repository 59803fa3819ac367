"""A hot session: the graph plus the operations that change it, each one audited.

Every change goes through here (turn advance, probe patch, decay step, activation), and each
leaves a record in the audit log from which :func:`rebuild_from_audit` reproduces the graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rolling_graph.config import TASK_IDLE_TURNS
from rolling_graph.core import weights
from rolling_graph.core.audit import AuditLog, utc_now
from rolling_graph.core.decay import DecayParams, DecayReport, decay_step
from rolling_graph.core.hotstore import HotStore, Loaded
from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import Limits, PatchResult, PatchSource, apply_normalized, apply_patch
from rolling_graph.core.task_lifecycle import SOURCE as LIFECYCLE
from rolling_graph.core.task_lifecycle import settle, started, task_states


@dataclass
class SessionParams:
    decay: DecayParams
    limits: Limits
    budget: int = 800
    task_idle_turns: int = TASK_IDLE_TURNS

    @classmethod
    def from_settings(cls, settings: Any) -> SessionParams:
        return cls(
            decay=DecayParams(
                settings.decay_rate, settings.tau_turns, settings.d_max, settings.focus_size
            ),
            limits=Limits(
                relationships=settings.relationships,
                max_nodes=settings.max_nodes,
                max_edges=settings.max_edges,
                max_ops=settings.max_patch_ops,
            ),
            budget=settings.budget,
            task_idle_turns=settings.task_idle_turns,
        )


def default_params() -> SessionParams:
    return SessionParams(DecayParams(), Limits())


class HotSession:
    """A loaded session. Not thread-safe: callers hold the store's lock or own the session."""

    def __init__(
        self,
        graph: HotGraph,
        audit: AuditLog | None,
        params: SessionParams,
        store: HotStore | None = None,
    ) -> None:
        self.graph = graph
        self.audit = audit
        self.params = params
        self.store = store
        self.notices: list[str] = []
        self.stamp: tuple[int, int] | None = None  # graph file as last loaded or saved by us

    @classmethod
    def open(
        cls, store: HotStore, session_id: str, params: SessionParams | None = None
    ) -> HotSession:
        loaded: Loaded = store.load(session_id, rebuild=rebuild_from_audit)
        if loaded.tail:
            # Applied and audited, but the process died before saving the graph: not lost.
            replay_records(loaded.graph, loaded.tail)
        sess = cls(loaded.graph, store.audit(session_id), params or default_params(), store)
        sess.notices = loaded.notices
        sess.stamp = store.graph_stamp(session_id)
        return sess

    def is_stale(self) -> bool:
        """True when another process rewrote the graph file since we loaded or saved it."""
        if self.store is None:
            return False
        return self.store.graph_stamp(self.graph.session_id) != self.stamp

    @classmethod
    def in_memory(cls, session_id: str, params: SessionParams | None = None) -> HotSession:
        return cls(HotGraph(session_id=session_id), None, params or default_params())

    def _log(self, record: dict[str, Any]) -> None:
        if self.audit is not None:
            self.audit.append(record)

    def log_event(self, record: dict[str, Any]) -> None:
        """Record something that does not change the graph (gate decisions, probe failures)."""
        self._log(record)

    def advance_turn(self, turn: int | None = None) -> int:
        self.graph.turn = self.graph.turn + 1 if turn is None else max(turn, self.graph.turn)
        self._log({"type": "turn", "turn": self.graph.turn})
        self._settle_tasks([], idle_turns=self.params.task_idle_turns)
        return self.graph.turn

    def apply(self, raw: Any, source: PatchSource) -> PatchResult:
        before = task_states(self.graph)
        result = apply_patch(
            self.graph,
            raw,
            source=source,
            limits=self.params.limits,
            audit=self._log if self.audit else None,
            now=utc_now(),
        )
        if result.applied:
            self._settle_tasks(started(self.graph, before))
        return result

    def _settle_tasks(self, new: list[str], idle_turns: int | None = None) -> None:
        """At most one task in progress, idle ones open (rolling_graph.core.task_lifecycle)."""
        ops, reasons = settle(self.graph, new, idle_turns)
        if not ops:
            return
        apply_normalized(self.graph, ops)
        self._log(
            {
                "type": "patch",
                "status": "applied",
                "turn": self.graph.turn,
                "source": {"probe": LIFECYCLE},
                "applied": ops,
                "reasons": reasons,
            }
        )

    def decay(self) -> DecayReport:
        report = decay_step(self.graph, self.params.decay)
        self._log({"type": "decay", "turn": self.graph.turn, "params": self.params.decay.as_dict()})
        return report

    def activate(self, ids: Iterable[str], *, strengthen: bool, why: str) -> list[dict[str, Any]]:
        """Mark nodes active now (a mention, an expansion); expansion also strengthens."""
        ops: list[dict[str, Any]] = []
        for nid in sorted(set(ids)):
            node = self.graph.nodes.get(nid)
            if node is None:
                continue
            if strengthen:
                new = weights.strengthen(node.weight)
                if new != node.weight:
                    ops.append({"op": "replace", "path": f"/nodes/{nid}/weight", "value": new})
            if node.last_activated != self.graph.turn:
                ops.append(
                    {
                        "op": "replace",
                        "path": f"/nodes/{nid}/last_activated",
                        "value": self.graph.turn,
                    }
                )
        if ops:
            apply_normalized(self.graph, ops)
            self._log(
                {
                    "type": "patch",
                    "status": "applied",
                    "turn": self.graph.turn,
                    "source": {"probe": why},
                    "applied": ops,
                    "reasons": [why] * len(ops),
                }
            )
        return ops

    def save(self) -> None:
        if self.store is not None:
            self.stamp = self.store.save(self.graph)


def rebuild_from_audit(session_id: str, records: Iterable[dict[str, Any]]) -> HotGraph:
    """Replay applied patches, turns and decay steps in order; rejected patches are skipped."""
    return replay_records(HotGraph(session_id=session_id), records)


def replay_records(graph: HotGraph, records: Iterable[dict[str, Any]]) -> HotGraph:
    """Apply audit records to ``graph`` in order (the same rules as a full rebuild)."""
    for rec in records:
        kind = rec.get("type")
        try:
            if kind == "turn":
                graph.turn = max(graph.turn, int(rec["turn"]))
            elif kind == "patch" and rec.get("status") == "applied":
                apply_normalized(graph, rec.get("applied") or [])
            elif kind == "decay":
                graph.turn = max(graph.turn, int(rec.get("turn", graph.turn)))
                decay_step(graph, DecayParams(**rec.get("params", {})))
        except Exception:  # noqa: BLE001 - one bad record must not lose the rest
            continue
    return graph
