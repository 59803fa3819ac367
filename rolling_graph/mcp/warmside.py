"""The warm store's side of the agent's questions: earlier sessions' nodes, decisions and
sessions, through the worker's own reconciler (one open store, shared with the hooks).

A store that cannot be reached never fails a question: the answer says so and carries what
the hot graph knows.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from rolling_graph.core.hotstore import GRAPH_FILE
from rolling_graph.core.patch.history import keep_history
from rolling_graph.core.slug import slugify
from rolling_graph.mcp.lookup import Match, match_node, session_state
from rolling_graph.probe.drafter import probe_drafter
from rolling_graph.warm.merge import effective_weight, normalize_term
from rolling_graph.warm.reconcile import Reconciler
from rolling_graph.warm.records import DEFAULT_SCOPE, WarmNode

log = logging.getLogger("rolling_graph.mcp.recall")

TASK_KINDS = ("task", "decision")


def reconciler(engine: Any) -> Reconciler:
    """The engine's reconciler: the component the warm plugin uses (same name, same store)."""
    rec: Reconciler = engine.component(
        "warm",
        lambda e: Reconciler(e.settings, e.store, drafter=lambda: probe_drafter(e.settings, e.pm)),
    )
    return rec


def _store(engine: Any) -> Any:
    return reconciler(engine).store()


def _where(node: WarmNode) -> str:
    scope = node.scope or "personal"
    return f"earlier sessions ({scope}, seen in {node.sessions_seen})"


def warm_search(
    engine: Any, words: list[str], scopes: list[str] | None, limit: int
) -> tuple[list[Match], str | None]:
    try:
        store = _store(engine)
        rows = store.search_nodes(words, scopes=scopes, limit=limit)
        now = datetime.now(UTC)
        params = store.params
    except Exception as err:  # noqa: BLE001 - the hot graph still answers
        log.warning("warm search failed: %s", err)
        return [], f"{type(err).__name__}: {err}"
    out = []
    for node, _hits in rows:
        m = match_node(node, words, _where(node), effective_weight(node, now, params))
        if m is not None:
            out.append(m)
    return out, None


def warm_lookup(engine: Any, name: str, project: str) -> dict[str, Any]:
    """A warm node by id, label or alias in the project's or the person's scope, with the
    sessions that saw it (primary-key reads; a label goes through one search)."""
    scopes = list(dict.fromkeys((project, DEFAULT_SCOPE)))
    want = normalize_term(name)
    try:
        store = _store(engine)
        for scope in scopes:
            node = store.get_nodes([slugify(name)], scope=scope).get(slugify(name))
            if node is not None:
                return {"node": node, "sessions": store.node_sessions(node.id, scope=scope)}
        words = want.split()[:8]
        for node, _hits in store.search_nodes(words, scopes=scopes, limit=20):
            if want in (normalize_term(node.label), *(normalize_term(a) for a in node.aliases)):
                return {"node": node, "sessions": store.node_sessions(node.id, scope=node.scope)}
    except Exception as err:  # noqa: BLE001
        log.warning("warm lookup failed: %s", err)
        return {"error": f"{type(err).__name__}: {err}"}
    return {}


def warm_node_sessions(engine: Any, node_id: str, project: str) -> list[str]:
    """The earlier sessions that saw a node (primary-key reads; [] when the store is down)."""
    try:
        store = _store(engine)
        for scope in dict.fromkeys((project, DEFAULT_SCOPE)):
            seen = store.node_sessions(node_id, scope=scope)
            if seen:
                return list(seen)
    except Exception as err:  # noqa: BLE001
        log.warning("warm sessions of %s failed: %s", node_id, err)
    return []


def warm_chain_edges(
    engine: Any, start: str, project: str, known: set[str]
) -> tuple[list[WarmNode], set[tuple[str, str]]]:
    """``supersedes`` links around ``start`` in the warm store (earlier sessions' decisions)."""
    sup: set[tuple[str, str]] = set()
    nodes: list[WarmNode] = []
    found: dict[tuple[str, str], Any] = {}
    try:
        store = _store(engine)
        frontier, seen = [start], {start}
        while frontier and len(seen) < 30:
            edges = store.get_edges(scope=project, touching=frontier)
            frontier = []
            for e in edges:
                if e.relationship != "supersedes":
                    continue
                found[(e.source, e.target)] = e
                for n in (e.source, e.target):
                    if n not in seen:
                        seen.add(n)
                        frontier.append(n)
        # Both directions may be stored (opposite choices of two sessions): the newest wins.
        newest = sorted(found.values(), key=lambda e: -e.last_seen.timestamp())
        sup = {(e.source, e.target) for e in keep_history(newest, lambda e: (e.source, e.target))}
        missing = [n for n in seen if n not in known]
        nodes = list(store.get_nodes(missing, scope=project).values()) if missing else []
    except Exception as err:  # noqa: BLE001
        log.warning("warm history failed: %s", err)
    return nodes, sup


def _main_items(labels_by_kind: list[tuple[str | None, str, float]]) -> list[str]:
    ordered = sorted(
        labels_by_kind,
        key=lambda t: (
            t[0] not in TASK_KINDS,
            TASK_KINDS.index(t[0]) if t[0] in TASK_KINDS else 0,
            -t[2],
        ),
    )
    return [label for _k, label, _w in ordered[:3]]


def _hot_rows(engine: Any, scope: str) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for info in engine.store.sessions():
        state = session_state(engine, info.session_id)
        if state.get("scope") != scope:
            continue
        try:  # read only: no lock, no rebuild (that is the hooks' business)
            doc = json.loads((info.path / GRAPH_FILE).read_bytes())
            nodes = doc.get("nodes") or {}
            items = [(n.get("kind"), str(n["label"]), float(n["weight"])) for n in nodes.values()]
            first = datetime.fromtimestamp(info.path.stat().st_ctime, UTC)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # one unreadable session must not hide the rest
        rows[info.session_id] = {
            "session_id": info.session_id,
            "first": min(first, info.modified),
            "last": info.modified,
            "turns": info.turn,
            "main": _main_items(items),
        }
    return rows


def warm_sessions(engine: Any, scope: str, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """Sessions of a project: the warm store's reconciliations, completed by the hot graphs
    still on disk (a session not yet merged is there only). Newest first."""
    rows = _hot_rows(engine, scope)
    error = None
    try:
        store = _store(engine)
        for rec in store.reconciliations(scope=scope):
            row = rows.setdefault(
                rec.session_id,
                {"session_id": rec.session_id, "first": rec.applied_at, "last": rec.applied_at,
                 "turns": rec.hot_turn, "main": None},
            )  # fmt: skip
            row["first"] = min(row["first"], rec.applied_at)
            row["last"] = max(row["last"], rec.applied_at)
        ordered = sorted(rows.values(), key=lambda r: r["last"], reverse=True)[:limit]
        for row in ordered:
            if row["main"] is None:  # merged, no hot graph left: what the store saw of it
                nodes = store.session_nodes(row["session_id"], scope=scope, limit=40)
                row["main"] = _main_items([(n.kind, n.label, n.weight) for n in nodes])
    except Exception as err:  # noqa: BLE001
        log.warning("warm sessions failed: %s", err)
        error = f"{type(err).__name__}: {err}"
        ordered = sorted(rows.values(), key=lambda r: r["last"], reverse=True)[:limit]
    for row in ordered:
        row["main"] = row["main"] or []
    return ordered, error
