"""The warm-store contract: the same tests on every backend (fixture ``store``)."""

from __future__ import annotations

import math
import multiprocessing
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from rolling_graph.warm import (
    DraftError,
    MergeParams,
    WarmStore,
    effective_weight,
    make_batch,
    merge_edge,
    merge_node,
    prepare_batch,
)
from rolling_graph.warm.records import HotEdge, HotNode, WarmEdge, WarmNode

from . import _workers
from .conftest import StoreSpec

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def node(i: str, w: float, **extra: object) -> dict:
    return {
        "id": i,
        "label": extra.pop("label", i.title()),
        "domain": "project",
        "weight": w,
        **extra,
    }


def edge(s: str, rel: str, t: str, strength: float) -> dict:
    return {"source": s, "target": t, "relationship": rel, "strength": strength}


def hot(session: str, nodes: list[dict], edges: list[dict] = ()) -> dict:
    return {
        "schema": 1,
        "session_id": session,
        "turn": 5,
        "nodes": {n["id"]: n for n in nodes},
        "edges": {f"{e['source']}|{e['relationship']}|{e['target']}": e for e in edges},
    }


def flush(store: WarmStore, doc: dict, now: datetime, seq: int = 1, scope: str = "") -> None:
    assert store.merge(prepare_batch(doc, flush_seq=seq, now=now, scope=scope)).applied


def expected_version(store: WarmStore) -> int:
    import importlib

    module = importlib.import_module(type(store).__module__)
    return len(module.MIGRATIONS)


# --------------------------------------------------------------------------- migrations


def test_migrations_are_idempotent(store: WarmStore, store_spec: StoreSpec) -> None:
    version = expected_version(store)
    assert store.schema_version() == version
    flush(store, hot("s1", [node("a", 0.5)]), T0)
    assert store.migrate() == version
    assert store.migrate() == version
    with store_spec.open() as again:  # a second process opening (and migrating) the store
        assert again.schema_version() == version
        assert again.get_nodes(["a"])["a"].sessions_seen == 1


# --------------------------------------------------------------------------- merge rules


def test_new_node_penalty(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 0.5, aliases=["alpha"], summary="first")]), T0)
    a = store.get_nodes(["a"])["a"]
    assert a.weight == pytest.approx(0.4)
    assert (a.sessions_seen, a.first_seen, a.last_seen) == (1, T0, T0)
    assert (a.aliases, a.summary, a.anchor, a.floor, a.at_floor_since) == (
        ("alpha",),
        "first",
        False,
        0.0,
        None,
    )
    assert store.node_sessions("a") == ["s1"]


def test_merge_max(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 0.5)]), T0)
    t1 = T0 + timedelta(days=1)
    flush(store, hot("s2", [node("a", 0.3)]), t1)
    warm_now = 0.4 * math.exp(-1 / 30)
    a = store.get_nodes(["a"])["a"]
    assert a.weight == pytest.approx(warm_now + 0.1 * (1 - warm_now))
    assert (a.sessions_seen, a.first_seen, a.last_seen) == (2, T0, t1)
    flush(store, hot("s3", [node("a", 0.95)]), t1)
    assert store.get_nodes(["a"])["a"].weight == pytest.approx(0.95 + 0.1 * 0.05)


def test_merge_recency(store_spec: StoreSpec) -> None:
    with store_spec.open(params=MergeParams(mode="recency")) as store:
        flush(store, hot("s1", [node("a", 0.5)]), T0)
        t1 = T0 + timedelta(days=30)
        flush(store, hot("s2", [node("a", 0.9)]), t1)
        r = math.exp(-1)
        warm_now = 0.4 * r
        base = (0.9 + r * warm_now) / (1 + r)
        assert store.get_nodes(["a"])["a"].weight == pytest.approx(base + 0.1 * (1 - base))


def test_double_flush_counted_once(store: WarmStore) -> None:
    doc = hot("s1", [node("a", 0.5), node("b", 0.6)], [edge("a", "uses", "b", 0.5)])
    flush(store, doc, T0, seq=1)  # pre-compaction flush
    later = T0 + timedelta(minutes=20)
    flush(store, doc, later, seq=2)  # session end
    a = store.get_nodes(["a"])["a"]
    assert a.sessions_seen == 1
    assert a.weight == pytest.approx(0.4), "penalty kept, no bonus within one session"
    (e,) = store.get_edges()
    assert (e.sessions_seen, e.strength) == (1, pytest.approx(0.4))
    # The very same flush delivered again (outbox replay) is a no-op.
    result = store.merge(prepare_batch(doc, flush_seq=2, now=later + timedelta(hours=1)))
    assert not result.applied
    assert store.get_nodes(["a"])["a"].last_seen == later
    assert [(r.session_id, r.flush_seq) for r in store.reconciliations()] == [("s1", 1), ("s1", 2)]
    counts = store.counts()
    assert (counts.nodes, counts.edges, counts.sessions, counts.reconciliations) == (2, 1, 1, 2)


def test_supersedes_edges_kept(store_spec: StoreSpec) -> None:
    with store_spec.open(params=MergeParams(mode="recency")) as store:
        e = edge("use-bento", "supersedes", "use-resend", 0.9)
        flush(store, hot("s1", [node("use-bento", 0.8), node("use-resend", 0.5)], [e]), T0)
        later = T0 + timedelta(days=200)
        weak = edge("use-bento", "supersedes", "use-resend", 0.1)
        flush(store, hot("s2", [node("use-bento", 0.8)], [weak]), later)
        (kept,) = store.get_edges()
        # no decay and max-merge: 0.72 stays, plus one session bonus
        assert kept.strength == pytest.approx(0.72 + 0.1 * 0.28)


@pytest.mark.parametrize("mode", ["max", "recency"])
def test_backend_matches_merge_rules(store_spec: StoreSpec, mode: str) -> None:
    """Random merges; every stored row must equal merge.py's answer for its prior row."""
    params = MergeParams(mode=mode)  # type: ignore[arg-type]
    rng = random.Random(f"warm-{mode}")
    ids = [f"n{i}" for i in range(12)]
    with store_spec.open(params=params) as store:
        now = T0
        for step in range(14):
            now += timedelta(hours=rng.choice([0, 1, 30, 400]))
            session = f"s{rng.randrange(5)}"
            chosen = rng.sample(ids, rng.randrange(1, 8))
            hot_nodes = [
                HotNode(
                    id=i,
                    label=f"Label {i} {step}",
                    domain=rng.choice(["project", "technical"]),
                    weight=rng.random(),
                    summary=rng.choice([None, f"summary {step}"]),
                    aliases=tuple(rng.sample(["x", "y", "z"], rng.randrange(3))),
                    kind=rng.choice([None, "decision"]),
                    anchor=rng.random() < 0.2,
                )
                for i in chosen
            ]
            hot_edges = [
                HotEdge(a, rng.choice(["uses", "supersedes"]), b, rng.random())
                for a, b in zip(chosen, chosen[1:], strict=False)
            ]
            before_nodes = store.get_nodes(chosen)
            before_edges = {e.key: e for e in store.get_edges(keys=[e.key for e in hot_edges])}
            sessions = {i: set(store.node_sessions(i)) for i in chosen}
            edge_seen = {
                e.key: e.sessions_seen for e in before_edges.values()
            }  # edges: a new session iff its sightings grow; checked below through counts
            batch = make_batch(hot_nodes, hot_edges, session_id=session, flush_seq=step, now=now)
            store.merge(batch)
            after = store.get_nodes(chosen)
            for h in batch.nodes:
                expected = merge_node(
                    before_nodes.get(h.id),
                    h,
                    scope="",
                    new_session=session not in sessions[h.id],
                    now=now,
                    params=params,
                )
                assert_same_node(after[h.id], expected)
            after_edges = {e.key: e for e in store.get_edges(keys=[e.key for e in hot_edges])}
            for h in batch.edges:
                prior = before_edges.get(h.key)
                new_session = after_edges[h.key].sessions_seen > edge_seen.get(h.key, 0)
                expected_edge = merge_edge(
                    prior, h, scope="", new_session=new_session, now=now, params=params
                )
                assert_same_edge(after_edges[h.key], expected_edge)


def assert_same_node(got: WarmNode, want: WarmNode) -> None:
    assert got.weight == pytest.approx(want.weight, abs=1e-12)
    assert got == type(got)(**{**_fields(want), "weight": got.weight})


def assert_same_edge(got: WarmEdge, want: WarmEdge) -> None:
    assert got.strength == pytest.approx(want.strength, abs=1e-12)
    assert got == type(got)(**{**_fields(want), "strength": got.strength})


def _fields(obj: object) -> dict:
    return {name: getattr(obj, name) for name in obj.__slots__}  # type: ignore[attr-defined]


def test_scopes_are_isolated(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 0.5)]), T0, scope="proj-a")
    flush(store, hot("s1", [node("a", 0.9)]), T0, scope="proj-b")
    assert store.get_nodes(["a"], scope="proj-a")["a"].weight == pytest.approx(0.4)
    assert store.get_nodes(["a"], scope="proj-b")["a"].weight == pytest.approx(0.72)
    assert store.get_nodes(["a"]) == {}
    assert store.counts(scope="proj-a").sessions == 1
    assert store.counts().nodes == 0


# --------------------------------------------------------------------------- concurrency

SESSIONS = 8


def _expected_shared_weight(n: int) -> float:
    """Serial replay: identical sessions commute, so any interleaving must end here."""
    warm = None
    for k in range(n):
        warm = merge_node(
            warm,
            HotNode("shared", "Shared", "project", 0.5),
            scope="",
            new_session=True,
            now=T0,
        )
        assert k >= 0
    assert warm is not None
    return warm.weight


def _check_concurrent_result(store: WarmStore, sessions: list[str]) -> None:
    shared = store.get_nodes(["shared", "other"])
    assert shared["shared"].sessions_seen == len(sessions)
    assert shared["other"].sessions_seen == len(sessions)
    assert store.node_sessions("shared") == sorted(sessions)
    assert shared["shared"].weight == pytest.approx(_expected_shared_weight(len(sessions)))
    edges = {e.key: e for e in store.get_edges()}
    assert edges[("shared", "uses", "other")].sessions_seen == len(sessions)
    counts = store.counts()
    assert counts.nodes == 2 + len(sessions)
    assert counts.edges == 1 + len(sessions)
    assert (counts.sessions, counts.reconciliations) == (len(sessions), 2 * len(sessions))


def test_concurrent_merges_threads(store: WarmStore, store_spec: StoreSpec) -> None:
    sessions = [f"t{i}" for i in range(SESSIONS)]
    start_at = time.time() + 0.5
    with ThreadPoolExecutor(max_workers=SESSIONS) as pool:
        futures = [
            pool.submit(
                _workers.merge_session,
                store_spec.url,
                store_spec.home,
                store_spec.schema,
                s,
                T0,
                start_at,
            )
            for s in sessions
        ]
        assert all(f.result(timeout=120) == [True, True] for f in futures)
    _check_concurrent_result(store, sessions)


def test_concurrent_merges_processes(store: WarmStore, store_spec: StoreSpec) -> None:
    sessions = [f"p{i}" for i in range(4)]
    ctx = multiprocessing.get_context("spawn")
    start_at = time.time() + 3.0  # spawned interpreters need a moment to import
    with ctx.Pool(len(sessions)) as pool:
        results = [
            pool.apply_async(
                _workers.merge_session,
                (store_spec.url, store_spec.home, store_spec.schema, s, T0, start_at),
            )
            for s in sessions
        ]
        assert all(r.get(timeout=120) == [True, True] for r in results)
    _check_concurrent_result(store, sessions)


def test_concurrent_same_store_object_threads(store: WarmStore) -> None:
    """One store shared by threads (the worker's case) serializes its own merges."""
    sessions = [f"x{i}" for i in range(6)]

    def run(session: str) -> None:
        for seq in (1, 2):
            store.merge(prepare_batch(_workers.hot_doc(session), flush_seq=seq, now=T0))

    threads = [threading.Thread(target=run, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    _check_concurrent_result(store, sessions)


# --------------------------------------------------------------------------- branches


def test_load_branches_ordering(store: WarmStore) -> None:
    flush(
        store,
        hot(
            "s1",
            [
                node("alpha", 0.9),
                node("beta", 0.5, label="Beta Service", aliases=["the beta"]),
                node("gamma", 0.3),
                node("delta", 0.7),
                node("old", 0.6),
            ],
            [
                edge("beta", "uses", "gamma", 0.8),
                edge("beta", "relates-to", "delta", 0.2),
                edge("alpha", "supersedes", "old", 0.9),
            ],
        ),
        T0,
    )
    later = T0 + timedelta(days=10)
    flush(store, hot("s2", [node("eps", 0.2)]), later)
    branches = store.load_branches(
        mentions=["The BETA!"], ids=["delta", "missing"], top=2, recent=1, neighbors=5, now=later
    )
    assert [n.id for n in branches.nodes] == ["delta", "beta", "gamma", "alpha", "eps", "old"]
    assert branches.reasons == {
        "delta": "id",
        "beta": "mention",
        "gamma": "neighbor",
        "alpha": "top",
        "eps": "recent",
        "old": "supersedes",
    }
    assert [e.key for e in branches.edges] == [
        ("alpha", "supersedes", "old"),
        ("beta", "relates-to", "delta"),
        ("beta", "uses", "gamma"),
    ]
    # label matching is normalized too; no mentions → top then recent
    assert [n.id for n in store.load_branches(mentions=["beta service"], top=0, recent=0).nodes][
        :1
    ] == ["beta"]
    plain = store.load_branches(top=3, recent=0, now=later)
    top3 = sorted(
        store.get_nodes(["alpha", "beta", "gamma", "delta", "old", "eps"]).values(),
        key=lambda n: (-effective_weight(n, later), n.id),
    )[:3]
    assert [n.id for n in plain.nodes][:3] == [n.id for n in top3]
    assert store.load_branches(scope="elsewhere", mentions=["beta"]).nodes == ()


def test_load_branches_without_edges_and_rows_read_again(store: WarmStore) -> None:
    """``edges=False`` selects the same nodes (superseded ones included), without edges; a
    node read again after a merge changed its row is the new one, never a remembered copy."""
    flush(
        store,
        hot(
            "s1",
            [node("alpha", 0.9), node("old", 0.6), node("beta", 0.4)],
            [edge("alpha", "supersedes", "old", 0.9), edge("alpha", "uses", "beta", 0.5)],
        ),
        T0,
    )
    later = T0 + timedelta(days=3)
    full = store.load_branches(top=1, recent=1, now=later)
    bare = store.load_branches(top=1, recent=1, now=later, edges=False)
    assert [n.id for n in bare.nodes] == [n.id for n in full.nodes]
    assert {n.id for n in bare.nodes} >= {"alpha", "old"}
    assert bare.reasons == full.reasons and bare.edges == () and len(full.edges) >= 1
    before = store.get_nodes(["beta"])["beta"]
    assert store.get_nodes(["beta"])["beta"] == before
    flush(store, hot("s2", [node("beta", 0.8)]), later)
    after = store.get_nodes(["beta"])["beta"]
    assert after.last_seen == later and after.sessions_seen == before.sessions_seen + 1
    assert next(n for n in store.load_branches(top=3, now=later).nodes if n.id == "beta") == after


# --------------------------------------------------------------------------- graduation


def _three_sessions(store: WarmStore) -> datetime:
    now = T0
    for k in range(3):
        now = T0 + timedelta(hours=k)
        flush(
            store,
            hot(
                f"s{k}",
                [node("g", 0.9), node("h", 0.9), node("n1", 0.3), node("n2", 0.3)],
                [
                    edge("g", "uses", "n1", 0.5),
                    edge("n2", "informs", "g", 0.5),
                    edge("g", "extends", "n1", 0.5),
                    edge("h", "uses", "n1", 0.5),
                ],
            ),
            now,
        )
    flush(
        store,
        hot("s9", [node("i", 0.9)], [edge("i", "uses", "n1", 0.5), edge("i", "uses", "n2", 0.5)]),
        now,
    )
    return now


def test_graduation_candidates(store: WarmStore) -> None:
    now = _three_sessions(store)
    candidates = store.graduation_candidates(3, 0.6, 2, now=now)
    assert [(c.node.id, c.neighbors) for c in candidates] == [("g", 2)]
    assert candidates[0].node.sessions_seen == 3
    assert candidates[0].weight_now == pytest.approx(effective_weight(candidates[0].node, now))
    assert store.graduation_candidates(3, 0.6, 1, now=now)[1].node.id == "h"
    assert store.graduation_candidates(3, 0.6, 2, now=now + timedelta(days=60)) == []
    store.put_draft("g", "Prefer g.", now=now)
    assert store.graduation_candidates(3, 0.6, 2, now=now) == []
    assert [
        c.node.id for c in store.graduation_candidates(3, 0.6, 2, now=now, include_drafted=True)
    ] == ["g"]


def test_draft_lifecycle(store: WarmStore) -> None:
    now = _three_sessions(store)
    d = store.put_draft("g", "We use g.", now=now)
    assert (d.status, d.draft, d.created_at, d.reviewed_at) == ("pending", "We use g.", now, None)
    later = now + timedelta(hours=1)
    d2 = store.put_draft("g", "We always use g.", now=later)
    assert (d2.draft, d2.created_at, d2.updated_at) == ("We always use g.", now, later)
    assert store.counts().drafts_pending == 1
    with pytest.raises(DraftError):
        store.review_draft("g", "edited", now=later)  # an edit needs its text
    with pytest.raises(DraftError):
        store.review_draft("nope", "approved")
    done = store.review_draft("g", "edited", text="Use g for X.", now=later)
    assert (done.status, done.final_text, done.reviewed_at) == ("edited", "Use g for X.", later)
    assert store.get_draft("g") == done
    for again in (lambda: store.review_draft("g", "rejected"), lambda: store.put_draft("g", "x")):
        with pytest.raises(DraftError):
            again()
    store.put_draft("h", "h draft", now=later)
    store.review_draft("h", "rejected", now=later)
    store.put_draft("i", "i draft", now=later + timedelta(seconds=1))
    approved = store.review_draft("i", "approved", now=later)
    assert approved.final_text == "i draft"
    assert [x.node_id for x in store.list_drafts()] == ["g", "h", "i"]
    assert [x.node_id for x in store.list_drafts(status="rejected")] == ["h"]
    assert store.counts().drafts_pending == 0


# --------------------------------------------------------------------------- anchors


def test_anchors_and_at_floor_since(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 1.0, anchor=True), node("plain", 0.9)]), T0)
    a = store.get_nodes(["a"])["a"]
    assert (a.anchor, a.floor, a.weight) == (True, 0.2, pytest.approx(0.8))
    reaches = T0 + timedelta(days=30 * math.log(0.8 / 0.2))
    assert abs((a.at_floor_since - reaches).total_seconds()) < 1
    assert effective_weight(a, T0 + timedelta(days=365)) == pytest.approx(0.2)
    assert store.anchors(at_floor_before=T0 + timedelta(days=41)) == []
    assert [n.id for n in store.anchors(at_floor_before=T0 + timedelta(days=42))] == ["a"]
    assert [n.id for n in store.anchors()] == ["a"]
    assert store.counts().anchors == 1

    # a lukewarm sighting of an anchor sitting at its floor keeps its at-floor date
    t1 = T0 + timedelta(days=100)
    flush(store, hot("s1", [node("a", 0.1)]), t1, seq=2)  # same session: no bonus
    a1 = store.get_nodes(["a"])["a"]
    assert a1.weight == pytest.approx(0.2)
    assert a1.at_floor_since == a.at_floor_since
    # a new session brings it back above the floor: at-floor date moves into the future
    t2 = t1 + timedelta(days=1)
    flush(store, hot("s2", [node("a", 0.1)]), t2)
    a2 = store.get_nodes(["a"])["a"]
    assert a2.weight == pytest.approx(0.2 + 0.1 * 0.8)
    assert a2.at_floor_since > t2
    assert a2.sessions_seen == 2


def test_new_anchor_below_floor(store: WarmStore) -> None:
    flush(store, hot("s1", [node("low", 0.1, anchor=True)]), T0)
    low = store.get_nodes(["low"])["low"]
    assert (low.weight, low.at_floor_since) == (pytest.approx(0.2), T0)
