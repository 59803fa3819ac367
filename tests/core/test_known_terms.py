"""HotGraph.known_terms (what the gate treats as known): each node's terms are kept between
calls, and the answer is always what reading every node gives."""

from __future__ import annotations

from rolling_graph.core.model import HotGraph, Node
from rolling_graph.core.slug import normalize_term


def _plain(g: HotGraph) -> set[str]:
    terms = {normalize_term(n.label) for n in g.nodes.values()}
    terms.update(normalize_term(a) for n in g.nodes.values() for a in n.aliases)
    return terms - {""}


def _node(nid: str, label: str, aliases: list[str] | None = None) -> Node:
    return Node(
        id=nid, label=label, domain="project", weight=0.5, last_activated=1, aliases=aliases or []
    )


def test_known_terms_follow_every_change_to_the_nodes() -> None:
    g = HotGraph(session_id="s")
    g.nodes["bento"] = _node("bento", "Bento", ["bento.email"])
    g.nodes["resend"] = _node("resend", "Resend API")
    assert g.known_terms() == _plain(g) == {"bento", "bento email", "resend api"}
    g.nodes["bento"] = _node("bento", "Bento mailer")  # a patch swaps in a new object
    g.nodes["ci"] = _node("ci", "CI pipeline", ["GitHub Actions", "..."])
    assert g.known_terms() == _plain(g)
    g.nodes["resend"].label = "Resend"  # changed in place: still read again
    g.nodes["ci"].aliases.append("Buildkite")
    assert g.known_terms() == _plain(g) and {"resend", "buildkite"} <= g.known_terms()
    assert "resend api" not in g.known_terms()


def test_removed_nodes_leave_the_kept_terms() -> None:
    # each kept entry holds its node alive: a long session that removes nodes must not keep them
    g = HotGraph(session_id="s")
    for i in range(300):
        g.nodes[f"n{i}"] = _node(f"n{i}", f"Node {i}")
    g.known_terms()
    g.text_features(lambda n: n.label.lower())
    for i in range(290):
        del g.nodes[f"n{i}"]
    assert g.known_terms() == _plain(g) == {f"node {i}" for i in range(290, 300)}
    assert [f for _, f in g.text_features(lambda n: n.label.lower())] == [
        f"node {i}" for i in range(290, 300)
    ]
    assert len(g._known) <= 2 * len(g.nodes) + 64 and len(g._terms) <= 2 * len(g.nodes) + 64
