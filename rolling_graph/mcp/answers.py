"""The four questions the agent can ask (DESIGN §5, "expansion on request"): search, expand,
decision history and earlier sessions. Each returns ``{"text": …, "data": …}``; the text is
what the agent reads, bounded by an estimated token budget, and the data is the same answer as
JSON for programs.

Runs in the worker, on the graphs the hooks change: reads take the session's locks only where
they change something (an expansion is an activation, as the spec asks, and is saved and
audited like any other).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.mcp import outside
from rolling_graph.mcp.lookup import (
    Match,
    RecallError,
    audit_reasons,
    project_of,
    query_words,
    rank,
    resolve_hot,
    search_hot,
)
from rolling_graph.mcp.warmside import (
    warm_chain_edges,
    warm_lookup,
    warm_node_sessions,
    warm_search,
    warm_sessions,
)
from rolling_graph.render.lod import render_session

log = logging.getLogger("rolling_graph.mcp.recall")

SCOPES = ("session", "project", "all")
MAX_LIMIT = 25


class Lines:
    """Text lines that stop growing at a token budget, saying how much was left out."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.used = 0
        self.dropped = 0

    def add(self, line: str) -> bool:
        cost = estimate_tokens(line) + 1
        if self.dropped or self.used + cost > self.budget - 20:  # room for the "more" line
            self.dropped += 1
            return False
        self.lines.append(line)
        self.used += cost
        return True

    def text(self, more: str = "lines") -> str:
        tail = [f"(… {self.dropped} more {more} left out to stay short)"] if self.dropped else []
        return "\n".join(self.lines + tail)


def _limit(value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RecallError(f"limit must be a whole number from 1 to {MAX_LIMIT}, not {value!r}")
    return min(value, MAX_LIMIT)


# ------------------------------------------------------------------------------- search


def search(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    words = query_words(args.get("query"))
    scope = args.get("scope") or "project"
    if scope not in SCOPES:
        raise RecallError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    limit = _limit(args.get("limit"), 8)
    matches: list[Match] = []
    if sid is not None:
        with engine.locked_session(sid) as sess:
            matches = search_hot(sess.graph, words)
    notes: list[str] = []
    if scope != "session":
        project = project_of(engine, sid, cwd)
        scopes = None if scope == "all" else [project, ""]
        warm, error = warm_search(engine, words, scopes, limit * 2)
        if error:
            notes.append(f"warm store not searched: {error}")
        seen = {m.id for m in matches}
        matches += [m for m in warm if m.id not in seen]
    ranked = rank(matches)[:limit]
    out = Lines(int(engine.settings.mcp_answer_tokens))
    out.add(f"{len(ranked)} match(es) for {' '.join(words)!r} (scope {scope}), best first:")
    for m in ranked:
        kind = f"{m.kind}, " if m.kind else ""
        line = f"- {m.label} [id {m.id}; {kind}{m.domain}; weight {m.weight:.2f}; {m.where}] — {m.why()}"
        if m.summary:
            line += f". {m.summary}"
        out.add(line)
    if not ranked:
        out.add("- nothing matches; try other words or scope 'all'")
    out.add("memory_expand(node=<id>) shows one in full.")
    for note in notes:
        out.add(f"note: {note}")
    data = {"query_words": words, "scope": scope, "session": sid}
    data["results"] = [m.as_dict() for m in ranked]
    return {"text": out.text("matches"), "data": data}


# ------------------------------------------------------------------------------- expand


def expand(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    name = args.get("node")
    if not isinstance(name, str) or not name.strip():
        raise RecallError("node is empty: give a node id or label (memory_search finds them)")
    if len(name) > 200:
        raise RecallError("node names are at most 80 characters; give the id from memory_search")
    project = project_of(engine, sid, cwd)
    if sid is None:  # no live session here: read the node where it lives
        return outside.expand(engine, name, project)
    with engine.locked_session(sid) as sess:
        nid = resolve_hot(sess.graph, name) or _pull_from_warm(engine, sess, name, project)
        if nid is None:
            if outside.warm_any_scope(engine, name, project) is None:
                hint = _suggest(sess.graph, name)
                raise RecallError(
                    f"unknown node {name!r} in session {sid} and its project.{hint} "
                    f"Another session? {outside.CHOOSE[0].upper()}{outside.CHOOSE[1:]}."
                )
        else:
            before = sess.graph.nodes[nid].weight
            sess.activate([nid], strengthen=True, why="expand (agent asked via MCP)")
            sess.save()
            graph = sess.graph
            node = graph.nodes[nid]
            edges = [e for e in graph.edges.values() if nid in (e.source, e.target)]
            edges.sort(key=lambda e: (-e.strength, e.key))
            turn = graph.turn
    if nid is None:  # another project's node (a search with scope 'all'): read only
        return outside.expand(engine, name, project)
    reasons = audit_reasons(engine, sid, {nid})
    sessions = warm_node_sessions(engine, nid, project)
    return _expand_answer(engine, graph, node, before, edges, reasons, sessions, turn)


def _pull_from_warm(engine: Any, sess: Any, name: str, project: str) -> str | None:
    """A node only the warm store knows is brought into this session first (a pull)."""
    found = warm_lookup(engine, name, project)
    if not found.get("node"):
        return None
    from rolling_graph.mcp.warmside import reconciler

    rec = reconciler(engine)
    rec.pull(sess, found["node"].label, top=0, recent=0, neighbors=10)
    return resolve_hot(sess.graph, found["node"].id)


def _suggest(graph: Any, name: str) -> str:
    try:
        words = query_words(name)
    except RecallError:
        return ""
    near = [m.id for m in rank(search_hot(graph, words))[:3]]
    return f" Close: {', '.join(near)}." if near else " memory_search finds nodes by words."


def _expand_answer(
    engine: Any,
    graph: Any,
    node: Any,
    before: float,
    edges: list[Any],
    reasons: list[dict[str, Any]],
    sessions: list[str],
    turn: int,
) -> dict[str, Any]:
    out = Lines(int(engine.settings.mcp_answer_tokens))
    kind = f"{node.kind}, " if node.kind else ""
    out.add(f"{node.label} [id {node.id}; {kind}{node.domain}{', anchor' if node.anchor else ''}]")
    out.add(
        f"weight {before:.2f} → {node.weight:.2f} (expanding counts as an activation, turn {turn})"
    )
    if node.summary:
        out.add(f"summary: {node.summary}")
    if node.aliases:
        out.add(f"aliases: {', '.join(node.aliases)}")
    if sessions:
        out.add(f"seen in {len(sessions)} earlier session(s): {', '.join(sessions[:5])}")
    links = []
    for e in edges:
        other = e.target if e.source == node.id else e.source
        label = graph.nodes[other].label if other in graph.nodes else other
        arrow = (
            f"{e.relationship} → {label}" if e.source == node.id else f"← {e.relationship} {label}"
        )
        links.append({"relationship": e.relationship, "node": other, "out": e.source == node.id})
        out.add(f"- {arrow} (strength {e.strength:.2f})")
    for r in reasons:
        out.add(f"turn {r['turn']}: {r['op']} — {r['reason'] or '(no reason given)'}")
    data = {
        "node": node.model_dump(),
        "weight_before": before,
        "links": links,
        "audit": reasons,
        "sessions": sessions,
    }
    return {"text": out.text(), "data": data}


# ------------------------------------------------------------------------------- history


def history(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    subject = args.get("subject")
    if not isinstance(subject, str) or not subject.strip():
        raise RecallError("subject is empty: name a decision or topic")
    words = query_words(subject)
    project = project_of(engine, sid, cwd)
    nodes: dict[str, Any] = {}
    sup: set[tuple[str, str]] = set()  # (newer, older)
    start = None
    if sid is not None:
        with engine.locked_session(sid) as sess:
            g = sess.graph
            start = resolve_hot(g, subject) or _best_decision(search_hot(g, words))
            nodes = dict(g.nodes)
            sup = {(e.source, e.target) for e in g.edges.values() if e.relationship == "supersedes"}
    if start is None:
        found = warm_lookup(engine, subject, project).get("node")
        if found is None:
            warm, _err = warm_search(engine, words, [project, ""], 10)
            best = _best_decision(warm)
            found = warm_lookup(engine, best, project).get("node") if best else None
        if found is None:
            other = outside.warm_any_scope(engine, subject, project)
            found = other[0] if other else None
            project = found.scope if found is not None else project  # its chain lives there
        if found is None:
            hint = "" if sid else f" ({outside.CHOOSE})"
            raise RecallError(f"no decision or topic matches {subject!r}; try memory_search{hint}")
        start = found.id
        nodes.setdefault(found.id, found)
    more_nodes, more_sup = warm_chain_edges(engine, start, project, set(nodes))
    for n in more_nodes:
        nodes.setdefault(n.id, n)
    chain = _chain(start, sup | more_sup)
    return _history_answer(engine, sid, nodes, chain, start)


def _best_decision(matches: list[Match]) -> str | None:
    ranked = rank(matches)
    for m in ranked:
        if m.kind in ("decision", "correction"):
            return m.id
    return ranked[0].id if ranked else None


def _chain(start: str, sup: set[tuple[str, str]]) -> list[str]:
    """Every node linked to ``start`` through ``supersedes`` edges, oldest first."""
    members = {start}
    frontier = [start]
    while frontier and len(members) < 30:
        n = frontier.pop()
        for newer, older in sup:
            for other in (older if newer == n else None, newer if older == n else None):
                if other and other not in members:
                    members.add(other)
                    frontier.append(other)
    edges = {(a, b) for a, b in sup if a in members and b in members}
    order: list[str] = []
    remaining = set(members)
    while remaining:
        # The oldest left: nothing remaining is older than it (what it supersedes is placed).
        ready = sorted(n for n in remaining if not any(a == n and b in remaining for a, b in edges))
        pick = ready or sorted(remaining)  # a cycle (contradictory patches): keep going
        order.append(pick[0])
        remaining.discard(pick[0])
    return order


def _history_answer(
    engine: Any, sid: str | None, nodes: dict[str, Any], chain: list[str], start: str
) -> dict[str, Any]:
    out = Lines(int(engine.settings.mcp_answer_tokens))
    reasons = audit_reasons(engine, sid, set(chain), limit=40) if sid else []
    if len(chain) == 1:
        out.add(f"No earlier or later decision recorded for {nodes[start].label} (no supersedes).")
    else:
        out.add(f"Decision chain, oldest to newest ({len(chain)} steps):")
    steps = []
    for i, nid in enumerate(chain):
        n = nodes.get(nid)
        label = n.label if n is not None else nid
        state = "in force" if i == len(chain) - 1 else "superseded"
        when = _when(n)
        line = f"{i + 1}. {label} [id {nid}; {state}; {when}]"
        if n is not None and n.summary:
            line += f" — {n.summary}"
        out.add(line)
        mine = [r for r in reasons if nid in r["op"]]
        for r in mine[-2:]:
            out.add(f"   turn {r['turn']}: {r['reason'] or r['op']}")
        steps.append({"id": nid, "label": label, "state": state, "when": when, "audit": mine})
    return {"text": out.text(), "data": {"subject": start, "chain": steps}}


def _when(n: Any) -> str:
    if n is None:
        return "unknown"
    if hasattr(n, "last_activated"):
        return f"this session, last active turn {n.last_activated}"
    first, last = n.first_seen, n.last_seen
    return f"earlier sessions {first:%Y-%m-%d}–{last:%Y-%m-%d}, seen in {n.sessions_seen}"


# ------------------------------------------------------------------------------- sessions


def sessions(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    project = args.get("project")
    if project is not None and not isinstance(project, str):
        raise RecallError("project must be a name (e.g. the repository's directory name)")
    if project and len(project) > 200:
        raise RecallError("project names are short: the repository's directory name")
    from rolling_graph.core.slug import slugify

    scope = slugify(project) if project and project.strip() else project_of(engine, sid, cwd)
    limit = _limit(args.get("limit"), 10)
    rows, error = warm_sessions(engine, scope, limit)
    if not rows:
        why = f" (warm store: {error})" if error else ""
        raise RecallError(f"no sessions recorded for project {scope!r}{why}")
    out = Lines(int(engine.settings.mcp_answer_tokens))
    out.add(f"Sessions of project {scope!r}, newest first:")
    for r in rows:
        mark = " (this session)" if r["session_id"] == sid else ""
        dates = _dates(r["first"], r["last"])
        tasks = "; ".join(r["main"]) or "(no task recorded)"
        out.add(f"- {dates} {r['session_id']}{mark}: {tasks}")
    if error:
        out.add(f"note: warm store not read: {error}")
    data = {"project": scope, "sessions": rows}
    for r in data["sessions"]:
        for k in ("first", "last"):
            r[k] = r[k].isoformat() if isinstance(r[k], datetime) else r[k]
    return {"text": out.text("sessions"), "data": data}


def _dates(first: datetime, last: datetime) -> str:
    a, b = f"{first:%Y-%m-%d}", f"{last:%Y-%m-%d}"
    return a if a == b else f"{a}–{b}"


# ------------------------------------------------------------------------------- block


def block(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    """The block the hooks would inject now, with why each line is there (a read: no change)."""
    note = ""
    if sid is None:  # outside a live session: the newest one, said so
        sid = outside.latest_session(engine)
        note = f"(no session of this project here: the latest session, {sid}; {outside.CHOOSE})\n"
    with engine.locked_session(sid) as sess:
        out = render_session(sess, show_why=True)
    return {"text": note + (out.text or "(the graph is empty)"), "data": {"session": sid}}
