"""The hot store on disk: one directory per session under the data directory.

``sessions/<id>/graph.json`` (the hot graph), ``audit.jsonl`` (every change), ``gate.json``
(gate state) and other small JSON state files. Writes are atomic (temp file, fsync, rename)
under a per-session file lock, so a crash mid-write leaves the previous complete file. A
corrupt graph file is moved aside and the graph rebuilt from the audit log; the caller gets a
notice to show the person.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock
from pydantic import ValidationError

from rolling_graph import paths
from rolling_graph.core.audit import AuditLog
from rolling_graph.core.json_values import round_tripped
from rolling_graph.core.model import HotGraph

log = logging.getLogger("rolling_graph")

GRAPH_FILE = "graph.json"
AUDIT_FILE = "audit.jsonl"
# graph.json records how much of the audit log it already holds; a crash between an audited
# change and the next save leaves records past it, which load() replays (see Loaded.tail).
OFFSET_KEY = "audit_offset"
ORPHAN_AGE_S = 60.0  # a temp file this old belongs to a writer that died before its rename


def clean_orphans(directory: Path, max_age: float | None = None) -> int:
    """Remove temp files (``.<name>.*.tmp``) left by writers killed before their rename."""
    removed = 0
    now = time.time()
    limit = ORPHAN_AGE_S if max_age is None else max_age
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not (entry.name.startswith(".") and entry.name.endswith(".tmp")):
            continue
        with contextlib.suppress(OSError):
            if now - entry.stat(follow_symlinks=False).st_mtime > limit:
                os.unlink(entry.path)
                removed += 1
    return removed


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a torn one.

    The rename alone makes the write atomic against a crashed or killed process; ``durable``
    adds the fsyncs that also make it survive a power cut (the graph itself; small state files
    that are rebuilt or re-derived cheaply skip them, since fsyncs dominate a hook's cost).
    """
    if not path.parent.is_dir():
        paths.private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if not durable:
        return
    # fsync the directory so the rename itself survives a power cut.
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def atomic_write_json(path: Path, obj: Any, *, durable: bool = True) -> None:
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    atomic_write_bytes(path, data, durable=durable)


@dataclass
class Loaded:
    graph: HotGraph
    notices: list[str] = field(default_factory=list)
    created: bool = False
    # Audit records written after the graph file was saved (a crash before the save): the
    # caller replays them onto ``graph`` (rolling_graph.core.session.replay_records).
    tail: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    path: Path
    modified: datetime
    nodes: int
    edges: int
    turn: int


class HotStore:
    #: the graph and durable state files are fsynced: they survive a power cut
    durable = True

    def __init__(self, home: Path | None = None) -> None:
        self.home = home or paths.data_home()

    def dir(self, session_id: str) -> Path:
        return paths.session_dir(session_id, self.home)

    def ensure_dir(self, session_id: str) -> Path:
        return paths.private_dir(self.dir(session_id), self.home)

    def lock(self, session_id: str, timeout: float = 10.0) -> FileLock:
        return FileLock(str(self.ensure_dir(session_id) / ".lock"), timeout=timeout, mode=0o600)

    def audit(self, session_id: str) -> AuditLog:
        return AuditLog(self.ensure_dir(session_id) / AUDIT_FILE)

    def exists(self, session_id: str) -> bool:
        d = self.dir(session_id)
        return (d / GRAPH_FILE).exists() or (d / AUDIT_FILE).exists()

    # -- graph
    def load(self, session_id: str, rebuild: Any = None) -> Loaded:
        """Load a session's graph, creating an empty one if there is none.

        ``rebuild(session_id, records) -> HotGraph`` rebuilds from the audit log; it is passed in
        by the caller (see :func:`rolling_graph.core.session.rebuild_from_audit`) to keep this module
        free of graph logic.
        """
        d = self.ensure_dir(session_id)
        clean_orphans(d)
        gpath = d / GRAPH_FILE
        notices: list[str] = []
        if gpath.exists():
            try:
                data = json.loads(gpath.read_bytes())
                offset = data.pop(OFFSET_KEY, None) if isinstance(data, dict) else None
                graph = HotGraph.model_validate(data)
                tail = self.audit(session_id).records_from(offset) if offset else []
                return Loaded(graph, tail=tail)
            except (json.JSONDecodeError, UnicodeDecodeError, ValidationError, ValueError) as err:
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
                aside = gpath.with_name(f"{GRAPH_FILE}.corrupt-{stamp}")
                os.replace(gpath, aside)
                msg = f"rolling-graph: the graph file of session {session_id} was unreadable ({type(err).__name__}); moved it to {aside}"
                log.warning(msg)
                notices.append(msg)
        records = list(self.audit(session_id).records())
        if records and rebuild is not None:
            graph = rebuild(session_id, records)
            self.save(graph)
            msg = f"rolling-graph: rebuilt session {session_id} from its audit log ({len(records)} records, {len(graph.nodes)} nodes)"
            log.warning(msg)
            notices.append(msg)
            return Loaded(graph, notices)
        if notices:
            notices.append("rolling-graph: no audit log to rebuild from; starting an empty graph")
        return Loaded(HotGraph(session_id=session_id), notices, created=True)

    def save(self, graph: HotGraph) -> tuple[int, int] | None:
        d = self.ensure_dir(graph.session_id)
        # Callers save under the session lock after auditing their changes, so the audit log's
        # size now is what this graph holds.
        try:
            offset = (d / AUDIT_FILE).stat().st_size
        except FileNotFoundError:
            offset = 0
        graph_doc = {**graph.to_json_dict(), OFFSET_KEY: offset}
        atomic_write_json(d / GRAPH_FILE, graph_doc, durable=self.durable)
        return self.graph_stamp(graph.session_id)

    def graph_stamp(self, session_id: str) -> tuple[int, int] | None:
        """(mtime_ns, size) of the graph file: tells a long-lived process that another process
        (the CLI, a recover run) rewrote the graph since it loaded it."""
        try:
            st = (self.dir(session_id) / GRAPH_FILE).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    # -- small JSON state files (gate state, transcript offsets, last block)
    def read_state(self, session_id: str, name: str, default: Any = None) -> Any:
        path = self.dir(session_id) / f"{name}.json"
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError:
            return default
        except (json.JSONDecodeError, UnicodeDecodeError):
            log.warning("state file %s is corrupt; using defaults", path)
            return default

    def write_state(self, session_id: str, name: str, obj: Any, *, durable: bool = False) -> None:
        path = self.ensure_dir(session_id) / f"{name}.json"
        atomic_write_json(path, obj, durable=durable and self.durable)

    def peek_state(self, session_id: str, name: str, default: Any = None) -> Any:
        return self.read_state(session_id, name, default)  # a fresh value, read from its file

    def update_state(
        self, session_id: str, name: str, change: Callable[[Any], Any], default: Any = None
    ) -> Any:
        path = self.dir(session_id) / f"{name}.json"
        value = self.read_state(session_id, name, default) if path.exists() else None
        if value is None:
            value = round_tripped(default)  # the caller's default stays as it was
        out = change(value)
        if out is not None and out is not value:
            value = round_tripped(out)  # a new value: what the file will give back
        self.write_state(session_id, name, value)
        return value

    # -- listing
    def session_ids(self) -> list[str]:
        root = paths.sessions_dir(self.home)
        if not root.exists():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir())

    def sessions(self) -> list[SessionInfo]:
        out = []
        for sid in self.session_ids():
            gpath = self.dir(sid) / GRAPH_FILE
            try:
                data = json.loads(gpath.read_bytes())
                nodes, edges, turn = (
                    len(data.get("nodes", {})),
                    len(data.get("edges", {})),
                    int(data.get("turn", 0)),
                )
                mtime = gpath.stat().st_mtime
            except (OSError, ValueError, AttributeError):
                nodes = edges = turn = 0
                mtime = self.dir(sid).stat().st_mtime
            out.append(
                SessionInfo(
                    sid, self.dir(sid), datetime.fromtimestamp(mtime, UTC), nodes, edges, turn
                )
            )
        return sorted(out, key=lambda s: s.modified, reverse=True)

    def latest_session(self) -> str | None:
        sessions = self.sessions()
        return sessions[0].session_id if sessions else None

    @contextlib.contextmanager
    def locked(self, session_id: str) -> Iterator[None]:
        with self.lock(session_id):
            yield
