"""``/graph`` in the real Claude Code: ``install claude-code`` writes the command, and Claude Code
runs it for the current session (``${CLAUDE_SESSION_ID}``), with and without arguments. What the
command printed reaches the model as the prompt; the stand-in API's request log shows it."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.view.sample import build_session

from .fake_messages_api import FakeMessagesAPI, last_user_text
from .harness import ClaudeHarness


def _rg(claude: ClaudeHarness, env: dict[str, str], *args: str) -> str:
    exe = Path(sys.executable).parent / "rolling-graph"
    proc = subprocess.run(
        [str(exe), *args],
        cwd=claude.project,
        env=claude.env(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout


@pytest.fixture
def graph_setup(claude: ClaudeHarness, tmp_path: Path) -> tuple[ClaudeHarness, dict[str, str], str]:
    data = tmp_path / "rg-data"
    env = {
        "ROLLING_GRAPH_HOME": str(data),
        "ROLLING_GRAPH_CONFIG": str(tmp_path / "rg.toml"),
        "ROLLING_GRAPH_LOAD_PLUGINS": "0",
    }
    out = _rg(claude, env, "install", "claude-code", "--scope", "project")
    command = claude.project / ".claude" / "commands" / "graph.md"
    assert f"/graph command: {command}" in out
    # The graph is built by the test, so keep the hooks from changing it during the run (the
    # hook path has its own end-to-end suite); the command file stays as install wrote it.
    settings = claude.project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"permissions": {}}))
    sid = str(uuid.uuid4())
    build_session(data, sid)
    # A decoy that is more recent: the command must pick the current session, not the latest.
    decoy = build_session(data, "decoy-session")
    decoy.graph.nodes.clear()
    decoy.graph.edges.clear()
    decoy.save()
    return claude, env, sid


def _prompt_sent(api: FakeMessagesAPI, marker: str) -> str:
    texts = [last_user_text(b) for b in api.requests()]
    hits = [t for t in texts if marker in t]
    assert hits, f"no request carried {marker!r}; last prompts: {[t[:300] for t in texts[-3:]]}"
    return hits[-1]


def test_graph_prints_the_current_sessions_tree(
    graph_setup: tuple[ClaudeHarness, dict[str, str], str], fake_api: FakeMessagesAPI
) -> None:
    claude, env, sid = graph_setup
    res = claude.run("/graph", extra_args=["--session-id", sid], env=env, allowed_tools=())
    assert not res.get("is_error"), res
    sent = _prompt_sent(fake_api, "rolling-graph's memory of this session")
    assert f"session {sid} · turn 4 · 6 nodes, 3 edges" in sent
    assert "supersedes → Use Resend" in sent
    assert "Got unexpected extra argument" not in sent and "Error" not in sent


def test_graph_node_expands_one_node(
    graph_setup: tuple[ClaudeHarness, dict[str, str], str], fake_api: FakeMessagesAPI
) -> None:
    claude, env, sid = graph_setup
    claude.run("/graph use bento", extra_args=["--session-id", sid], env=env, allowed_tools=())
    sent = _prompt_sent(fake_api, "rolling-graph's memory of this session")
    assert "Use Bento (use-bento)" in sent
    assert "turn 3: add node (offline) — correction: actually, Bento instead of Resend" in sent


def test_graph_view_writes_the_html(
    graph_setup: tuple[ClaudeHarness, dict[str, str], str], fake_api: FakeMessagesAPI
) -> None:
    claude, env, sid = graph_setup
    claude.run("/graph view", extra_args=["--session-id", sid], env=env, allowed_tools=())
    sent = _prompt_sent(fake_api, "HTML view written to ")
    path = Path(env["ROLLING_GRAPH_HOME"]) / "views" / f"{sid}.html"
    assert f"HTML view written to {path}" in sent
    assert path.read_text(encoding="utf-8").count("cytoscape") > 0
