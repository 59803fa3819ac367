"""The renderer's kept-in-step views (render_index) give what a pass over the whole graph gives.

Over random sequences of patches and decay steps, a graph whose index is updated turn by turn
renders byte for byte what a fresh copy of it renders (an index built at once), and the
indexed focus, mentions and hints equal full scans written out here the plain way.
"""

from __future__ import annotations

import heapq

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolling_graph.core.decay import DecayParams, decay_step, focus_cluster
from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import PatchSource, apply_patch
from rolling_graph.core.slug import normalize_term
from rolling_graph.render.lod import render
from rolling_graph.render.mentions import (
    _features,
    _stem,
    content_words,
    find_mentions,
    overlap,
)

SRC = PatchSource(probe="test")
WORDS = ["cache", "redis", "deploy", "api", "schema", "budget", "email", "bento", "worker", "queue"]
KINDS = [None, "task", "decision", "correction", "person", "file", "tool", "concept"]
RELS = ["relates-to", "uses", "supersedes", "part-of"]

_label = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
_op = st.one_of(
    st.tuples(st.just("node"), st.integers(0, 11), _label, st.sampled_from(KINDS), _label),
    st.tuples(st.just("edge"), st.integers(0, 11), st.integers(0, 11), st.sampled_from(RELS)),
    st.tuples(st.just("weight"), st.integers(0, 11), st.sampled_from(["strengthen", "weaken"])),
)
_turn = st.tuples(st.lists(_op, max_size=6), st.lists(st.sampled_from(WORDS), max_size=4))


def _patch(g: HotGraph, ops: list[tuple]) -> list[dict]:
    out: list[dict] = []
    added: set[int] = set()
    for op in ops:
        # One add per node per patch: a second add that sets a field the first did not have is
        # a patch-engine error of its own (JsonPatchPathNotFound), not what this test is about.
        if op[0] == "node" and op[1] not in added:
            _, i, label, kind, summary = op
            added.add(i)
            value = {"label": label, "domain": "technical", "summary": f"about {summary} here"}
            if kind:
                value["kind"] = kind
            out.append({"op": "add", "path": f"/nodes/n{i}", "value": value, "reason": "r"})
        elif op[0] == "edge" and op[1] != op[2] and {f"n{op[1]}", f"n{op[2]}"} <= set(g.nodes):
            key = f"n{op[1]}|{op[3]}|n{op[2]}"
            value = {"source": f"n{op[1]}", "target": f"n{op[2]}", "relationship": op[3]}
            out.append({"op": "add", "path": f"/edges/{key}", "value": value, "reason": "r"})
        elif op[0] == "weight" and f"n{op[1]}" in g.nodes:
            path = f"/nodes/n{op[1]}/weight"
            out.append({"op": "replace", "path": path, "value": op[2], "reason": "r"})
    return out


def _plain_focus(g: HotGraph, size: int) -> list[str]:
    retired = g.superseded_by()
    live = (n for n in g.nodes.values() if n.id not in retired)
    ranked = heapq.nsmallest(size, live, key=lambda n: (-n.last_activated, -n.weight, n.id))
    return [n.id for n in ranked]


def _plain_mentions(g: HotGraph, prompt: str) -> list[str]:
    hay = f" {normalize_term(prompt)} "
    words = {_stem(w) for w in content_words(prompt)}
    retired = set(g.superseded_by())
    found, by_word = [], []
    for node in g.nodes.values():
        f = _features(node)
        if any(name in hay for name in f.names):
            found.append(node.id)
        elif (
            node.kind in ("decision", "correction", "task", "person")
            and node.id not in retired
            and words & {_stem(w) for w in f.name_words}
        ):
            by_word.append(node.id)
    by_word.sort(key=lambda n: (-g.nodes[n].last_activated, -g.nodes[n].weight, n))
    return sorted(found + by_word[:3], key=lambda n: (-g.nodes[n].weight, n))


def _plainoverlap(g: HotGraph, prompt: str, exclude: set[str]) -> list[tuple[str, list[str]]]:
    words = content_words(prompt)
    scored = []
    for node in g.nodes.values():
        f = _features(node)
        name_hit, summary_hit = words & f.name_words, words & f.summary_words
        if node.id not in exclude and (name_hit or len(summary_hit) >= 2):
            score = -(len(name_hit) * 2 + len(summary_hit))
            scored.append((score, -node.weight, node.id, name_hit or summary_hit))
    best = heapq.nsmallest(3, scored, key=lambda t: t[:3])
    return [(nid, sorted(terms)) for _, _, nid, terms in best]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_turn, min_size=1, max_size=8), st.booleans())
def test_kept_in_step_render_equals_a_fresh_one(turns: list, breadth: bool) -> None:
    g = HotGraph(session_id="t")
    for ops, prompt_words in turns:
        g.turn += 1
        apply_patch(g, _patch(g, ops), source=SRC)
        decay_step(g, DecayParams())
        prompt = "what about " + " ".join(prompt_words)
        fresh = HotGraph.model_validate(g.to_json_dict())
        kept = render(g, budget=400, prompt=prompt, breadth=breadth)
        assert kept == render(fresh, budget=400, prompt=prompt, breadth=breadth)
        assert focus_cluster(g, 4) == _plain_focus(g, 4)
        assert find_mentions(g, prompt) == _plain_mentions(g, prompt)
        exclude = set(list(g.nodes)[:2])
        assert overlap(g, prompt, exclude) == _plainoverlap(g, prompt, exclude)
