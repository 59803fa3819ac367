"""What the probe runner needs from its host, and nothing more (the engine is one host).

The runner snapshots and patches sessions under their lock, keeps its buffer in the hot store,
builds its backend from the settings and the plugins' ``register_probe_backends``, and runs
inline in a replay. Typed here, so that the probe package never reaches into the engine.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rolling_graph.config import Settings
    from rolling_graph.core.hotstore.protocol import HotStoreProtocol
    from rolling_graph.core.session import HotSession


class ProbeServices(Protocol):
    """The host of a :class:`~rolling_graph.probe.runner.ProbeRunner`."""

    @property
    def settings(self) -> Settings:
        """Probe backend, model, prompt, budgets and timeouts."""

    @property
    def store(self) -> HotStoreProtocol:
        """Where the per-session probe buffer and paid-call counters live."""

    @property
    def pm(self) -> Any:
        """The plugin manager (its ``register_probe_backends`` hook adds backends)."""

    @property
    def replay(self) -> bool:
        """In-process replay: probes run inline, so a replay is deterministic."""

    def locked_session(self, session_id: str) -> AbstractContextManager[HotSession]:
        """The open session under its lock (held for snapshots and for applying a patch)."""
