"""What every hot store offers: the protocol the engine, the plugins and the probe runner use.

Two implementations: :class:`~rolling_graph.core.hotstore.disk.HotStore` (files, atomic writes, a
file lock per session; what the hooks use) and
:class:`~rolling_graph.core.hotstore.write_back.ReplayStore` (the same directory layout, with graphs
and state files held in memory until a replayed session ends).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rolling_graph.core.audit import AuditLog
    from rolling_graph.core.hotstore.disk import Loaded, SessionInfo
    from rolling_graph.core.model import HotGraph


@runtime_checkable
class HotStoreProtocol(Protocol):
    """Per-session hot graphs, audit logs and small JSON state files under ``home``."""

    home: Path
    #: whether writes also survive a power cut (fsyncs); a killed process never tears a file
    durable: bool

    def dir(self, session_id: str) -> Path:
        """The session's directory (not created)."""

    def ensure_dir(self, session_id: str) -> Path:
        """The session's directory, created private (0700) when missing."""

    def lock(self, session_id: str, timeout: float = 10.0) -> AbstractContextManager[Any]:
        """The session's lock (held while a graph is read, changed and saved)."""

    def locked(self, session_id: str) -> AbstractContextManager[None]:
        """``lock`` as a context manager that waits the default time."""

    def audit(self, session_id: str) -> AuditLog:
        """The session's append-only audit log."""

    def exists(self, session_id: str) -> bool:
        """Whether the session has a graph or an audit log."""

    def load(self, session_id: str, rebuild: Any = None) -> Loaded:
        """The session's graph (a new one when none exists; rebuilt from the audit log when
        the file is corrupt), with notices for the person and audit records to replay."""

    def save(self, graph: HotGraph) -> tuple[int, int] | None:
        """Save the graph; returns its stamp (see ``graph_stamp``)."""

    def graph_stamp(self, session_id: str) -> tuple[int, int] | None:
        """A stamp that changes when another process saves the graph (None: never stale)."""

    def read_state(self, session_id: str, name: str, default: Any = None) -> Any:
        """A small JSON state file (``<name>.json``), or ``default``."""

    def write_state(self, session_id: str, name: str, obj: Any, *, durable: bool = False) -> None:
        """Write a small JSON state file."""

    def peek_state(self, session_id: str, name: str, default: Any = None) -> Any:
        """``read_state`` for a caller that only reads: the value may be the one the store
        holds (never change it)."""

    def update_state(
        self, session_id: str, name: str, change: Callable[[Any], Any], default: Any = None
    ) -> Any:
        """Read a state file (or ``default``), let ``change`` alter the value in place or
        return a new one (JSON values only: lists, not tuples; string keys), write the result
        back and return it."""

    def session_ids(self) -> list[str]:
        """Every session directory's id, sorted."""

    def sessions(self) -> list[SessionInfo]:
        """Sessions with their size and last change, newest first."""

    def latest_session(self) -> str | None:
        """The session changed last, if any."""
