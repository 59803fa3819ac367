"""The replay store: the hot store, write-back (graphs and state files in memory until a
replayed session ends). It lives beside :mod:`rolling_graph.core.hotstore.disk` and offers the same
:class:`~rolling_graph.core.hotstore.protocol.HotStoreProtocol`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rolling_graph.core.audit import AuditLog
from rolling_graph.core.hotstore.disk import HotStore, Loaded
from rolling_graph.core.json_values import json_copy, round_tripped
from rolling_graph.core.model import HotGraph


class _HeldAuditLog(AuditLog):
    """A replayed session's audit log: its lines are held and written in one call when the
    session is flushed, or before anyone reads the log (one open, check and write per record
    was ~3% of a replay)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._held: list[str] = []

    def append(self, record: dict[str, Any]) -> None:
        self._held.append(self._line(record))

    __call__ = append

    def write_held(self) -> None:
        if self._held:
            lines, self._held = "".join(self._held), []
            self._write(lines)

    def records_from(self, offset: int) -> list[dict[str, Any]]:
        self.write_held()
        return super().records_from(offset)

    def records(self, holding: str = "") -> Iterator[dict[str, Any]]:
        self.write_held()
        return super().records(holding)


class ReplayStore(HotStore):
    """The hot store, write-back: graphs and small state files stay in memory during a
    replay and reach disk at :meth:`flush` (end of each session); so do the audit log's lines
    (written first, or when the log is read). A replay is one process with no concurrent
    reader, and on this kind of disk each
    rewrite of a small file costs ~1–2.5 ms (ext4 flushes on truncate- or rename-over), which
    would otherwise dominate replay time. The flushed directory is an ordinary hot store.

    Its writes are not durable: a replay that a power cut interrupts is run again, not
    recovered, and the fsyncs (up to ~25 ms each here) were a small session's largest cost.
    A killed process still leaves whole files (writes are renamed into place), and each
    flushed session whole: its graph file and the audit log it counts."""

    durable = False

    def __init__(self, home: Path | None = None) -> None:
        super().__init__(home)
        self._graphs: dict[str, HotGraph] = {}
        self._audits: dict[str, _HeldAuditLog] = {}
        # JSON values (what a round trip through the file gives back); callers get copies
        self._state: dict[tuple[str, str], Any] = {}

    def lock(self, session_id: str, timeout: float = 10.0) -> Any:
        self.ensure_dir(session_id)
        return contextlib.nullcontext()

    def audit(self, session_id: str) -> AuditLog:
        log = self._audits.get(session_id)
        if log is None:
            log = self._audits[session_id] = _HeldAuditLog(super().audit(session_id).path)
        return log

    def load(self, session_id: str, rebuild: Any = None) -> Loaded:
        graph = self._graphs.get(session_id)
        return Loaded(graph) if graph is not None else super().load(session_id, rebuild)

    def save(self, graph: HotGraph) -> None:
        self._graphs[graph.session_id] = graph

    def graph_stamp(self, session_id: str) -> None:
        return None  # one process, no other writer: cached sessions are never stale

    def read_state(self, session_id: str, name: str, default: Any = None) -> Any:
        key = (session_id, name)
        if key not in self._state:
            return super().read_state(session_id, name, default)
        return json_copy(self._state[key])

    def write_state(self, session_id: str, name: str, obj: Any, *, durable: bool = False) -> None:
        # What the file would give back, without the text: the probe's buffer holds the
        # agent's long messages, and encoding them on every event was a replay's largest
        # JSON cost.
        self._state[(session_id, name)] = round_tripped(obj)

    def peek_state(self, session_id: str, name: str, default: Any = None) -> Any:
        key = (session_id, name)
        if key not in self._state:
            return super().read_state(session_id, name, default)
        return self._state[key]  # no copy: the caller only reads

    def update_state(
        self, session_id: str, name: str, change: Callable[[Any], Any], default: Any = None
    ) -> Any:
        # The held value is changed where it is: no copy out and none back in (a tool step's
        # line added to the probe's buffer copied the whole buffer twice).
        key = (session_id, name)
        if key in self._state:
            value = self._state[key]
        else:
            value = round_tripped(super().read_state(session_id, name, default))
        out = change(value)
        if out is not None and out is not value:
            value = round_tripped(out)  # a new value: made JSON as a write would
        self._state[key] = value
        return value

    def flush(self, session_id: str) -> None:
        """Write the session's graph and state files and let go of them: a long replay then
        holds one session at a time (a heap of every session's graph made each full garbage
        collection cost ~0.1 s); a later load reads them back from disk."""
        held = self._audits.pop(session_id, None)
        if held is not None:
            held.write_held()  # first: the graph file records how much of the log it holds
        graph = self._graphs.pop(session_id, None)
        if graph is not None:
            super().save(graph)
        for key in [k for k in self._state if k[0] == session_id]:
            super().write_state(session_id, key[1], self._state.pop(key))
