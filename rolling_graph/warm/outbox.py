"""The local outbox: flushes that could not reach the warm store wait here (nothing is lost).

One JSON file per flush under ``<home>/outbox/``, written atomically (temp file + rename),
named ``<created µs>-<session>-<seq>.json`` so that a directory listing is delivery order.
Each file holds the whole ``MergeBatch`` (hot weights, times, flush_seq), so delivering it
later applies exactly what the session would have written then; the store's idempotency
key ``(scope, session_id, flush_seq)`` makes a double delivery (two processes retrying at
once, a crash between merge and unlink) harmless.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rolling_graph.core.hotstore import atomic_write_json
from rolling_graph.paths import private_dir, safe_session_id
from rolling_graph.warm.base import WarmStore, WarmStoreUnavailable
from rolling_graph.warm.records import HotEdge, HotNode, MergeBatch

log = logging.getLogger("rolling_graph.warm")

OUTBOX_DIR = "outbox"
FORMAT = 1


def batch_to_json(batch: MergeBatch) -> dict[str, Any]:
    """A ``MergeBatch`` as plain JSON (times as ISO 8601 UTC)."""
    return {
        "scope": batch.scope,
        "session_id": batch.session_id,
        "flush_seq": batch.flush_seq,
        "now": batch.now.isoformat(),
        "hot_turn": batch.hot_turn,
        "person": batch.person,
        "nodes": [asdict(n) for n in batch.nodes],
        "edges": [asdict(e) for e in batch.edges],
    }


def batch_from_json(doc: dict[str, Any]) -> MergeBatch:
    return MergeBatch(
        scope=str(doc["scope"]),
        session_id=str(doc["session_id"]),
        flush_seq=int(doc["flush_seq"]),
        now=datetime.fromisoformat(doc["now"]).astimezone(UTC),
        hot_turn=doc.get("hot_turn"),
        person=str(doc.get("person") or ""),
        nodes=tuple(
            HotNode(**{**n, "aliases": tuple(n.get("aliases") or ())}) for n in doc["nodes"]
        ),
        edges=tuple(HotEdge(**e) for e in doc["edges"]),
    )


@dataclass(frozen=True)
class OutboxEntry:
    """One pending flush."""

    path: Path
    batch: MergeBatch
    created: datetime
    reason: str
    final: bool
    attempts: int
    last_error: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.path.name,
            "scope": self.batch.scope,
            "session_id": self.batch.session_id,
            "flush_seq": self.batch.flush_seq,
            "final": self.final,
            "nodes": len(self.batch.nodes),
            "edges": len(self.batch.edges),
            "created": self.created.isoformat(),
            "reason": self.reason,
            "attempts": self.attempts,
            "last_error": self.last_error,
        }


@dataclass(frozen=True)
class Delivery:
    """What a delivery round did."""

    delivered: int = 0
    already_applied: int = 0
    pending: int = 0
    failed: int = 0
    error: str | None = None


class Outbox:
    """The outbox directory of one data home."""

    def __init__(self, home: Path) -> None:
        self.dir = Path(home) / OUTBOX_DIR

    def put(self, batch: MergeBatch, *, reason: str, final: bool = False) -> Path:
        stamp = int(datetime.now(UTC).timestamp() * 1_000_000)
        # One flush may queue a batch per scope (project, personal): the scope keeps them apart.
        tag = zlib.crc32(batch.scope.encode())
        sid = safe_session_id(batch.session_id)
        name = f"{stamp:020d}-{sid}-{batch.flush_seq:06d}-{tag:08x}.json"
        path = self.dir / name
        doc = {
            "format": FORMAT,
            "created": datetime.now(UTC).isoformat(),
            "reason": reason[:500],
            "final": final,
            "attempts": 0,
            "last_error": None,
            "batch": batch_to_json(batch),
        }
        private_dir(self.dir, self.dir.parent)
        atomic_write_json(path, doc)
        return path

    def entries(self) -> list[OutboxEntry]:
        """Pending flushes, oldest first; unreadable files are skipped (and logged)."""
        if not self.dir.exists():
            return []
        out = []
        for path in sorted(self.dir.glob("*.json")):
            try:
                doc = json.loads(path.read_bytes())
                out.append(
                    OutboxEntry(
                        path=path,
                        batch=batch_from_json(doc["batch"]),
                        created=datetime.fromisoformat(doc["created"]),
                        reason=str(doc.get("reason") or ""),
                        final=bool(doc.get("final")),
                        attempts=int(doc.get("attempts") or 0),
                        last_error=doc.get("last_error"),
                    )
                )
            except FileNotFoundError:
                continue  # delivered by another process meanwhile
            except (ValueError, KeyError, TypeError) as err:
                log.warning("outbox entry %s is unreadable: %s", path, err)
        return out

    def __len__(self) -> int:
        return len(self.entries())

    def note_failure(self, entry: OutboxEntry, error: str) -> None:
        try:
            doc = json.loads(entry.path.read_bytes())
        except (OSError, ValueError):
            return
        doc["attempts"] = int(doc.get("attempts") or 0) + 1
        doc["last_error"] = error[:500]
        atomic_write_json(entry.path, doc)

    def deliver(
        self,
        store: WarmStore,
        *,
        on_applied: Callable[[OutboxEntry], None] | None = None,
    ) -> Delivery:
        """Merge pending flushes in order; stop at the first sign that the store is down.

        A flush the store rejects for another reason (bad data) stays in the outbox with
        its error, so a person can see it (``rolling-graph outbox``), and delivery goes on.
        """
        delivered = already = failed = 0
        entries = self.entries()
        for i, entry in enumerate(entries):
            try:
                result = store.merge(entry.batch)
            except WarmStoreUnavailable as err:
                self.note_failure(entry, str(err))
                return Delivery(delivered, already, len(entries) - i, failed, str(err))
            except Exception as err:  # noqa: BLE001 - keep the entry, report it, go on
                log.warning("outbox entry %s failed: %s", entry.path.name, err)
                self.note_failure(entry, f"{type(err).__name__}: {err}")
                failed += 1
                continue
            if result.applied:
                delivered += 1
            else:
                already += 1
            if on_applied is not None:
                on_applied(entry)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
        return Delivery(delivered, already, failed, failed)
