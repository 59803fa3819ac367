"""What is shared: routing a flush by domain, private nodes, the person identity; and the
privacy commands (`warm forget`, `warm export`) on the single-person SQLite store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.config import load_settings
from rolling_graph.core.hotstore import HotStore
from rolling_graph.warm import open_store
from rolling_graph.warm.identity import dsn_user, own_scope, person_for, project_scope
from rolling_graph.warm.reconcile import Reconciler
from rolling_graph.warm.routing import route

from ._hot import edge_op, hot_session, node_op


def n(nid: str, domain: str, **extra: Any) -> dict[str, Any]:
    return {"id": nid, "label": nid, "domain": domain, "weight": 0.5, **extra}


def e(s: str, t: str) -> dict[str, Any]:
    return {"source": s, "target": t, "relationship": "relates-to", "strength": 0.5}


def doc(nodes: list[dict[str, Any]], edges: list[dict[str, Any]] = ()) -> dict[str, Any]:
    return {
        "session_id": "s",
        "turn": 3,
        "nodes": {x["id"]: x for x in nodes},
        "edges": {f"{x['source']}|relates-to|{x['target']}": x for x in edges},
    }


SESSION = [
    n("use-bento", "project"),
    n("pytest", "technical"),
    n("dentist-tuesday", "personal"),
    n("maria", "relationship"),
    n("salary", "personal", attrs={"private": "true"}),
]


def test_domains_go_to_their_scope_and_private_nodes_stay_home() -> None:
    routed = route(doc(SESSION), project="shop", personal="~ann")
    assert set(routed.parts) == {"shop", "~ann"}
    assert set(routed.parts["shop"]["nodes"]) == {"use-bento", "pytest"}
    assert set(routed.parts["~ann"]["nodes"]) == {"dentist-tuesday", "maria"}
    assert routed.private == ["salary"]
    assert all("salary" not in p["nodes"] for p in routed.parts.values())


def test_relationships_are_shared_only_when_configured() -> None:
    routed = route(doc(SESSION), project="shop", personal="~ann", share_relationships=True)
    assert "maria" in routed.parts["shop"]["nodes"]
    assert "maria" not in routed.parts["~ann"]["nodes"]


def test_a_person_node_is_a_relationship_whatever_its_domain() -> None:
    tom = n("tom", "project", kind="person")
    assert set(route(doc([tom]), project="shop", personal="~ann").parts) == {"~ann"}
    shared = route(doc([tom]), project="shop", personal="~ann", share_relationships=True)
    assert set(shared.parts) == {"shop"}


def test_edges_follow_their_nodes_and_never_touch_a_private_one() -> None:
    edges = [e("use-bento", "pytest"), e("maria", "use-bento"), e("use-bento", "salary")]
    routed = route(doc(SESSION, edges), project="shop", personal="~ann")
    shop, own = routed.parts["shop"], routed.parts["~ann"]
    assert set(shop["edges"]) == {"use-bento|relates-to|pytest"}
    # The cross edge reveals Maria: it stays personal, with a copy of its shared endpoint.
    assert set(own["edges"]) == {"maria|relates-to|use-bento"}
    assert "use-bento" in own["nodes"]
    assert routed.private_edges == ["use-bento|relates-to|salary"]
    assert "maria" not in shop["nodes"]


def test_one_scope_when_project_and_person_scope_coincide() -> None:
    routed = route(doc(SESSION), project="", personal="")
    assert list(routed.parts) == [""]
    assert set(routed.parts[""]["nodes"]) == {"use-bento", "pytest", "dentist-tuesday", "maria"}


def test_person_identity_and_own_scope(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGUSER", raising=False)
    assert dsn_user("postgresql://ann:pw@db.example/team") == "ann"
    assert dsn_user("postgresql:///team?host=/tmp&user=bob") == "bob"
    assert dsn_user("host=/tmp dbname=team user='carl o' port=5432") == "carl o"
    assert person_for("postgresql://ann@db/team", "") == "ann"
    assert person_for("postgresql://ann@db/team", "annie") == "annie"  # configured wins
    monkeypatch.setenv("PGUSER", "dora")
    assert person_for("postgresql://db/team", "") == "dora"  # libpq's own rule
    assert own_scope("postgresql://db/team", "dora") == "~dora"
    assert own_scope("sqlite:///x.db", "dora") == own_scope(None, "dora") == ""
    assert person_for(None, "") not in ("", "dora")  # the OS user


def test_a_project_key_never_starts_like_a_personal_scope() -> None:
    class S:
        project = "~ann"

    assert project_scope(S(), None) == "ann"


# --------------------------------------------------------------------------- SQLite flush


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> Any:
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_WARM", f"sqlite:///{tmp_path}/warm.db")
    monkeypatch.setenv("ROLLING_GRAPH_PROJECT", "shop")
    for key, value in env.items():
        monkeypatch.setenv(f"ROLLING_GRAPH_{key}", value)
    return load_settings()


def _flush_session(settings: Any) -> Any:
    rec = Reconciler(settings, HotStore(Path(settings.home)))
    ops = [
        node_op("use-bento", 0.9),
        node_op("dentist-tuesday", 0.8, domain="personal"),
        node_op("maria", 0.7, domain="relationship", kind="person"),
        node_op("salary", 0.9, domain="personal", attrs={"private": "true"}),
        edge_op("maria", "relates-to", "use-bento"),
    ]
    sess = hot_session(rec.hot, "s1", ops)
    result = rec.flush(sess, final=True)
    rec.close()
    return result


def test_sqlite_flush_routes_personal_items_to_the_own_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(tmp_path, monkeypatch, PERSON="ann")
    result = _flush_session(settings)
    assert result.status == "applied"
    assert result.scopes == {"shop": "applied", "": "applied"}
    assert result.kept_private == 1
    with open_store(settings.warm, Path(settings.home)) as w:
        assert set(w.get_nodes(["use-bento", "maria", "dentist-tuesday"], scope="shop")) == {
            "use-bento"
        }
        own = w.get_nodes(["use-bento", "maria", "dentist-tuesday", "salary"], scope="")
        assert set(own) == {"use-bento", "maria", "dentist-tuesday"}  # bento: the edge's end
        assert w.select("SELECT count(*) FROM rg_nodes WHERE id = %s", ["salary"]) == [(0,)]
        persons = {r[0] for r in w.select("SELECT DISTINCT person FROM rg_node_sightings")}
        assert persons == {"ann"}


def test_sqlite_export_and_forget_with_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(tmp_path, monkeypatch, PERSON="ann")
    _flush_session(settings)
    runner = CliRunner()
    out = runner.invoke(cli, ["warm", "export"])
    assert out.exit_code == 0, out.output
    exported = json.loads(out.output)
    assert exported["person"] == "ann"
    assert {x["id"] for x in exported["own"]["nodes"]} == {"use-bento", "maria", "dentist-tuesday"}
    assert [x["id"] for x in exported["shared"]["shop"]["nodes"]] == ["use-bento"]

    out = runner.invoke(cli, ["warm", "forget", "--own", "dentist-tuesday", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["removed"]["rg_nodes"] == 1 and report["removed"]["rg_node_sightings"] == 1
    out = runner.invoke(cli, ["warm", "forget", "--project", "--json"])
    assert json.loads(out.output)["removed"]["rg_nodes"] == 1  # use-bento in "shop"
    with open_store(settings.warm, Path(settings.home)) as w:
        assert not w.get_nodes(["dentist-tuesday"], scope="")
        assert w.counts(scope="shop").nodes == 0
        assert w.get_nodes(["maria"], scope="")  # the rest of the own scope stays
    audit = [
        json.loads(line) for line in runner.invoke(cli, ["warm", "forgotten"]).output.splitlines()
    ]
    assert [a["selector"] for a in audit] == ["node dentist-tuesday", "project shop"]
    assert audit[0]["actor"] == "ann" and audit[0]["nodes"] == ["dentist-tuesday"]


def test_forget_needs_exactly_one_selector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _settings(tmp_path, monkeypatch)
    out = CliRunner().invoke(cli, ["warm", "forget", "x", "--project"])
    assert out.exit_code != 0 and "exactly one" in out.output


def test_a_routed_flush_queues_one_outbox_entry_per_scope_while_the_server_is_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    down = f"postgresql://ann@/team?host={tmp_path}/no-server&connect_timeout=1"
    settings = _settings(tmp_path, monkeypatch, WARM=down)
    result = _flush_session(settings)
    assert result.status == "queued"
    assert result.scopes == {"shop": "queued", "~ann": "queued"}  # the person: the DSN's role
    rec = Reconciler(settings, HotStore(Path(settings.home)))
    entries = rec.outbox.entries()
    assert sorted(e.batch.scope for e in entries) == ["shop", "~ann"]
    assert {e.batch.person for e in entries} == {"ann"}
    assert not any(n.id == "salary" for e in entries for n in e.batch.nodes)  # never queued
    # Delivered later (here into a SQLite file standing in for the server), in order.
    later = Reconciler(settings, HotStore(Path(settings.home)), url=f"sqlite:///{tmp_path}/x.db")
    delivery = later.deliver_outbox()
    assert delivery.delivered == 2 and not later.outbox.entries()
    with open_store(f"sqlite:///{tmp_path}/x.db", tmp_path) as w:
        assert w.get_nodes(["dentist-tuesday"], scope="~ann")
        assert not w.get_nodes(["dentist-tuesday"], scope="shop")
    later.close()
    rec.close()
