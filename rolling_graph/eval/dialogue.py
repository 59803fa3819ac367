"""A transcript read as a dialogue, prompt by prompt, through the offline probe and the patch
engine: what the person said with the agent's text before it (what "yes, that one" answers).

Lighter than a whole replay (no hooks, no observers, no tool digests): it is how the tests read
every shared transcript for the decision labels the rules make, and how a rule is tried on a
session by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class DialogueResult:
    """The graph a dialogue ends with, and the decision labels it made (with their turn)."""

    graph: Any
    decisions: list[tuple[int, str]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def exchanges(path: Path) -> list[tuple[str, str]]:
    """(the agent's text before the prompt, the prompt) for each prompt of a transcript."""
    from rolling_graph.transcripts import AssistantText, UserPrompt, read_transcript

    out: list[tuple[str, str]] = []
    said: list[str] = []
    for ev in read_transcript(path).events:
        if isinstance(ev, AssistantText):
            said.append(ev.text)
        elif isinstance(ev, UserPrompt):
            out.append(("\n".join(said), ev.text))
            said = []
    return out


def replay_dialogue(pairs: list[tuple[str, str]], model: str = "") -> DialogueResult:
    """Each prompt probed alone, with the agent's text before it, in one in-memory session."""
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession
    from rolling_graph.privacy.redact.secrets import redact
    from rolling_graph.probe.base import ProbeRequest, TurnDigest
    from rolling_graph.probe.offline import OfflineBackend
    from rolling_graph.probe.runner import graph_view

    sess = HotSession.in_memory("dialogue")
    out = DialogueResult(sess.graph)
    backend = OfflineBackend()
    backend.model = model
    for before, prompt in pairs:
        turn = sess.advance_turn()
        sess.decay()
        nodes, edges = graph_view(sess.graph, sess.params.decay.focus_size)
        req = ProbeRequest(
            "dialogue",
            turn,
            [TurnDigest(turn, redact(prompt))],
            nodes,
            edges,
            max_ops=sess.params.limits.max_ops,
            relationships=tuple(sorted(sess.params.limits.relationships)),
            before=redact(before)[-6000:],
        )
        raw = backend.run(req).raw
        res = sess.apply(raw, PatchSource("offline", "offline.v1"))
        if not res.applied:
            out.rejected.append(f"turn {turn}: {res.error}")
            continue
        for op in raw["ops"]:
            value = op.get("value")
            if op["op"] == "add" and isinstance(value, dict) and value.get("kind") == "decision":
                out.decisions.append((turn, value["label"]))
    out.graph = sess.graph
    return out
