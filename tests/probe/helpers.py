"""What the probe tests share: one prompt through the offline probe, reading the graph back, and
checking that a labelled set's labels point at their prompts."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import build_patch
from rolling_graph.probe.runner import graph_view


def say(sess: HotSession, user: str, before: str = "") -> dict[str, Any]:
    """One prompt through the offline probe, with the agent's text that came before it."""
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    turns = [TurnDigest(turn - 1, "", assistant=before)] if before else []
    req = ProbeRequest("s", turn, [*turns, TurnDigest(turn, user)], nodes, edges)
    patch = build_patch(req)
    res = sess.apply(patch, PatchSource("offline", "offline.v1"))
    assert res.applied, res.error
    return patch


def kinds(sess: HotSession, kind: str) -> dict[str, Any]:
    return {n.label: n for n in sess.graph.nodes.values() if n.kind == kind}


def superseded(sess: HotSession) -> dict[str, str]:
    """source label → target label of each supersedes edge."""
    n = sess.graph.nodes
    return {
        n[e.source].label: n[e.target].label
        for e in sess.graph.edges.values()
        if e.relationship == "supersedes"
    }


def assert_labels_point_at_prompts(data: Path, sessions: list[dict], labels: list[dict]) -> None:
    """Each session has its prompt count as the reader counts prompts, and each label's
    ``prompt_sha1`` is that of its turn's whitespace-normalised text."""
    from rolling_graph.transcripts import UserPrompt, read_transcript

    for s in sessions:
        tr = read_transcript(data / "raw" / s["file"])
        prompts = [" ".join(e.text.split()) for e in tr.events if isinstance(e, UserPrompt)]
        assert len(prompts) == s["prompts"], s
        for lab in (x for x in labels if x["file"] == s["file"]):
            digest = hashlib.sha1(prompts[lab["turn"] - 1].encode()).hexdigest()[:12]
            assert digest == lab["prompt_sha1"], lab
