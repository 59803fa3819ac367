"""Warm-store contract for what the agent's questions need: lexical search and a session's
nodes, on SQLite and on PostgreSQL (fixture ``store``)."""

from __future__ import annotations

from datetime import UTC, datetime

from rolling_graph.warm import WarmStore, prepare_batch

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _doc(session: str, nodes: list[dict]) -> dict:
    return {
        "schema": 1,
        "session_id": session,
        "turn": 3,
        "nodes": {n["id"]: {"domain": "project", **n} for n in nodes},
        "edges": {},
    }


def _flush(store: WarmStore, doc: dict, scope: str) -> None:
    batch = prepare_batch(doc, flush_seq=1, now=T0, scope=scope)
    assert store.merge(batch).applied


def _seed(store: WarmStore) -> None:
    _flush(
        store,
        _doc(
            "s1",
            [
                {"id": "use-bento", "label": "Use Bento for email", "weight": 0.9,
                 "summary": "chosen over Resend for deliverability", "kind": "decision"},
                {"id": "email-queue", "label": "Email queue", "weight": 0.4, "aliases": ["mailq"]},
                {"id": "rate_limit", "label": "Rate limit", "weight": 0.7},
                {"id": "postgres", "label": "PostgreSQL", "weight": 0.8, "summary": "100% sure"},
            ],
        ),
        "shop",
    )  # fmt: skip
    _flush(
        store,
        _doc("s2", [{"id": "email-templates", "label": "Email templates", "weight": 0.5}]),
        "blog",
    )


def test_search_ranks_by_words_matched_then_weight(store: WarmStore) -> None:
    _seed(store)
    got = store.search_nodes(["email", "bento"], scopes=["shop"], limit=10)
    assert [(n.id, hits) for n, hits in got] == [("use-bento", 2), ("email-queue", 1)]
    got = store.search_nodes(["queue", "mailq", "nothing"], scopes=["shop"])  # no summary
    assert [(n.id, hits) for n, hits in got] == [("email-queue", 2)]
    # Aliases and summaries match too; scopes are kept apart unless none is given.
    assert [n.id for n, _ in store.search_nodes(["mailq"], scopes=["shop"])] == ["email-queue"]
    assert [n.id for n, _ in store.search_nodes(["deliverability"], scopes=["shop"])] == [
        "use-bento"
    ]
    everywhere = {n.id for n, _ in store.search_nodes(["email"], scopes=None)}
    assert everywhere == {"use-bento", "email-queue", "email-templates"}
    assert store.search_nodes(["email"], scopes=["blog"], limit=1)[0][0].scope == "blog"


def test_search_treats_like_wildcards_as_plain_characters(store: WarmStore) -> None:
    _seed(store)
    assert store.search_nodes(["%"], scopes=["shop"]) != []  # the "100% sure" summary
    assert [n.id for n, _ in store.search_nodes(["%"], scopes=["shop"])] == ["postgres"]
    assert store.search_nodes(["e_ail"], scopes=["shop"]) == []  # "_" is no wildcard
    assert store.search_nodes([], scopes=["shop"]) == []
    assert store.search_nodes(["email"], scopes=[]) == []


def test_session_nodes_are_the_ones_it_sighted(store: WarmStore) -> None:
    _seed(store)
    ids = [n.id for n in store.session_nodes("s1", scope="shop")]
    assert ids == ["use-bento", "postgres", "rate_limit", "email-queue"]
    assert store.session_nodes("s1", scope="blog") == []
    assert [n.id for n in store.session_nodes("s1", scope="shop", limit=1)] == ["use-bento"]
