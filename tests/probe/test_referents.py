"""A decision that names its subject by a definite noun ("do the cleanup next sprint", "just
proceed with the rewrite") keeps what that noun refers back to. Invented exchanges."""

from __future__ import annotations

from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import build_patch
from rolling_graph.probe.offline.referents import names_its_own, referent


def _decisions(user: str, before: str = "", earlier: str = "") -> dict[str, dict]:
    req = ProbeRequest("s", 5, [TurnDigest(5, user)], before=before, earlier=earlier)
    ops = build_patch(req)["ops"]
    return {
        op["value"]["label"]: op["value"]
        for op in ops
        if op["op"] == "add" and op["value"].get("kind") == "decision"
    }


def test_a_definite_noun_refers_back_within_the_prompt() -> None:
    prompt = (
        "What about the cleanup of the staging buckets:\n- old log archives\n"
        "- orphaned volume snapshots\nLet's do all the cleanup next sprint."
    )
    (node,) = _decisions(prompt).values()
    assert "cleanup" in node["label"].lower()
    assert (
        "orphaned volume snapshots" in node["attrs"]["about"]
        or "log archives" in (node["attrs"]["about"])
    )


def test_an_approval_refers_back_to_the_agents_earlier_message() -> None:
    earlier = (
        "Only `TokenStore.refresh()` still calls `legacy_fetch()` directly.\n\n"
        "So rewriting it touches two call sites, an easy change."
    )
    before = (
        "The retry wrapper already covers the timeout case.\n\n"
        "I'd say just proceed with the rewrite here, and the old cache can go later. "
        "Want me to go ahead?"
    )
    nodes = _decisions("yes let's do it", before=before, earlier=earlier)
    (node,) = [n for label, n in nodes.items() if "rewrite" in label]
    assert "legacy_fetch()" in node["attrs"]["about"]
    assert "TokenStore.refresh()" in node["attrs"]["about"]


def test_a_decision_that_names_its_thing_carries_nothing() -> None:
    before = "The queue could live in `jobs.sqlite` or in the main database."
    for node in _decisions("Let's use Postgres for the queue.", before=before).values():
        assert "about" not in (node.get("attrs") or {})


def test_no_referent_without_an_earlier_mention() -> None:
    assert referent("Schedule the audit for Friday", "", ["We fixed the flaky login test."]) is None
    assert referent("Keep the same layout", "", ["The layout is in `grid.css`."]) is None


def test_names_its_own() -> None:
    assert names_its_own("Use Redis for the cache")
    assert names_its_own("Keep `max_retries` at three")
    assert not names_its_own("I'd say just proceed with the rewrite")
    assert not names_its_own("Do all the cleanup in phase 2")
