"""Finding things for the agent's questions: the current session, a node by name, lexical
matches over the hot graph and the warm store, and a node's audit trail.

Lexical only (substring matches of the query's words in id, label, aliases and summary): no
embeddings, so no model download, no vectors to keep in step with the graph, and the warm
store needs no new index (one scan; see ``bench/mcp_tools.py`` for what it costs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.model import HotGraph, Node
from rolling_graph.core.slug import SEARCH_STOP_WORDS
from rolling_graph.warm.merge import normalize_term
from rolling_graph.warm.records import WarmNode

log = logging.getLogger("rolling_graph.mcp.recall")

MAX_QUERY_CHARS = 500
MAX_WORDS = 8


class RecallError(ValueError):
    """A question that cannot be answered as asked; the message says what to do instead."""


def query_words(query: Any) -> list[str]:
    """The searchable words of a query: normalized, stop words out, at most ``MAX_WORDS``."""
    if not isinstance(query, str) or not query.strip():
        raise RecallError("the query is empty: give a few words naming what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise RecallError(
            f"the query is {len(query)} characters long (at most {MAX_QUERY_CHARS}): "
            "ask with a few words, not a passage"
        )
    words: dict[str, None] = {}
    for w in normalize_term(query).split():
        if w not in SEARCH_STOP_WORDS and len(w) >= 2:
            words[w] = None
    if not words:
        raise RecallError(f"the query {query!r} has no searchable words (only stop words)")
    return list(words)[:MAX_WORDS]


# ------------------------------------------------------------------------------- sessions


def session_state(engine: Any, session_id: str) -> dict[str, Any]:
    from rolling_graph.warm.reconcile import session_state as warm_state

    return warm_state(engine.store, session_id)


def current_session(engine: Any, requested: str | None, cwd: str | None) -> str | None:
    """The session a question is about: the one named, else the latest one started in ``cwd``
    (the hooks remember each session's cwd), else the latest of the same project."""
    store = engine.store
    if requested:
        if not isinstance(requested, str) or not store.exists(requested):
            raise RecallError(
                f"no session {requested!r} in this data home; memory_sessions lists them"
            )
        return requested
    rows = store.sessions()
    if not cwd:
        return rows[0].session_id if rows else None
    from rolling_graph.warm.reconcile import project_scope

    scope = project_scope(engine.settings, cwd)
    same_project = None
    for row in rows:
        state = session_state(engine, row.session_id)
        if state.get("cwd") == cwd:
            return row.session_id
        if same_project is None and state.get("scope") == scope:
            same_project = row.session_id
    return same_project


def project_of(engine: Any, session_id: str | None, cwd: str | None) -> str:
    from rolling_graph.warm.reconcile import project_scope

    if session_id:
        state = session_state(engine, session_id)
        if "scope" in state:
            return str(state["scope"])
    return project_scope(engine.settings, cwd)


# ------------------------------------------------------------------------------- matching


@dataclass
class Match:
    """One search hit: a hot node (this session) or a warm one (earlier sessions)."""

    id: str
    label: str
    kind: str | None
    domain: str
    weight: float
    where: str
    hits: int
    matched: dict[str, list[str]] = field(default_factory=dict)  # field → words
    summary: str | None = None

    def why(self) -> str:
        parts = [f"{', '.join(ws)} in {f}" for f, ws in self.matched.items()]
        return "matches " + "; ".join(parts) if parts else "matches the query"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "kind": self.kind,
            "domain": self.domain,
            "weight": round(self.weight, 3),
            "where": self.where,
            "why": self.why(),
        }


def _fields(node: Node | WarmNode) -> dict[str, str]:
    return {
        "label": normalize_term(f"{node.id} {node.label}"),
        "aliases": normalize_term(" ".join(node.aliases)),
        "summary": normalize_term(node.summary or ""),
    }


def match_node(node: Node | WarmNode, words: list[str], where: str, weight: float) -> Match | None:
    # Cheap exact pre-check: a normalized word (a-z0-9 only) occurs in the normalized text
    # iff it occurs in the lower-cased raw text; most nodes stop here.
    raw = f"{node.id} {node.label} {' '.join(node.aliases)} {node.summary or ''}".lower()
    if not any(w in raw for w in words):
        return None
    matched: dict[str, list[str]] = {}
    hits = 0
    fields = _fields(node)
    for w in words:
        found = [name for name, text in fields.items() if w in text]
        if found:
            hits += 1
            matched.setdefault(found[0], []).append(w)
    if not hits:
        return None
    return Match(
        node.id, node.label, node.kind, node.domain, weight, where, hits, matched, node.summary
    )


def search_hot(graph: HotGraph, words: list[str]) -> list[Match]:
    out = []
    for node in graph.nodes.values():
        m = match_node(node, words, "this session", node.weight)
        if m is not None:
            out.append(m)
    return out


def rank(matches: list[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: (-m.hits, -m.weight, m.where != "this session", m.id))


def resolve_hot(graph: HotGraph, name: str) -> str | None:
    """A node id from an id, a label or an alias (case and punctuation ignored)."""
    if name in graph.nodes:
        return name
    want = normalize_term(name)
    if not want:
        return None
    for node in graph.nodes.values():
        if normalize_term(node.id) == want or normalize_term(node.label) == want:
            return node.id
    for node in graph.nodes.values():
        if any(normalize_term(a) == want for a in node.aliases):
            return node.id
    return None


# ------------------------------------------------------------------------------- audit


def audit_reasons(
    engine: Any, session_id: str, node_ids: set[str], limit: int = 8
) -> list[dict[str, Any]]:
    """The latest applied changes to ``node_ids`` (or edges touching them), with their turns
    and reasons, oldest first."""
    found: list[dict[str, Any]] = []
    for rec in engine.store.audit(session_id).records():
        if rec.get("type") != "patch" or rec.get("status") != "applied":
            continue
        ops = rec.get("applied") or []
        reasons = rec.get("reasons") or []
        source = rec.get("source") or {}
        for i, op in enumerate(ops):
            target = _op_target(op)
            if target is None or not (target & node_ids):
                continue
            reason = reasons[i] if i < len(reasons) and isinstance(reasons[i], str) else ""
            found.append(
                {
                    "turn": rec.get("turn"),
                    "op": f"{op.get('op')} {op.get('path')}",
                    "reason": reason[:160],
                    "by": source.get("probe") if isinstance(source, dict) else None,
                }
            )
    return found[-limit:]


def _op_target(op: Any) -> set[str] | None:
    path = op.get("path") if isinstance(op, dict) else None
    if not isinstance(path, str):
        return None
    parts = path.split("/")
    if len(parts) < 3:
        return None
    if parts[1] == "nodes":
        return {parts[2]}
    if parts[1] == "edges":
        key = parts[2].split("|")
        return {key[0], key[-1]} if len(key) == 3 else None
    return None
