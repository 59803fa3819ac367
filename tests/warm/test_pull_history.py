"""What a pull may bring into a project's hot graph, on SQLite and on real PostgreSQL: no
decision of another session's personal scope (a session outside any repository, a copy at
the end of a personal edge), and supersedes edges as a history, the newest word first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rolling_graph.core.hotstore import HotStore
from rolling_graph.render.lod import render_session
from rolling_graph.warm import open_store
from rolling_graph.warm.reconcile import Reconciler
from rolling_graph.warm.resume import gather

from ._hot import edge_op, hot_session, node_op

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def reconciler(settings: Any) -> Reconciler:
    return Reconciler(settings, HotStore(Path(settings.home)))


def flush(rec: Reconciler, sid: str, ops: list[dict[str, Any]], when: datetime, scope: str) -> None:
    state = rec.state(sid)
    state["scope"] = scope  # the scope a session's cwd would give
    rec.write_state(sid, state)
    rec.flush(hot_session(rec.hot, sid, ops), final=True, now=when)


def email_choice(new: str, old: str) -> list[dict[str, Any]]:
    return [
        node_op(new, 0.9, label=new.replace("-", " ").capitalize(), kind="decision"),
        node_op(old, 0.4, label=old.replace("-", " ").capitalize(), kind="decision"),
        node_op("newsletter", 0.9, label="Newsletter signup"),
        edge_op(new, "supersedes", old, 0.9),
        edge_op("newsletter", "uses", new),
    ]


def supersedes(graph: Any) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.edges.values() if e.relationship == "supersedes"}


def test_a_pull_lends_no_decision_of_the_persons_own_scope(warm_settings: Any) -> None:
    rec = reconciler(warm_settings)
    project = rec.scope_for("/x")
    assert project != rec.own_scope
    flush(rec, "here", email_choice("use-bento", "use-resend"), T0, project)
    # Later, in a session outside any repository: the other way round, and a decision of its
    # own; and an aside of the person's own life, which may follow them anywhere.
    elsewhere = [
        *email_choice("use-resend", "use-bento"),
        node_op("keep-the-old-sender", 0.9, label="Keep the old sender", kind="decision"),
        node_op("dentist-tuesday", 0.9, label="Dentist on Tuesday", domain="personal"),
    ]
    flush(rec, "elsewhere", elsewhere, T0 + timedelta(hours=2), rec.own_scope)
    sess = hot_session(rec.hot, "new", [])
    result = rec.pull(sess, "the newsletter email", now=T0 + timedelta(hours=3))
    graph = sess.graph
    assert result.error is None
    assert "dentist-tuesday" in graph.nodes  # the person's own scope is still read
    assert "keep-the-old-sender" not in graph.nodes
    assert supersedes(graph) == {("use-bento", "use-resend")}
    text = render_session(sess).text
    assert "Use bento (supersedes Use resend)" in text
    assert "Use resend (supersedes" not in text
    rec.close()


def test_a_pull_and_a_resume_read_the_newest_direction(warm_settings: Any) -> None:
    rec = reconciler(warm_settings)
    project = rec.scope_for("/x")
    flush(rec, "first", email_choice("use-resend", "use-bento"), T0, project)
    flush(rec, "second", email_choice("use-bento", "use-resend"), T0 + timedelta(hours=1), project)
    store = open_store(warm_settings.warm, Path(warm_settings.home))
    try:
        kept = supersedes_in(store.get_edges(scope=project))
        assert kept == {("use-resend", "use-bento"), ("use-bento", "use-resend")}  # both stored
        data = gather(store, project, "third", T0 + timedelta(hours=2))
        assert supersedes_in(data.edges) == {("use-bento", "use-resend")}
    finally:
        store.close()
    sess = hot_session(rec.hot, "third", [])
    rec.pull(sess, None, now=T0 + timedelta(hours=2))
    assert supersedes(sess.graph) == {("use-bento", "use-resend")}
    rec.close()


def supersedes_in(edges: list[Any]) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in edges if e.relationship == "supersedes"}


def test_the_warm_decision_history_reads_the_newest_direction(warm_settings: Any) -> None:
    from rolling_graph.mcp.warmside import warm_chain_edges
    from rolling_graph.pipeline.engine import Engine

    rec = reconciler(warm_settings)
    project = rec.scope_for("/x")
    flush(rec, "first", email_choice("use-resend", "use-bento"), T0, project)
    flush(rec, "second", email_choice("use-bento", "use-resend"), T0 + timedelta(hours=1), project)
    rec.close()
    engine = Engine(warm_settings)
    try:
        nodes, sup = warm_chain_edges(engine, "use-bento", project, set())
    finally:
        engine.close()
    assert sup == {("use-bento", "use-resend")}
    assert {n.id for n in nodes} == {"use-bento", "use-resend"}
