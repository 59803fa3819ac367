"""Replay a list of prompts through redaction, the offline probe and the patch engine, in
memory: the quickest way to see what the offline rules make of a session's prompts (tests,
bench/offline_probe.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ReplayResult:
    """What :func:`replay_prompts` did: the session, and every patch the engine refused."""

    session: Any
    probes: int = 0
    ops: int = 0
    rejected: list[str] = field(default_factory=list)


def replay_prompts(prompts: list[str], session_id: str = "replay", model: str = "") -> ReplayResult:
    """Feed prompts one per turn through redaction, the offline probe and the patch engine, with
    a decay step per turn as in the live pipeline (no gate: every turn is probed)."""
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession
    from rolling_graph.privacy.redact.secrets import redact
    from rolling_graph.probe.base import ProbeRequest, TurnDigest
    from rolling_graph.probe.offline import OfflineBackend
    from rolling_graph.probe.runner import graph_view

    sess = HotSession.in_memory(session_id)
    out = ReplayResult(sess)
    backend = OfflineBackend()
    backend.model = model
    for text in prompts:
        turn = sess.advance_turn()
        sess.decay()
        nodes, edges = graph_view(sess.graph, sess.params.decay.focus_size)
        req = ProbeRequest(
            session_id,
            turn,
            [TurnDigest(turn, redact(text))],
            nodes,
            edges,
            max_ops=sess.params.limits.max_ops,
            relationships=tuple(sorted(sess.params.limits.relationships)),
        )
        reply = backend.run(req)
        res = sess.apply(reply.raw, PatchSource(reply.backend, reply.prompt_id))
        out.probes += 1
        out.ops += res.ops_applied
        if not res.applied:
            out.rejected.append(f"turn {turn}: {res.error}")
    return out
