"""The offline probe's known terms (probe.offline.plan.known_terms): a view's terms are kept
between probes, and the mapping, its order included, is what reading every view gives."""

from __future__ import annotations

from rolling_graph.core.slug import normalize_term
from rolling_graph.probe.base import NodeView, ProbeRequest
from rolling_graph.probe.offline.plan import known_terms


def _plain(req: ProbeRequest) -> dict[str, str]:
    known: dict[str, str] = {}
    for n in req.nodes:
        known.setdefault(normalize_term(n.id.replace("-", " ")), n.id)
        for a in n.aliases:
            known.setdefault(normalize_term(a), n.id)
    for n in req.nodes:
        known[normalize_term(n.label)] = n.id
    known.pop("", None)
    return known


def _view(nid: str, label: str, aliases: list[str] | None = None) -> NodeView:
    return NodeView(id=nid, label=label, domain="project", weight=0.5, aliases=aliases or [])


def test_known_terms_are_those_of_every_view_in_order() -> None:
    views = [
        _view("use-bento", "Use Bento", ["bento"]),
        _view("bento", "Bento", ["use bento"]),  # an alias an earlier id already holds
        _view("ci-pipeline", "CI pipeline", ["", "ci"]),
    ]
    req = ProbeRequest(session_id="s", turn=1, turns=[], nodes=views)
    assert list(known_terms(req).items()) == list(_plain(req).items())
    views[1].label = "Bento mail"  # a view changed in place is read again
    views[2].aliases.append("pipeline")
    again = ProbeRequest(session_id="s", turn=2, turns=[], nodes=[*views, _view("x-y", "XY")])
    assert list(known_terms(again).items()) == list(_plain(again).items())
    assert known_terms(again)["bento mail"] == "bento" and "pipeline" in known_terms(again)
