"""Replay the real user prompts of every Claude Code transcript in ../shared/data through the
offline probe and the patch engine: zero patches may be rejected."""

from __future__ import annotations

import pytest

from rolling_graph.probe.offline import replay_prompts
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
