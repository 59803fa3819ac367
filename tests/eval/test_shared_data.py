"""Replay every Claude Code transcript, and every pi session, Claude Code export and aider
history, in ../shared/data (skipped where it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.eval.replay import NotASessionError, Replayer
from tests.shared_data import manifest_rows, require_shared_data

pytestmark = pytest.mark.shared_data


def test_replay_every_shared_claude_code_transcript(tmp_path: Path) -> None:
    data = require_shared_data()
    rows = manifest_rows(data, ("claude-code",))
    assert rows, "MANIFEST lists no claude-code transcripts"
    # One Replayer for all: the pipeline starts once, sessions follow one another as in use.
    subagents: list[str] = []
    with Replayer(tmp_path) as rp:
        for row in rows:
            try:
                summ = rp.replay_file(row.path)
            except NotASessionError:  # a subagent's file: sidechain lines only
                subagents.append(row.name)
                continue
            assert summ.hook_events >= 2, row.name  # at least SessionStart and SessionEnd
            if row.human_prompts:
                assert summ.user_turns > 0, row.name
        doc = rp.finish()
    # Claude Code keeps them beside the parent, as <parent>/subagents/agent-<id>.jsonl.
    assert subagents and all("subagents__agent-" in name for name in subagents)
    replayed = len(rows) - len(subagents)
    assert len(doc["sessions"]) == replayed
    assert len({s["session_id"] for s in doc["sessions"]}) == replayed
    o = doc["overall"]
    assert o["user_turns"] > 100 and o["tool_steps"] > 1000
    assert o["injected_tokens_max"] <= doc["settings"]["budget"]
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert len(lines) == o["hook_events"]
    compactions = sum(r.compactions or 0 for r in rows)
    starts = [json.loads(x) for x in lines if '"session_start"' in x]
    assert sum(r["source"] == "compact" for r in starts) == compactions


def test_replay_every_shared_pi_export_and_aider_transcript(tmp_path: Path) -> None:
    """The replay-only kinds: every file replays, its prompts become turns, and the pipeline
    builds a graph from each session that has any prompt or tool step."""
    from rolling_graph.transcripts import UserPrompt, read_transcript

    data = require_shared_data()
    rows = manifest_rows(data, ("pi", "claude-code-export", "aider"))
    assert len(rows) >= 76
    with Replayer(tmp_path) as rp:
        for row in rows:
            tr = read_transcript(row.path)
            summ = rp.replay_file(row.path, transcript=tr)
            assert summ.format == row.kind
            assert summ.user_turns == sum(isinstance(e, UserPrompt) for e in tr.events), row.name
            assert summ.compactions == row.compactions, row.name
            if summ.user_turns or summ.tool_steps:
                assert summ.nodes > 0, row.name
        doc = rp.finish()
    assert len(doc["sessions"]) == len(rows)
    assert {s["format"] for s in doc["sessions"]} == {"pi", "claude-code-export", "aider"}
