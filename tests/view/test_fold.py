"""What the view shows first (``rolling_graph.view.fold``): the story stays, identifiers fold into
their file, the lightest of a crowded domain fold into it, and every node gets a position."""

from __future__ import annotations

from rolling_graph.core.decay import focus_cluster
from rolling_graph.view.fold import FILES_IN_PLAY, SHOWN_PER_DOMAIN, STORY_PER_DOMAIN, layout, plan

from .story import STORY_KINDS, story_graph


def test_story_stays_and_identifiers_fold_into_their_file() -> None:
    g, _ = story_graph(1000)
    focus = focus_cluster(g)
    p = plan(g, focus)
    story = {nid for nid, n in g.nodes.items() if n.kind in STORY_KINDS}
    assert story | set(focus) <= p.story
    assert not (p.story & (set(p.parent) | p.in_domain))  # 33 story nodes: none folds at 1,000
    files = sorted((n for n in g.nodes.values() if n.kind == "file"), key=lambda n: -n.weight)
    assert {n.id for n in files[:FILES_IN_PLAY]} <= p.story
    # Every identifier outside the focus is folded into the heaviest file it is part of.
    for nid, n in g.nodes.items():
        if n.kind is None and nid not in focus:
            files_of = [
                e.target
                for e in g.edges.values()
                if e.source == nid and e.relationship == "part-of"
            ]
            assert p.parent[nid] == max(files_of, key=lambda f: (g.nodes[f].weight, f)), nid
    # Each domain shows at most SHOWN_PER_DOMAIN nodes besides its story; the rest are folded.
    for domain in ("project", "technical", "relationship", "personal"):
        top = [
            nid
            for nid, n in g.nodes.items()
            if n.domain == domain and nid not in p.story and nid not in p.parent
        ]
        shown = [nid for nid in top if nid not in p.in_domain]
        assert len(shown) == min(len(top), SHOWN_PER_DOMAIN)
        assert min((g.nodes[i].weight for i in shown), default=1) >= max(
            (g.nodes[i].weight for i in top if i in p.in_domain), default=0
        )


def test_a_crowded_story_keeps_its_focus_and_heaviest() -> None:
    g, _ = story_graph(5000)
    focus = focus_cluster(g)
    p = plan(g, focus)
    decisions = [n for n in g.nodes.values() if n.domain == "project" and n.id in p.story]
    shown = [n for n in decisions if n.id not in p.in_domain]
    assert len(shown) == STORY_PER_DOMAIN < len(decisions)
    assert not (set(focus) & p.in_domain)
    pos, more = layout(g, focus, p)
    assert set(pos) == set(g.nodes) and len(set(pos.values())) == len(g.nodes)
    # A "more" node for each domain that folds something, and only for those.
    assert (
        set(more)
        == {g.nodes[i].domain for i in p.in_domain}
        == {
            "project",
            "technical",
            "personal",
        }
    )
