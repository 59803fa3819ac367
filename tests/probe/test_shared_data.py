"""Replay the real user prompts of every Claude Code transcript in ../shared/data through the
offline probe and the patch engine: zero patches may be rejected."""

from __future__ import annotations

import pytest

from rolling_graph.eval.prompt_replay import replay_prompts
from rolling_graph.transcripts import UserPrompt, read_transcript
from tests.shared_data import manifest_rows, require_shared_data


@pytest.mark.shared_data
def test_offline_probe_on_real_prompts_has_no_rejections() -> None:
    data_dir = require_shared_data()
    rows = manifest_rows(data_dir, ("claude-code",))
    assert rows, "MANIFEST.tsv lists no claude-code transcripts"
    total = 0
    rejected: list[str] = []
    nodes = 0
    for row in rows:
        prompts = [e.text for e in read_transcript(row.path).events if isinstance(e, UserPrompt)]
        res = replay_prompts(prompts, session_id="replay")
        total += res.probes
        nodes += len(res.session.graph.nodes)
        rejected += [f"{row.name}: {err}" for err in res.rejected]
    assert total > 100
    assert nodes > 50  # the probe does find things to record
    assert rejected == []


@pytest.mark.shared_data
def test_offline_probe_on_real_tool_activity_has_no_rejections() -> None:
    """Prompts and the digests of every tool call (as the probe plugin buffers them), probed
    every 10 tool calls and at every prompt: zero rejected patches, and tool-derived nodes."""
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession
    from rolling_graph.observe.digest import tool_digest
    from rolling_graph.privacy.redact.secrets import redact
    from rolling_graph.probe.base import ProbeRequest, TurnDigest
    from rolling_graph.probe.offline import OfflineBackend
    from rolling_graph.probe.runner import graph_view
    from rolling_graph.transcripts import ToolResult, ToolUse

    data_dir = require_shared_data()
    backend = OfflineBackend()
    rejected: list[str] = []
    probes = files = 0
    for row in manifest_rows(data_dir, ("claude-code",)):
        sess = HotSession.in_memory("replay")
        pending: dict[str, ToolUse] = {}
        digest = TurnDigest(0)

        def run(digest: TurnDigest, sess: HotSession = sess, name: str = row.name) -> None:
            nonlocal probes
            if not (digest.user or digest.tools):
                return
            nodes, edges = graph_view(sess.graph)
            req = ProbeRequest("replay", sess.graph.turn, [digest], nodes, edges)
            res = sess.apply(backend.run(req).raw, PatchSource("offline", "offline.v1"))
            probes += 1
            if not res.applied:
                rejected.append(f"{name} turn {sess.graph.turn}: {res.error}")

        for ev in read_transcript(row.path).events:
            if isinstance(ev, UserPrompt) and ev.text.strip():
                run(digest)
                turn = sess.advance_turn()
                sess.decay()
                digest = TurnDigest(turn, redact(ev.text))
            elif isinstance(ev, ToolUse):
                pending[ev.tool_use_id] = ev
            elif isinstance(ev, ToolResult) and ev.tool_use_id in pending:
                use = pending.pop(ev.tool_use_id)
                digest.tools.append(tool_digest(use.name, dict(use.input), ev.content, "/"))
                if len(digest.tools) >= 10:
                    run(digest)
                    digest = TurnDigest(digest.turn)
        run(digest)
        files += sum(1 for n in sess.graph.nodes.values() if n.kind == "file")
    assert probes > 200
    assert files > 50  # files the agents touched became nodes
    assert rejected == []
