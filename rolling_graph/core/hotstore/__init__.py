"""The hot stores, in one home: per-session hot graphs, audit logs and small state files.

- :mod:`.protocol` — :class:`HotStoreProtocol`, what the engine, plugins and probe runner use;
- :mod:`.disk` — :class:`HotStore`, the store the hooks use (atomic files under a lock);
- :mod:`.write_back` — :class:`ReplayStore`, the same layout held in memory during a replay.
"""

from rolling_graph.core.hotstore.disk import (
    AUDIT_FILE,
    GRAPH_FILE,
    HotStore,
    Loaded,
    SessionInfo,
    atomic_write_bytes,
    atomic_write_json,
    clean_orphans,
)
from rolling_graph.core.hotstore.protocol import HotStoreProtocol
from rolling_graph.core.hotstore.write_back import ReplayStore

__all__ = [
    "AUDIT_FILE",
    "GRAPH_FILE",
    "HotStore",
    "HotStoreProtocol",
    "Loaded",
    "ReplayStore",
    "SessionInfo",
    "atomic_write_bytes",
    "atomic_write_json",
    "clean_orphans",
]
