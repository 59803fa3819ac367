"""Reconciliation end to end, on SQLite and on a real PostgreSQL (fixture ``warm_settings``):
flush → merge, idempotent double flush, concurrent reconciliations, outbox when the store is
down, recovery from a hot graph and from a transcript, pulls at session start."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.session import HotSession, rebuild_from_audit
from rolling_graph.pipeline.engine import Engine
from rolling_graph.warm import merge_node, open_store
from rolling_graph.warm.identity import project_scope
from rolling_graph.warm.pull import mention_terms
from rolling_graph.warm.reconcile import Reconciler
from rolling_graph.warm.records import HotNode

from ._hot import add, edge_op, hot_session, node_op, triangle

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def warm(settings: Any) -> Any:
    return open_store(settings.warm, Path(settings.home))


def reconciler(settings: Any) -> Reconciler:
    return Reconciler(settings, HotStore(Path(settings.home)))


# --------------------------------------------------------------------------- scope, terms


def test_project_scope_rules(tmp_path: Path) -> None:
    class S:
        project = ""

    repo = tmp_path / "My Repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "pkg").mkdir(parents=True)
    # A ``.git`` that git cannot read: no remote, no commit, so the work tree's path.
    assert project_scope(S(), repo / "src" / "pkg") == f"path:{repo}"
    loose = tmp_path / "loose"
    loose.mkdir()
    assert project_scope(S(), loose) == ""  # outside a repository: personal
    # A folder this machine does not have (a replayed transcript): the path keeps it apart.
    assert project_scope(S(), "/nowhere/else/proj") == "path:/nowhere/else/proj"
    assert project_scope(S(), None) == ""
    S.project = "team-x"
    assert project_scope(S(), repo) == "team-x"


def test_mention_terms_are_ngrams_without_stop_words() -> None:
    terms = mention_terms("Should we use the Bento API for e-mail?")
    assert "bento api" in terms and "bento" in terms and "e mail" in terms
    assert "the" not in terms and "we" not in terms


# --------------------------------------------------------------------------- flush


def test_flush_applies_merge_rules(warm_settings: Any) -> None:
    rec = reconciler(warm_settings)
    s1 = hot_session(rec.hot, "s1", triangle())
    r1 = rec.flush(s1, final=True, now=T0)
    assert (r1.status, r1.flush_seq, r1.scope, r1.nodes, r1.edges) == ("applied", 1, "proj", 3, 2)
    s2 = hot_session(rec.hot, "s2", triangle())
    r2 = rec.flush(s2, final=True, now=T0 + timedelta(days=1))
    assert r2.status == "applied"
    with warm(warm_settings) as w:
        alpha = w.get_nodes(["alpha"], scope="proj")["alpha"]
        assert alpha.sessions_seen == 2 and w.node_sessions("alpha", scope="proj") == ["s1", "s2"]
        hot = s1.graph.nodes["alpha"]
        first = merge_node(
            None,
            HotNode("alpha", hot.label, hot.domain, hot.weight),
            scope="proj",
            new_session=True,
            now=T0,
        )
        expected = merge_node(
            first,
            HotNode("alpha", hot.label, hot.domain, s2.graph.nodes["alpha"].weight),
            scope="proj",
            new_session=True,
            now=T0 + timedelta(days=1),
        )
        assert alpha.weight == pytest.approx(expected.weight)
        assert first.weight == pytest.approx(hot.weight * 0.8)  # new-node penalty
        assert len(w.get_edges(scope="proj")) == 2
    state = rec.state("s1")
    assert state["seq"] == 1 and state["final"]["status"] == "applied"
    rec.close()


def test_precompact_then_session_end_counts_the_session_once(warm_settings: Any) -> None:
    engine = Engine(warm_settings)
    try:
        engine.handle(HookEvent("session_start", "sess-a", cwd="/x", source="startup"))
        add(engine.sessions["sess-a"], triangle())
        engine.sessions["sess-a"].save()
        pc = engine.handle(HookEvent("pre_compact", "sess-a", cwd="/x", trigger="auto"))
        assert pc.notes["warm"]["flush"]["status"] == "applied"
        engine.handle(HookEvent("session_start", "sess-a", cwd="/x", source="compact"))
        end = engine.handle(HookEvent("session_end", "sess-a", cwd="/x", reason="other"))
        assert end.notes["warm"]["flush"]["flush_seq"] == 2
    finally:
        engine.close()
    with warm(warm_settings) as w:
        assert [r.flush_seq for r in w.reconciliations(scope="proj", session_id="sess-a")] == [1, 2]
        for nid in ("alpha", "beta", "gamma"):
            node = w.get_nodes([nid], scope="proj")[nid]
            assert node.sessions_seen == 1, nid
            assert w.node_sessions(nid, scope="proj") == ["sess-a"]
        assert all(e.sessions_seen == 1 for e in w.get_edges(scope="proj"))
    assert not Reconciler(warm_settings).pending()  # the marker is gone after the merge


def test_replayed_flush_is_ignored(warm_settings: Any) -> None:
    rec = reconciler(warm_settings)
    sess = hot_session(rec.hot, "s1", triangle())
    assert rec.flush(sess, final=False, now=T0).status == "applied"
    # A crash that lost the state file: the same seq again must not count twice.
    state = rec.state("s1")
    state["seq"] = 0
    rec.write_state("s1", state)
    assert rec.flush(sess, final=True, now=T0).status == "duplicate"
    with warm(warm_settings) as w:
        assert w.get_nodes(["alpha"], scope="proj")["alpha"].sessions_seen == 1
    rec.close()


def test_concurrent_reconciliations_lose_no_update(warm_settings: Any) -> None:
    n = 6
    hot = HotStore(Path(warm_settings.home))
    sessions = [hot_session(hot, f"c{i}", [*triangle(), node_op(f"own-{i}")]) for i in range(n)]
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        rec = reconciler(warm_settings)  # its own store connection, like separate processes
        try:
            rec.store()
            barrier.wait()
            a = rec.flush(sessions[i], final=False, now=T0)
            b = rec.flush(sessions[i], final=True, now=T0 + timedelta(seconds=1))
            results[i] = (a.status, b.status)
        finally:
            rec.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [("applied", "applied")] * n
    with warm(warm_settings) as w:
        alpha = w.get_nodes(["alpha"], scope="proj")["alpha"]
        assert alpha.sessions_seen == n
        assert w.node_sessions("alpha", scope="proj") == sorted(f"c{i}" for i in range(n))
        assert all(e.sessions_seen == n for e in w.get_edges(scope="proj"))
        assert w.counts(scope="proj").nodes == 3 + n
        assert w.counts(scope="proj").reconciliations == 2 * n


# --------------------------------------------------------------------------- outbox


def _down_url(tmp_path: Path, backend: str) -> str:
    if backend == "sqlite":
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("a file where the store's directory should be")
        return f"sqlite:///{blocker}/warm.sqlite3"
    empty = tmp_path / "nosrv"
    empty.mkdir()
    return f"postgresql://postgres@/postgres?host={empty}&port=5432&connect_timeout=2"


def test_store_down_goes_to_outbox_then_is_delivered(
    warm_settings: Any, store_spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    down = warm_settings.model_copy(update={"warm": _down_url(tmp_path, store_spec.backend)})
    rec = reconciler(down)
    s1 = hot_session(rec.hot, "s1", triangle())
    r1 = rec.flush(s1, final=False, now=T0)
    add(s1, [node_op("delta"), edge_op("alpha", "relates-to", "delta")])
    r2 = rec.flush(s1, final=True, now=T0 + timedelta(minutes=5))
    assert (r1.status, r2.status) == ("queued", "queued")
    assert [e.batch.flush_seq for e in rec.outbox.entries()] == [1, 2]
    assert rec.state("s1")["final"]["status"] == "queued"
    rec.close()

    runner = CliRunner()
    monkeypatch.setenv("ROLLING_GRAPH_WARM", down.warm)
    listed = runner.invoke(cli, ["outbox", "--json"])
    assert listed.exit_code == 0, listed.output
    entries = json.loads(listed.output)
    assert [(e["session_id"], e["flush_seq"], e["final"]) for e in entries] == [
        ("s1", 1, False),
        ("s1", 2, True),
    ]
    assert runner.invoke(cli, ["flush", "--retry"]).exit_code == 1  # still down: kept
    assert reconciler(down).outbox.entries()[0].attempts >= 1

    monkeypatch.setenv("ROLLING_GRAPH_WARM", warm_settings.warm)  # the store is back
    out = runner.invoke(cli, ["flush", "--retry", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["delivered"] == 2
    assert runner.invoke(cli, ["flush", "--pending"]).output.startswith("outbox empty")
    with warm(warm_settings) as w:
        assert [r.flush_seq for r in w.reconciliations(scope="proj", session_id="s1")] == [1, 2]
        nodes = w.get_nodes(["alpha", "beta", "gamma", "delta"], scope="proj")
        assert set(nodes) == {"alpha", "beta", "gamma", "delta"}  # nothing lost
        assert nodes["alpha"].sessions_seen == 1  # and counted once
        assert nodes["delta"].last_seen == T0 + timedelta(minutes=5)


def test_next_flush_delivers_the_outbox_first(
    warm_settings: Any, store_spec: Any, tmp_path: Path
) -> None:
    down = warm_settings.model_copy(update={"warm": _down_url(tmp_path, store_spec.backend)})
    rec_down = reconciler(down)
    s1 = hot_session(rec_down.hot, "s1", triangle())
    assert rec_down.flush(s1, final=False, now=T0).status == "queued"
    rec_down.close()
    rec = reconciler(warm_settings)
    s2 = hot_session(rec.hot, "s2", triangle())
    r = rec.flush(s2, final=True, now=T0 + timedelta(hours=1))
    assert r.status == "applied" and r.delivered is not None and r.delivered.delivered == 1
    assert not rec.outbox.entries()
    with warm(warm_settings) as w:
        assert w.node_sessions("alpha", scope="proj") == ["s1", "s2"]
    rec.close()


# --------------------------------------------------------------------------- recover


def test_recover_from_a_leftover_hot_graph(warm_settings: Any) -> None:
    hot = HotStore(Path(warm_settings.home))
    hot_session(hot, "crashed", triangle())
    rec = reconciler(warm_settings)
    rec.mark_pending("marked")  # a killed SessionEnd, hot graph present
    hot_session(hot, "marked", [node_op("zeta")])
    rec.close()
    runner = CliRunner()
    dry = runner.invoke(cli, ["recover", "--older-than", "0", "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    assert {r["session_id"] for r in json.loads(dry.output)} == {"crashed", "marked"}
    out = runner.invoke(cli, ["recover", "--older-than", "0", "--json"])
    assert out.exit_code == 0, out.output
    done = {r["session_id"]: r for r in json.loads(out.output)}
    assert done["crashed"]["status"] == done["marked"]["status"] == "applied"
    with warm(warm_settings) as w:
        assert w.node_sessions("alpha", scope="proj") == ["crashed"]
        assert w.node_sessions("zeta", scope="proj") == ["marked"]
    again = runner.invoke(cli, ["recover", "--older-than", "0"])
    assert again.output.strip() == "nothing to recover"
    assert not reconciler(warm_settings).pending()


def test_recover_from_a_transcript_when_the_hot_graph_is_gone(warm_settings: Any) -> None:
    transcript = REPO / "transcripts" / "newsletter-signup.jsonl"
    rec = reconciler(warm_settings)
    rec.remember("gone", transcript_path=str(transcript))
    rec.mark_pending("gone", transcript_path=str(transcript))
    assert not rec.hot.exists("gone")
    rec.close()
    out = CliRunner().invoke(cli, ["recover", "--older-than", "0", "--json"])
    assert out.exit_code == 0, out.output
    (result,) = json.loads(out.output)
    assert result["session_id"] == "gone" and result["status"] == "applied"
    assert result["nodes"] > 3
    assert HotStore(Path(warm_settings.home)).exists("gone")  # a hot graph again
    with warm(warm_settings) as w:
        old = "use-resend"
        nodes = w.get_nodes(["use-bento", old], scope="proj")
        assert set(nodes) == {"use-bento", old}
        keys = {e.key for e in w.get_edges(scope="proj", touching=["use-bento"])}
        assert ("use-bento", "supersedes", old) in keys
        assert w.node_sessions("use-bento", scope="proj") == ["gone"]


def test_killed_session_end_is_finished_at_the_next_session_start(warm_settings: Any) -> None:
    hot = HotStore(Path(warm_settings.home))
    hot_session(hot, "killed", triangle())
    Reconciler(warm_settings).mark_pending("killed")  # SessionEnd wrote it, then died
    engine = Engine(warm_settings)
    try:
        out = engine.handle(HookEvent("session_start", "next", cwd="/x", source="startup"))
        assert out.notes["warm"]["finished_pending"] == 1
        # … and the warm nodes it just wrote come back into the new session.
        assert {"alpha", "beta", "gamma"} <= set(engine.sessions["next"].graph.nodes)
    finally:
        engine.close()
    with warm(warm_settings) as w:
        assert w.node_sessions("alpha", scope="proj") == ["killed"]
    assert not Reconciler(warm_settings).pending()


def test_a_harness_without_session_end_is_merged_at_the_next_start(warm_settings: Any) -> None:
    # Codex sends no SessionEnd: the start leaves the marker that a SessionEnd would have.
    hot_session(HotStore(Path(warm_settings.home)), "codex-1", triangle())
    engine = Engine(warm_settings)
    try:
        engine.handle(
            HookEvent(
                "session_start", "codex-1", cwd="/x", harness="codex", session_end_expected=False
            )
        )
        assert [m["session_id"] for m in Reconciler(warm_settings).pending()] == ["codex-1"]
        out = engine.handle(
            HookEvent(
                "session_start", "codex-2", cwd="/x", harness="codex", session_end_expected=False
            )
        )
        assert out.notes["warm"]["finished_pending"] == 1
    finally:
        engine.close()
    with warm(warm_settings) as w:
        assert w.node_sessions("alpha", scope="proj") == ["codex-1"]
    assert [m["session_id"] for m in Reconciler(warm_settings).pending()] == ["codex-2"]


# --------------------------------------------------------------------------- pull


def _seed_history(settings: Any) -> None:
    """Two earlier sessions: a decision superseded by a newer one, plus filler nodes."""
    rec = reconciler(settings)
    s1 = hot_session(
        rec.hot,
        "old-1",
        [
            node_op("use-resend", 0.8, label="Use Resend", kind="decision"),
            node_op("newsletter", 0.9, label="Newsletter signup"),
            edge_op("newsletter", "uses", "use-resend"),
        ],
    )
    rec.flush(s1, final=True, now=T0)
    s2 = hot_session(
        rec.hot,
        "old-2",
        [
            node_op(
                "use-bento", 0.9, label="Use Bento", kind="decision", summary="email via Bento"
            ),
            node_op("use-resend", 0.3, label="Use Resend", kind="decision"),
            node_op("newsletter", 0.9, label="Newsletter signup"),
            edge_op("use-bento", "supersedes", "use-resend", 0.9),
            edge_op("newsletter", "uses", "use-bento"),
        ],
    )
    rec.flush(s2, final=True, now=T0 + timedelta(hours=1))
    rec.close()


def test_session_start_pulls_warm_branches_and_renders_them(warm_settings: Any) -> None:
    _seed_history(warm_settings)
    engine = Engine(warm_settings)
    try:
        out = engine.handle(HookEvent("session_start", "new", cwd="/x", source="startup"))
        graph = engine.sessions["new"].graph
        assert {"use-bento", "use-resend", "newsletter"} <= set(graph.nodes)
        assert "use-bento|supersedes|use-resend" in graph.edges
        assert out.injected and "Use Bento" in out.injected and "Newsletter signup" in out.injected
        assert "supersedes Use Resend" in out.injected
        # Audited as a warm patch: the graph can be rebuilt from the audit log.
        records = list(engine.store.audit("new").records())
        pulls = [r for r in records if r.get("type") == "patch" and r["source"]["probe"] == "warm"]
        assert len(pulls) == 1
        rebuilt = rebuild_from_audit("new", records)
        assert set(rebuilt.nodes) == set(graph.nodes) and set(rebuilt.edges) == set(graph.edges)
        # After compaction the graph is still there: nothing duplicated, nothing added.
        before = (len(graph.nodes), len(graph.edges))
        again = engine.handle(HookEvent("session_start", "new", cwd="/x", source="compact"))
        assert again.notes["warm"]["pull"]["nodes"] == 0
        graph = engine.sessions["new"].graph
        assert (len(graph.nodes), len(graph.edges)) == before
        assert again.injected and "Use Bento" in again.injected
        # Pulled but never touched: ending the session must not count it as seen again.
        engine.handle(HookEvent("session_end", "new", cwd="/x", reason="other"))
    finally:
        engine.close()
    with warm(warm_settings) as w:
        assert w.node_sessions("use-bento", scope="proj") == ["old-2"]


def test_first_prompt_pulls_the_branches_it_mentions(warm_settings: Any) -> None:
    rec = reconciler(warm_settings)
    filler = [node_op(f"filler-{i:02d}", 0.95) for i in range(40)]
    rec.flush(hot_session(rec.hot, "busy", filler), final=True, now=T0)
    quiet = hot_session(
        rec.hot,
        "quiet",
        [
            node_op("billing-webhook", 0.3, label="Billing webhook"),
            node_op("stripe", 0.3, label="Stripe"),
            edge_op("billing-webhook", "uses", "stripe"),
        ],
    )
    rec.flush(quiet, final=True, now=T0 - timedelta(days=3))
    rec.close()
    engine = Engine(warm_settings)
    try:
        engine.handle(HookEvent("session_start", "s", cwd="/x", source="startup"))
        assert "billing-webhook" not in engine.sessions["s"].graph.nodes  # neither top nor recent
        out = engine.handle(
            HookEvent("prompt_submit", "s", cwd="/x", prompt="the billing webhook fails again")
        )
        graph = engine.sessions["s"].graph
        assert {"billing-webhook", "stripe"} <= set(graph.nodes)  # the mention and its neighbour
        assert out.notes["warm"]["pull"]["nodes"] == 2
        engine.handle(HookEvent("session_end", "s", cwd="/x", reason="other"))
    finally:
        engine.close()
    with warm(warm_settings) as w:
        # The person named it: it was seen in this session; its neighbour was only pulled.
        assert w.node_sessions("billing-webhook", scope="proj") == ["quiet", "s"]
        assert w.node_sessions("stripe", scope="proj") == ["quiet"]


def test_pull_keeps_anchors_and_reads_the_person_scope(warm_settings: Any, tmp_path: Path) -> None:
    from rolling_graph.warm.seed import seed

    memo = tmp_path / "CLAUDE.md"
    memo.write_text("# Style\n- Never push to main without a review\n")
    rec = reconciler(warm_settings)
    # The person's own scope, read by every project: "" in SQLite, "~<role>" on PostgreSQL.
    if warm_settings.warm.startswith("sqlite"):
        assert rec.own_scope == ""
    else:
        assert rec.own_scope == f"~{rec.person}" and rec.person  # the DSN's role
    with warm(warm_settings) as w:
        seed(w, memo, scope=rec.own_scope)
    sess = hot_session(rec.hot, "p", [])
    result = rec.pull(sess, None, now=datetime.now(UTC))
    nid = "never-push-to-main-without-a-review"
    assert result.nodes_added == [nid]
    node = sess.graph.nodes[nid]
    assert node.anchor and node.weight >= 0.2 and node.kind == "correction"
    rec.close()


def test_hot_session_reload_keeps_pulled_nodes(warm_settings: Any) -> None:
    _seed_history(warm_settings)
    rec = reconciler(warm_settings)
    sess = hot_session(rec.hot, "r", [])
    rec.pull(sess, None)
    sess.save()
    again = HotSession.open(rec.hot, "r")
    assert "use-bento" in again.graph.nodes
    rec.close()


def test_the_block_comes_back_on_the_first_prompt_after_a_compaction(warm_settings: Any) -> None:
    # Gemini CLI and interactive Copilot CLI send no SessionStart after compacting.
    hot_session(HotStore(Path(warm_settings.home)), "g", triangle())
    engine = Engine(warm_settings)
    try:
        start = engine.handle(HookEvent("session_start", "g", cwd="/x", harness="gemini"))
        assert start.injected and "Alpha" in start.injected
        again = engine.handle(
            HookEvent("prompt_submit", "g", cwd="/x", prompt="ok", harness="gemini")
        )
        assert again.injected is None  # unchanged: not repeated
        engine.handle(HookEvent("pre_compact", "g", cwd="/x", trigger="manual", harness="gemini"))
        after = engine.handle(
            HookEvent("prompt_submit", "g", cwd="/x", prompt="ok", harness="gemini")
        )
        assert after.injected and "Alpha" in after.injected
    finally:
        engine.close()


def test_recover_a_transcript_given_by_path_takes_its_session_id(warm_settings: Any) -> None:
    transcript = REPO / "transcripts" / "newsletter-signup.jsonl"
    out = CliRunner().invoke(cli, ["recover", "--transcript", str(transcript), "--json"])
    assert out.exit_code == 0, out.output
    (result,) = json.loads(out.output)
    first = json.loads(transcript.read_text().splitlines()[1])  # line 0 is a file snapshot
    assert result["session_id"] == first["sessionId"] and result["status"] == "applied"


def test_pending_marker_is_durable_for_hooks_and_not_for_a_replay(
    warm_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from rolling_graph.core.hotstore import ReplayStore

    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    hooks = reconciler(warm_settings)
    hooks.mark_pending("s1", cwd=str(tmp_path))
    assert len(calls) == 2 and hooks.is_pending("s1")  # the marker and its directory
    calls.clear()
    replay = Reconciler(warm_settings, ReplayStore(Path(warm_settings.home)))
    replay.mark_pending("s2", cwd=str(tmp_path))
    assert calls == [] and replay.is_pending("s2")
