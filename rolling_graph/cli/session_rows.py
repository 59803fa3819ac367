"""The rows of ``rolling-graph sessions``: each session's size, project, source and health."""

from __future__ import annotations

import json
from typing import Any

from rolling_graph.cli.tables import Column, Table
from rolling_graph.core.hotstore import GRAPH_FILE, HotStore

COLUMNS = [
    Column("modified", "modified", numeric=False, fmt=lambda v: v[:16].replace("T", " ")),
    Column("session", "session_id", numeric=False),
    Column("turn", "turn"),
    Column("nodes", "nodes"),
    Column("edges", "edges", drop=2),
    Column("project", "project", numeric=False, drop=1),
    Column("source", "source", numeric=False, drop=3),
    Column("note", "note", numeric=False),
]


def _note(info: Any) -> str:
    """A word when the graph file was found unreadable (and so rebuilt from the audit log)."""
    graph = info.path / GRAPH_FILE
    try:
        json.loads(graph.read_bytes())
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        return "graph unreadable: rebuilt from its audit log on next use"
    aside = sorted(info.path.glob(f"{GRAPH_FILE}.corrupt-*"))
    if aside:
        return f"rebuilt from its audit log ({len(aside)}× unreadable graph moved aside)"
    return ""


def session_rows(st: HotStore) -> list[dict[str, Any]]:
    from rolling_graph.warm.reconcile import session_state

    rows = []
    for r in st.sessions():
        warm = session_state(st, r.session_id)
        rows.append(
            {
                "session_id": r.session_id,
                "modified": r.modified.isoformat(),
                "turn": r.turn,
                "nodes": r.nodes,
                "edges": r.edges,
                "project": str(warm.get("scope") or "") or "(none)",
                "source": str(warm.get("transcript_path") or "") or "(unknown)",
                "note": _note(r),
            }
        )
    return rows


def session_table(st: HotStore, *, every_column: bool = False) -> Table:
    """The table; its note column only when a row has a note (or ``every_column``)."""
    rows = session_rows(st)
    noted = every_column or any(r["note"] for r in rows)
    return Table("", [c for c in COLUMNS if noted or c.key != "note"], rows)
