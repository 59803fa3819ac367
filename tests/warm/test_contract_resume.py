"""Warm-store contract, resume additions (every backend): node attributes, the nodes of one
session, moving a re-keyed project's rows, and the migration that adds ``attrs``."""

from __future__ import annotations

import importlib
from datetime import timedelta

from rolling_graph.warm import WarmStore

from .conftest import StoreSpec
from .test_contract import T0, flush, hot, node


def test_attrs_round_trip_and_merge(store: WarmStore) -> None:
    task = {"status": "in_progress", "due": "friday"}
    flush(store, hot("s1", [node("ship-it", 0.6, kind="task", attrs=task)]), T0)
    got = store.get_nodes(["ship-it"])["ship-it"]
    assert got.attrs == task and got.kind == "task"
    # The next session moves the status on and knows nothing of ``due``: status changes,
    # ``due`` stays (the session may not have pulled it).
    later = T0 + timedelta(days=1)
    flush(
        store, hot("s2", [node("ship-it", 0.6, kind="task", attrs={"status": "completed"})]), later
    )
    got = store.get_nodes(["ship-it"])["ship-it"]
    assert got.attrs == {"status": "completed", "due": "friday"}
    # Read back the same through every read path.
    branches = store.load_branches(top=5, recent=0, now=later)
    assert {n.id: n.attrs for n in branches.nodes}["ship-it"] == got.attrs


def test_attrs_capped_at_eight(store: WarmStore) -> None:
    many = {f"k{i}": str(i) for i in range(8)}
    flush(store, hot("s1", [node("a", 0.5, attrs=many)]), T0)
    flush(store, hot("s2", [node("a", 0.5, attrs={"extra": "x"})]), T0 + timedelta(hours=1))
    attrs = store.get_nodes(["a"])["a"].attrs
    assert len(attrs) == 8 and attrs["extra"] == "x"


def test_session_node_ids(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 0.5), node("b", 0.5)]), T0)
    flush(store, hot("s2", [node("b", 0.5), node("c", 0.5)]), T0 + timedelta(days=1))
    flush(store, hot("s2", [node("x", 0.5)]), T0, scope="other")
    assert store.session_node_ids("s1") == ["a", "b"]
    assert store.session_node_ids("s2") == ["b", "c"]
    assert store.session_node_ids("s2", scope="other") == ["x"]
    assert store.session_node_ids("nope") == []


def test_adopt_scope_moves_everything_once(store: WarmStore) -> None:
    flush(store, hot("s1", [node("a", 0.5), node("b", 0.5)], [edge_ab()]), T0, scope="proj")
    assert store.put_draft("a", "remember a", scope="proj", now=T0)
    assert store.adopt_scope("proj", "github.com/o/proj")
    assert store.counts(scope="proj").nodes == 0
    moved = store.counts(scope="github.com/o/proj")
    assert (moved.nodes, moved.edges, moved.sessions, moved.drafts_pending) == (2, 1, 1, 1)
    assert store.node_sessions("a", scope="github.com/o/proj") == ["s1"]
    # A flush of the same session under the new key is the same flush: applied once only.
    again = hot("s1", [node("a", 0.5)])
    from rolling_graph.warm import prepare_batch

    batch = prepare_batch(again, flush_seq=1, now=T0, scope="github.com/o/proj")
    assert not store.merge(batch).applied
    # Never into a scope that already holds data, and nothing to move twice.
    flush(store, hot("s9", [node("z", 0.5)]), T0, scope="proj")
    assert not store.adopt_scope("proj", "github.com/o/proj")
    assert store.counts(scope="proj").nodes == 1
    assert not store.adopt_scope("empty", "somewhere")
    assert not store.adopt_scope("proj", "proj")


def edge_ab() -> dict:
    return {"source": "a", "target": "b", "relationship": "relates-to", "strength": 0.5}


def test_attrs_migration_keeps_existing_rows(store_spec: StoreSpec) -> None:
    """A store at the version before ``attrs`` (rows written then) migrates in place."""
    s = store_spec.open()
    module = importlib.import_module(type(s).__module__)
    s.close()
    steps = module.MIGRATIONS
    at = next(i for i, m in enumerate(steps) if "attrs" in m)
    saved = list(steps)
    # A fresh location, migrated only up to the step before ``attrs``.
    old = _fresh(store_spec, "pre")
    try:
        steps[:] = saved[:at]
        with old.open() as pre:
            assert pre.schema_version() == at
            _insert_legacy_row(pre, module)
    finally:
        steps[:] = saved
    try:
        with old.open() as post:
            assert post.schema_version() == len(saved)
            legacy = post.get_nodes(["old"])["old"]
            assert legacy.attrs == {} and legacy.label == "Old"
            flush(post, hot("s2", [node("old", 0.5, attrs={"status": "pending"})]), T0)
            assert post.get_nodes(["old"])["old"].attrs == {"status": "pending"}
    finally:
        if old.schema:
            import psycopg

            with psycopg.connect(old.url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{old.schema}" CASCADE')


def _fresh(spec: StoreSpec, suffix: str) -> StoreSpec:
    if spec.backend == "sqlite":
        url = spec.url.replace("warm.sqlite3", f"warm-{suffix}.sqlite3")
        return StoreSpec(spec.backend, url, spec.home)
    return StoreSpec(spec.backend, spec.url, spec.home, f"{spec.schema}_{suffix}")


def _insert_legacy_row(store: WarmStore, module: object) -> None:
    """One node row as the pre-``attrs`` schema holds it (plain SQL, no ``attrs`` column)."""
    ts = T0
    if type(store).__name__.startswith("SQLite"):
        us = module.to_us(ts)  # type: ignore[attr-defined]
        with store._transaction():  # type: ignore[attr-defined]
            store.conn.execute(  # type: ignore[attr-defined]
                "INSERT INTO rg_nodes (scope, id, label, domain, weight, first_seen, last_seen)"
                " VALUES ('', 'old', 'Old', 'project', 0.5, ?, ?)",
                (us, us),
            )
    else:
        with store._transaction():  # type: ignore[attr-defined]
            store.conn.execute(  # type: ignore[attr-defined]
                "INSERT INTO rg_nodes (scope, id, label, domain, weight, first_seen, last_seen)"
                " VALUES ('', 'old', 'Old', 'project', 0.5, %s, %s)",
                (ts, ts),
            )
