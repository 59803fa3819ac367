"""Questions asked outside a live session: the MCP server started in a folder no session ran
in (or before the first prompt), where ``memory_search`` still finds earlier sessions' nodes.

``memory_expand`` then reads the node where it lives (the warm store, in any scope, else the
hot graph an earlier session left on disk) and changes no weight, since no session is there
to carry the activation; the block resource falls back to the latest session of this data
home and says so. Every error names the two ways to pick a session.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from rolling_graph.core.hotstore import GRAPH_FILE
from rolling_graph.core.hotstore.disk import OFFSET_KEY
from rolling_graph.mcp.lookup import RecallError, query_words, resolve_hot
from rolling_graph.warm.merge import normalize_term

log = logging.getLogger("rolling_graph.mcp.recall")

CHOOSE = (
    "choose a session with the tool's `session` argument or ROLLING_GRAPH_MCP_SESSION=<id> "
    "in the MCP server's environment (memory_sessions lists them)"
)


def no_session(what: str) -> RecallError:
    return RecallError(f"no session of this project to {what}: {CHOOSE}")


def warm_any_scope(engine: Any, name: str, project: str) -> tuple[Any, list[str]] | None:
    """(warm node, sessions that saw it) by id, label or alias: the project's and the person's
    scope first, then any scope (a search with scope 'all' returns those too)."""
    from rolling_graph.mcp.warmside import reconciler, warm_lookup

    found = warm_lookup(engine, name, project)
    if found.get("node") is not None:
        return found["node"], list(found.get("sessions") or [])
    want = normalize_term(name)
    try:
        store = reconciler(engine).store()
        for node, _hits in store.search_nodes(query_words(name), scopes=None, limit=25):
            names = (node.id, normalize_term(node.label), *map(normalize_term, node.aliases))
            if name in names or want in names:
                return node, store.node_sessions(node.id, scope=node.scope)
    except RecallError:
        return None
    except Exception as err:  # noqa: BLE001 - the hot graphs on disk may still know it
        log.warning("warm lookup (all scopes) failed: %s", err)
    return None


def _warm_edges(engine: Any, node: Any) -> list[Any]:
    from rolling_graph.mcp.warmside import reconciler

    try:
        return reconciler(engine).store().get_edges(scope=node.scope, touching=[node.id])
    except Exception as err:  # noqa: BLE001
        log.warning("warm edges of %s failed: %s", node.id, err)
        return []


def _hot_on_disk(engine: Any, name: str) -> tuple[str, Any] | None:
    """(session id, graph) of the newest earlier session whose graph holds ``name`` (read
    only: no lock, no rebuild)."""
    from rolling_graph.core.model import HotGraph

    for info in engine.store.sessions():
        try:
            doc = json.loads((info.path / GRAPH_FILE).read_bytes())
            doc.pop(OFFSET_KEY, None)
            graph = HotGraph.model_validate(doc)
        except (OSError, ValueError):
            continue
        if resolve_hot(graph, name):
            return info.session_id, graph
    return None


def expand(engine: Any, name: str, project: str) -> dict[str, Any]:
    """``memory_expand`` without a session: the node as stored, its links, where it was seen."""
    warm = warm_any_scope(engine, name, project)
    if warm is not None:
        node, sessions = warm
        links = [
            (e.relationship, e.target if e.source == node.id else e.source, e.source == node.id)
            for e in _warm_edges(engine, node)
        ]
        where = f"the warm store (scope {node.scope or 'personal'})"
    else:
        hot = _hot_on_disk(engine, name)
        if hot is None:
            raise RecallError(
                f"unknown node {name!r} (no live session, not in the warm store); {CHOOSE}"
            )
        sid, graph = hot
        node = graph.nodes[resolve_hot(graph, name) or name]
        sessions = [sid]
        links = [
            (e.relationship, e.target if e.source == node.id else e.source, e.source == node.id)
            for e in graph.edges.values()
            if node.id in (e.source, e.target)
        ]
        where = f"the graph of session {sid}"
    return _answer(engine, node, sessions, links, where)


def _answer(
    engine: Any, node: Any, sessions: list[str], links: list[tuple[str, str, bool]], where: str
) -> dict[str, Any]:
    from rolling_graph.mcp.answers import Lines

    out = Lines(int(engine.settings.mcp_answer_tokens))
    kind = f"{node.kind}, " if node.kind else ""
    out.add(f"{node.label} [id {node.id}; {kind}{node.domain}{', anchor' if node.anchor else ''}]")
    out.add(f"from {where}; no live session here, so its weight is unchanged")
    if node.summary:
        out.add(f"summary: {node.summary}")
    if node.aliases:
        out.add(f"aliases: {', '.join(node.aliases)}")
    if sessions:
        out.add(f"seen in {len(sessions)} session(s): {', '.join(sessions[:5])}")
    for rel, other, outgoing in links[:20]:
        out.add(f"- {rel} → {other}" if outgoing else f"- ← {rel} {other}")
    data = {
        "node": {"id": node.id, "label": node.label, "kind": node.kind, "domain": node.domain,
                 "summary": node.summary, "aliases": list(node.aliases)},
        "links": [{"relationship": r, "node": o, "out": d} for r, o, d in links],
        "sessions": sessions,
        "where": where,
    }  # fmt: skip
    return {"text": out.text(), "data": data}


def latest_session(engine: Any) -> str:
    """The block resource's fallback: the newest session of this data home."""
    rows = engine.store.sessions()
    if not rows:
        raise no_session("render a block from")
    return str(rows[0].session_id)
