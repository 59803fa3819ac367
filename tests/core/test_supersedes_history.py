"""Supersedes is a history, not a cycle: a new supersedes edge that would close a cycle drops
the older direction, in the patch engine (probe replies and observers alike), in an audit
rebuild, and in what the offline probe makes of a real exchange."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import PatchSource, apply_patch
from rolling_graph.core.patch.history import closes_cycle, keep_history
from rolling_graph.core.session import HotSession, rebuild_from_audit

SRC = PatchSource("test")


def node(nid: str, kind: str = "decision") -> dict[str, Any]:
    label = nid.replace("-", " ").capitalize()
    value = {"label": label, "domain": "project", "kind": kind}
    return {"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": "test"}


def sup(new: str, old: str) -> dict[str, Any]:
    value = {"source": new, "relationship": "supersedes", "target": old}
    return {"op": "add", "path": f"/edges/{new}|supersedes|{old}", "value": value, "reason": "t"}


def supersedes(graph: HotGraph) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.edges.values() if e.relationship == "supersedes"}


def acyclic(graph: HotGraph) -> bool:
    pairs: dict[str, tuple[str, str]] = {}
    for s, t in supersedes(graph):
        if closes_cycle(pairs, s, t):
            return False
        pairs[f"{s}|{t}"] = (s, t)
    return True


def graph_with(*patches: list[dict[str, Any]]) -> HotGraph:
    g = HotGraph(session_id="s")
    for ops in patches:
        res = apply_patch(g, ops, source=SRC)
        assert res.applied, res.error
        g.turn += 1
    return g


def test_the_latest_direction_wins() -> None:
    g = graph_with([node("use-resend"), node("use-bento"), sup("use-resend", "use-bento")])
    res = apply_patch(g, [sup("use-bento", "use-resend")], source=PatchSource("observer"))
    assert res.applied
    assert supersedes(g) == {("use-bento", "use-resend")}
    assert g.superseded_by() == {"use-resend": ["use-bento"]}
    assert {"op": "remove", "path": "/edges/use-resend|supersedes|use-bento"} in res.ops


def test_a_longer_cycle_loses_the_edge_that_says_the_new_source_was_superseded() -> None:
    g = graph_with(
        [node("a"), node("b"), node("c"), sup("a", "b"), sup("b", "c")],
        [sup("c", "a")],
    )
    # c is the latest word: "b supersedes c" goes, "a supersedes b" stays.
    assert supersedes(g) == {("a", "b"), ("c", "a")}
    assert acyclic(g)


def test_a_chain_that_closes_no_cycle_is_kept_whole() -> None:
    g = graph_with([node("a"), node("b"), node("c"), sup("b", "a"), sup("c", "b")], [sup("c", "a")])
    assert supersedes(g) == {("b", "a"), ("c", "b"), ("c", "a")}


def test_both_directions_in_one_patch_keep_the_later_op() -> None:
    g = graph_with([node("x"), node("y"), sup("x", "y"), sup("y", "x")])
    assert supersedes(g) == {("y", "x")}
    assert "x|supersedes|y" not in g.edges


def test_other_relationships_may_go_both_ways() -> None:
    rel = {"source": "y", "relationship": "relates-to", "target": "x"}
    g = graph_with(
        [node("x"), node("y"), sup("x", "y")],
        [{"op": "add", "path": "/edges/y|relates-to|x", "value": rel, "reason": "t"}],
    )
    assert "x|supersedes|y" in g.edges and "y|relates-to|x" in g.edges


def test_an_audit_rebuild_drops_the_overruled_edge_too(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    with store.lock("s"):
        sess = HotSession.open(store, "s")
        assert sess.apply([node("use-resend"), node("use-bento")], SRC).applied
        assert sess.apply([sup("use-resend", "use-bento")], SRC).applied
        sess.advance_turn()
        assert sess.apply([sup("use-bento", "use-resend")], SRC).applied
        sess.save()
        graph = sess.graph
    rebuilt = rebuild_from_audit("s", store.audit("s").records())
    assert set(rebuilt.edges) == set(graph.edges) == {"use-bento|supersedes|use-resend"}
    # The cached networkx view follows the removal (hop distances must not use a dropped edge).
    assert graph.nx_graph().number_of_edges() == 1


def test_keep_history_reads_newest_first() -> None:
    edges = [("a", "b"), ("b", "a"), ("c", "d")]  # newest first: a supersedes b is the word
    assert keep_history(edges, lambda e: e) == [("a", "b"), ("c", "d")]
    assert keep_history(edges[::-1], lambda e: e, newest_first=False) == [("c", "d"), ("a", "b")]


@pytest.mark.parametrize("flip_back", [False, True])
def test_offline_probe_on_a_change_of_mind_leaves_one_direction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flip_back: bool
) -> None:
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.pipeline.engine import Engine

    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    monkeypatch.setenv("ROLLING_GRAPH_WARM", "")
    prompts = [
        "For sending email let's go with Resend.",
        "Actually, Bento instead of Resend.",
    ]
    if flip_back:
        prompts.append("Actually, no: Resend instead of Bento after all.")
    engine = Engine(load_settings())
    try:
        engine.handle(HookEvent("session_start", "m", cwd=str(tmp_path), source="startup"))
        for p in prompts:
            engine.handle(HookEvent("prompt_submit", "m", cwd=str(tmp_path), prompt=p))
        graph = engine.sessions["m"].graph
    finally:
        engine.close()
    assert acyclic(graph)
    pairs = supersedes(graph)
    winner, loser = ("resend", "bento") if flip_back else ("bento", "resend")
    assert (winner, loser) in pairs and (loser, winner) not in pairs
