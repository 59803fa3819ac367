"""A team on one real PostgreSQL server: two login roles made by `warm init-team`, each
flushing and pulling through its own connection. The database, not the client, keeps one
person's personal rows from the other; project rows are shared and merge across both."""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.config import load_settings
from rolling_graph.core.hotstore import HotStore
from rolling_graph.warm import open_store, prepare_batch
from rolling_graph.warm.data_requests import forget_person, forgotten
from rolling_graph.warm.pg_team import SCOPED_TABLES, TEAM_ROLE, init_team, scram_verifier
from rolling_graph.warm.reconcile import Reconciler

from . import _workers
from ._hot import edge_op, hot_session, node_op
from .conftest import url_with_search_path

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass
class Team:
    admin: Any  # the tables' owner (the test's superuser): row-level security exempt
    schema: str
    a: str
    b: str
    dsn: dict[str, str]
    home: Path

    def url(self, who: str) -> str:
        return url_with_search_path(self.dsn[who], self.schema)

    def settings(self, who: str, **extra: Any) -> Any:
        return load_settings(
            home=self.home / who, warm=self.url(who), project="shop", probe="offline", **extra
        )

    def reconciler(self, who: str, **extra: Any) -> Reconciler:
        s = self.settings(who, **extra)
        return Reconciler(s, HotStore(Path(s.home)))

    def raw(self, who: str) -> Any:
        import psycopg

        conn = psycopg.connect(self.dsn[who], autocommit=True)
        conn.execute(f'SET search_path TO "{self.schema}"')
        return conn


@pytest.fixture
def team(pg_dsn: str, tmp_path: Path) -> Iterator[Team]:
    import psycopg
    from psycopg.conninfo import make_conninfo

    tag = uuid.uuid4().hex[:8]
    schema, a, b = f"rg_team_{tag}", f"ann_{tag}", f"bob_{tag}"
    admin = open_store(pg_dsn, tmp_path, schema=schema)
    init_team(admin, [a, b])
    dsn = {who: make_conninfo(pg_dsn, user=who) for who in (a, b)}
    try:
        yield Team(admin, schema, a, b, dsn, tmp_path)
    finally:
        admin.close()
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            for role in (a, b):
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def session_ops(person: str) -> list[dict[str, Any]]:
    person = person.replace("_", "-")  # node ids are slugs
    return [
        node_op("use-bento", 0.9, summary="chosen over Resend (deliverability)"),
        node_op("pytest-xdist", 0.7, domain="technical"),
        node_op(f"dentist-{person}", 0.8, domain="personal", label="Dentist appointment Tuesday"),
        node_op(f"maria-{person}", 0.7, domain="relationship", kind="person"),
        node_op(f"salary-{person}", 0.9, domain="personal", attrs={"private": "true"}),
        edge_op("use-bento", "uses", "pytest-xdist"),
        edge_op(f"maria-{person}", "relates-to", "use-bento"),
    ]


def flush_as(team: Team, who: str, sid: str, *, final: bool = True) -> Any:
    rec = team.reconciler(who)
    sess = hot_session(rec.hot, sid, session_ops(who))
    result = rec.flush(sess, final=final, now=T0)
    rec.close()
    return result


def pull_as(team: Team, who: str, sid: str) -> list[str]:
    rec = team.reconciler(who)
    sess = hot_session(rec.hot, sid, [])
    result = rec.pull(sess, None, now=T0)
    rec.close()
    assert result.error is None, result.error
    return result.nodes_added


def test_a_persons_personal_nodes_never_reach_a_teammates_pull(team: Team) -> None:
    result = flush_as(team, team.a, "a-1")
    assert result.scopes == {"shop": "applied", f"~{team.a}": "applied"}
    assert result.kept_private == 1
    b_pulled = set(pull_as(team, team.b, "b-1"))
    assert b_pulled == {"use-bento", "pytest-xdist"}
    a_pulled = set(pull_as(team, team.a, "a-2"))
    assert a_pulled == {
        "use-bento",
        "pytest-xdist",
        f"dentist-{team.a.replace('_', '-')}",
        f"maria-{team.a.replace('_', '-')}",
    }
    # The private node never reached the server, for anyone.
    assert team.admin.select("SELECT count(*) FROM rg_nodes WHERE id LIKE 'salary-%%'") == [(0,)]


def test_a_teammates_raw_select_returns_none_of_anothers_personal_rows(team: Team) -> None:
    import psycopg

    flush_as(team, team.a, "a-1")
    own = f"~{team.a}"
    for table in SCOPED_TABLES:
        if table in ("rg_drafts", "rg_forgotten"):
            continue  # (no rows of A there yet)
        seen_by_admin = team.admin.select(f"SELECT count(*) FROM {table} WHERE scope = %s", [own])
        assert seen_by_admin[0][0] > 0, table  # the rows exist…
    with team.raw(team.b) as conn:
        for table in SCOPED_TABLES:  # …and a hand-written query by B sees none of them
            rows = conn.execute(f"SELECT scope FROM {table}").fetchall()
            assert all(not r[0].startswith("~") for r in rows), table
            mine = conn.execute(f"SELECT count(*) FROM {table} WHERE scope = %s", (own,))
            assert mine.fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM rg_nodes WHERE scope = 'shop'").fetchone()[0]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(  # nor can B write into A's scope
                "INSERT INTO rg_nodes (scope, id, label, domain, weight, first_seen, last_seen)"
                " VALUES (%s, 'x', 'x', 'personal', 1, now(), now())",
                (own,),
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f'SET ROLE "{team.a}"')  # nor become A
        assert conn.execute("DELETE FROM rg_nodes WHERE scope = %s", (own,)).rowcount == 0
    assert team.admin.get_nodes([f"dentist-{team.a.replace('_', '-')}"], scope=own)  # still there


def test_shared_project_nodes_merge_across_both_with_session_counts(team: Team) -> None:
    flush_as(team, team.a, "a-1", final=False)  # pre-compaction flush…
    flush_as(team, team.a, "a-1")  # …then the session end: one session
    flush_as(team, team.b, "b-1")
    with open_store(team.url(team.a), team.home) as store:
        bento = store.get_nodes(["use-bento"], scope="shop")["use-bento"]
        assert bento.sessions_seen == 2
        assert store.node_sessions("use-bento", scope="shop") == ["a-1", "b-1"]
        persons = store.select(
            "SELECT session_id, person FROM rg_node_sightings WHERE scope = 'shop'"
            " AND node_id = 'use-bento' ORDER BY session_id"
        )
        assert persons == [("a-1", team.a), ("b-1", team.b)]
        # First seen by A (0.9 × 0.8 penalty), then B's session closes 10 % of the gap.
        assert bento.weight == pytest.approx(0.9 + 0.1 * (1 - 0.9))
        edge = store.get_edges(scope="shop", keys=[("use-bento", "uses", "pytest-xdist")])[0]
        assert edge.sessions_seen == 2
        creator = store.select(
            "SELECT person FROM rg_nodes WHERE scope = 'shop' AND id = %s", ["use-bento"]
        )
        assert creator == [(team.a,)]


def test_concurrent_flushes_by_both_people_lose_nothing(team: Team) -> None:
    sessions = {team.a: [f"a-{i}" for i in range(4)], team.b: [f"b-{i}" for i in range(4)]}
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(who: str, sid: str) -> None:
        try:
            with open_store(team.url(who), team.home) as store:
                start.wait(timeout=30)
                for seq in (1, 2):
                    doc = _workers.hot_doc(sid)
                    batch = prepare_batch(doc, flush_seq=seq, now=T0, scope="shop", person=who)
                    store.merge(batch)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w, s)) for w, ss in sessions.items() for s in ss]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    every = sorted(s for ss in sessions.values() for s in ss)
    shared = team.admin.get_nodes(["shared", "other"], scope="shop")
    assert shared["shared"].sessions_seen == shared["other"].sessions_seen == 8
    assert team.admin.node_sessions("shared", scope="shop") == every
    own = team.admin.get_nodes([f"own-{s}" for s in every], scope="shop")
    assert len(own) == 8 and all(n.sessions_seen == 1 for n in own.values())
    counted = team.admin.select("SELECT person, count(*) FROM rg_reconciliations GROUP BY person")
    assert sorted(counted) == [(team.a, 8), (team.b, 8)]  # 4 sessions × 2 flushes each


def test_forget_me_removes_my_rows_and_leaves_an_audit_only_i_see(team: Team) -> None:
    import psycopg

    flush_as(team, team.a, "a-1")
    flush_as(team, team.b, "b-1")
    own = f"~{team.a}"
    # B cannot forget A's own scope: the audit row is refused, so the whole request rolls back.
    with (
        open_store(team.url(team.b), team.home) as b_store,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        forget_person(b_store, team.a, own, actor=team.b)
    assert team.admin.get_nodes([f"dentist-{team.a.replace('_', '-')}"], scope=own)
    with open_store(team.url(team.a), team.home) as a_store:
        report = forget_person(a_store, team.a, own, actor=team.a)
        assert report.removed["rg_nodes"] == 3  # dentist, maria and the copy of use-bento
        assert report.removed["rg_node_sightings"] >= 5  # own scope + shop sightings
        audit = forgotten(a_store)
        assert [x["selector"] for x in audit] == [f"person {team.a}"]
    assert team.admin.counts(scope=own).nodes == 0
    bento = team.admin.get_nodes(["use-bento"], scope="shop")["use-bento"]
    assert bento.sessions_seen == 2  # shared knowledge stays…
    assert team.admin.node_sessions("use-bento", scope="shop") == ["b-1"]  # …A's trace goes
    assert team.admin.select("SELECT count(*) FROM rg_nodes WHERE person = %s", [team.a]) == [(0,)]
    assert team.admin.select("SELECT count(*) FROM rg_forgotten") == [(1,)]
    with team.raw(team.b) as conn:  # the audit of A's request is A's own
        assert conn.execute("SELECT count(*) FROM rg_forgotten").fetchone()[0] == 0


def test_init_team_cli_prints_what_it_did_and_is_idempotent(team: Team, pg_dsn: str) -> None:
    import psycopg

    carl = f"carl_{uuid.uuid4().hex[:8]}"
    admin_url = url_with_search_path(pg_dsn, team.schema)
    team.admin.statements([("CREATE TABLE app_secrets (x text)", [])])  # another app's table
    try:
        for _ in range(2):
            out = CliRunner().invoke(
                cli, ["warm", "init-team", carl, "--dsn", admin_url, "--passwords", "--json"]
            )
            assert out.exit_code == 0, out.output
            doc = json.loads(out.output)
            assert any(f"GRANT {TEAM_ROLE}" in s.replace('"', "") for s in doc["statements"])
            assert set(doc["passwords"]) == {carl}
            assert all(doc["passwords"][carl] not in s for s in doc["statements"])
        created = [s for s in doc["statements"] if s.startswith("CREATE ROLE")]
        assert created == []  # the second run found the roles there
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            row = conn.execute(
                "SELECT rolcanlogin, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s",
                (carl,),
            ).fetchone()
        assert row == (True, False, False)
        with psycopg.connect(pg_dsn, autocommit=True) as conn:  # a verifier, never the password
            stored = conn.execute(
                "SELECT rolpassword FROM pg_authid WHERE rolname = %s", (carl,)
            ).fetchone()[0]
        salt = base64.b64decode(stored.split("$")[1].split(":")[1])
        assert stored == scram_verifier(doc["passwords"][carl], salt=salt)
        with team.raw(team.b) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM app_secrets")  # the grants name our tables only
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{carl}"')


def test_two_peoples_sessions_replayed_give_each_their_own_block(team: Team) -> None:
    from ._team_replay import PROJECT, replay_team

    urls = {"ann": team.url(team.a), "bob": team.url(team.b)}
    blocks = replay_team(urls, team.home / "replay")

    def labels(scope: str, where: str = "") -> set[str]:
        rows = team.admin.select(f"SELECT label FROM rg_nodes WHERE scope = %s {where}", [scope])
        return {r[0] for r in rows}

    own = {"ann": labels(f"~{team.a}"), "bob": labels(f"~{team.b}")}
    decisions = labels(PROJECT, "AND kind = 'decision'")
    assert own["ann"] and own["bob"] and len(decisions) >= 2, (own, decisions)
    for person, other in (("ann", "bob"), ("bob", "ann")):
        block = blocks[person]
        assert any(label in block for label in own[person]), block  # their own, back
        assert not any(label in block for label in own[other]), block  # never the other's
        assert all(label in block for label in decisions), block  # the team's decisions
    # Each person's sessions fed the shared project: decisions by both are in both blocks.
    authors = team.admin.select("SELECT DISTINCT person FROM rg_nodes WHERE scope = %s", [PROJECT])
    assert {r[0] for r in authors} == {team.a, team.b}


def test_seed_into_the_own_scope_and_a_warning_for_a_role_that_bypasses(
    team: Team, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = tmp_path / "CLAUDE.md"
    memo.write_text("- Never push to main without a review\n")
    monkeypatch.setenv("ROLLING_GRAPH_WARM", team.url(team.a))
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "a-home"))
    out = CliRunner().invoke(cli, ["seed", str(memo), "--scope", "", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["scope"] == f"~{team.a}"
    assert team.admin.counts(scope=f"~{team.a}").anchors == 1
    with team.raw(team.b) as conn:
        assert conn.execute("SELECT count(*) FROM rg_nodes WHERE anchor").fetchone()[0] == 0
    setup = init_team(team.admin, ["postgres"])  # the test's superuser: it bypasses the policies
    assert any("'postgres'" in w for w in setup.warnings)


def test_doctor_fails_when_a_configured_person_is_not_the_enforced_role(team: Team) -> None:
    from rolling_graph.cli.doctor_cmds import check_warm

    ok = check_warm(team.settings(team.a))
    assert ok.ok and f"person {team.a}, own scope ~{team.a}" in ok.detail
    wrong = check_warm(team.settings(team.a, person="annie"))
    assert not wrong.ok and "is not your database role" in wrong.detail
    assert "leave person blank" in wrong.fix
