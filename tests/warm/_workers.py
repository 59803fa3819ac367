"""Merge workers for the concurrency tests; a module so that spawned processes can import it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rolling_graph.warm import open_store
from rolling_graph.warm.merge import prepare_batch


def hot_doc(session_id: str, weight: float = 0.5) -> dict:
    """Every session sees the shared node and edge, plus one node and edge of its own."""
    own = f"own-{session_id}"
    return {
        "schema": 1,
        "session_id": session_id,
        "turn": 7,
        "nodes": {
            "shared": {"id": "shared", "label": "Shared", "domain": "project", "weight": weight},
            "other": {"id": "other", "label": "Other", "domain": "technical", "weight": weight},
            own: {"id": own, "label": own, "domain": "technical", "weight": weight},
        },
        "edges": {
            "shared|uses|other": {
                "source": "shared",
                "target": "other",
                "relationship": "uses",
                "strength": weight,
            },
            f"shared|relates-to|{own}": {
                "source": "shared",
                "target": own,
                "relationship": "relates-to",
                "strength": weight,
            },
        },
    }


def merge_session(
    url: str, home: str, schema: str | None, session_id: str, now: datetime, start_at: float
) -> list[bool]:
    """Open a store, wait for the common start time, then flush twice (pre-compact + end)."""
    import time

    with open_store(url, Path(home), schema=schema) as store:
        delay = start_at - time.time()
        if delay > 0:
            time.sleep(delay)
        applied = []
        for seq in (1, 2):
            batch = prepare_batch(hot_doc(session_id), flush_seq=seq, now=now)
            applied.append(store.merge(batch).applied)
        return applied
