"""Team (#20) and resume (#13) together: migrations appended in order, rows carrying both
``attrs`` and ``person``, project identity with the team's own scopes, and a legacy re-key
that never moves personal rows (every backend where a store is involved)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from rolling_graph.warm import WarmStore, postgres, sqlite
from rolling_graph.warm.identity import project_scope
from rolling_graph.warm.merge import prepare_batch
from rolling_graph.warm.pg_team import MIGRATIONS as TEAM_MIGRATIONS
from rolling_graph.warm.rekey import adopt_legacy_scope
from tests.git_repos import repo

from .test_contract import T0, edge, flush, hot, node


def test_attrs_is_appended_after_the_team_steps() -> None:
    # A database migrated by main's code (team included) gets attrs as one new step.
    assert len(sqlite.MIGRATIONS) == 21 and "attrs" in sqlite.MIGRATIONS[-1]
    assert not any("attrs" in m for m in sqlite.MIGRATIONS[:-1])
    assert "person" in sqlite.MIGRATIONS[12] and "rg_forgotten" in sqlite.MIGRATIONS[19]
    assert len(postgres.MIGRATIONS) == 36 and "attrs" in postgres.MIGRATIONS[-1]
    assert postgres.MIGRATIONS[13:35] == TEAM_MIGRATIONS
    assert not any("attrs" in m for m in postgres.MIGRATIONS[:-1])


def test_rows_carry_attrs_and_person(store: WarmStore) -> None:
    task = node("ship-it", 0.6, kind="task", attrs={"status": "pending"})
    doc = hot("s1", [task, node("b", 0.5)], [edge("ship-it", "uses", "b", 0.5)])
    batch = prepare_batch(doc, flush_seq=1, now=T0, scope="shop", person="ann")
    assert store.merge(batch).applied
    later = prepare_batch(
        hot("s2", [node("ship-it", 0.7, attrs={"status": "completed"})]),
        flush_seq=1,
        now=T0 + timedelta(hours=1),
        scope="shop",
        person="bob",
    )
    assert store.merge(later).applied  # the update path keeps the columns in order
    got = store.get_nodes(["ship-it"], scope="shop")["ship-it"]
    assert got.attrs == {"status": "completed"} and got.kind == "task" and got.label == "Ship-It"
    rows = store.select("SELECT id, person FROM rg_nodes WHERE scope = %s ORDER BY id", ["shop"])
    assert [tuple(r) for r in rows] == [("b", "ann"), ("ship-it", "ann")]  # the creator
    edges = store.select("SELECT person FROM rg_edges WHERE scope = %s", ["shop"])
    assert [r[0] for r in edges] == ["ann"]


class _Settings:
    def __init__(self, project: str = "") -> None:
        self.project = project


def test_outside_a_repository_the_scope_is_the_own_scope(tmp_path: Path) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    assert project_scope(_Settings(), str(plain), "~ann") == "~ann"  # never a shared ""
    assert project_scope(_Settings(), str(plain)) == ""  # SQLite: "" is the own scope
    assert project_scope(_Settings(), None, "~ann") == "~ann"
    assert project_scope(_Settings("~ann"), str(plain), "~bob") == "ann"  # never personal
    shop = repo(tmp_path / "shop", remote="git@github.com:acme/shop.git")
    assert project_scope(_Settings(), str(shop), "~ann") == "github.com/acme/shop"


def test_legacy_rekey_never_moves_personal_rows(store: WarmStore, tmp_path: Path) -> None:
    flush(store, hot("old-1", [node("use-bento", 0.6)]), T0, scope="shop")  # the folder's key
    flush(store, hot("old-2", [node("dentist", 0.6)]), T0, scope="~ann")
    plain = tmp_path / "shop"
    plain.mkdir()
    # Outside a repository the session's scope is the own scope: nothing adopted into it.
    assert adopt_legacy_scope(store, str(plain), "~ann", lambda _: None, "~ann") is None
    assert adopt_legacy_scope(store, str(plain), "", lambda _: None, "") is None
    assert store.counts(scope="shop").nodes == 1
    # In the repository, the folder's project rows move; the own scope stays where it is.
    shop = repo(tmp_path / "clone" / "shop", remote="https://github.com/acme/shop")
    key = "github.com/acme/shop"
    assert adopt_legacy_scope(store, str(shop), key, lambda _: None, "~ann") == "shop"
    assert set(store.get_nodes(["use-bento", "dentist"], scope=key)) == {"use-bento"}
    assert store.counts(scope="~ann").nodes == 1 and store.counts(scope="shop").nodes == 0
