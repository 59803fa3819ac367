"""The memory tools in the real Claude Code: the scripted model calls ``memory_search``, then
``memory_expand`` on what it found; the tool results reach its next requests, the expanded
node's weight rises in the worker's graph, and the next block shows it (and names the tools).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.slug import slugify

from .fake_messages_api import FakeMessagesAPI, text, tool_use
from .harness import ClaudeHarness
from .scenario import HEADER, our_blocks_in, rolling_graph_bin

SEARCH = "mcp__rolling-graph__memory_search"
EXPAND = "mcp__rolling-graph__memory_expand"
MEMORY = "- Use Bento for transactional email: chosen over Resend for deliverability\n"


class Setup:
    def __init__(self, claude: ClaudeHarness, base: Path) -> None:
        self.claude = claude
        self.rg = rolling_graph_bin()
        self.data = base / "rg-data"
        # A short path: the worker's socket must fit in sun_path.
        self.runtime = Path(tempfile.mkdtemp(prefix="rg-mcp-e2e-"))
        os.chmod(self.runtime, 0o700)
        self.env = {
            "ROLLING_GRAPH_HOME": str(self.data),
            "ROLLING_GRAPH_CONFIG": str(base / "rg-config.toml"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "ROLLING_GRAPH_PROBE": "offline",
            "ROLLING_GRAPH_LOAD_PLUGINS": "0",
        }

    def rg_cmd(self, *args: str) -> str:
        proc = subprocess.run(
            [str(self.rg), *args],
            cwd=self.claude.project,
            env=self.claude.env(self.env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, f"rolling-graph {args}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    def audit(self, session: str) -> list[dict[str, Any]]:
        path = self.data / "sessions" / session / "audit.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def setup(claude: ClaudeHarness, tmp_path: Path) -> Iterator[Setup]:
    s = Setup(claude, tmp_path)
    try:
        yield s
    finally:
        subprocess.run(
            [str(s.rg), "worker", "stop"], env=claude.env(s.env), capture_output=True, check=False
        )
        shutil.rmtree(s.runtime, ignore_errors=True)


def _tool_results(body: dict[str, Any]) -> list[str]:
    out = []
    for msg in body.get("messages", []):
        content = msg.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                parts = inner if isinstance(inner, list) else [{"text": inner}]
                out.append("\n".join(str(p.get("text", "")) for p in parts))
    return out


def test_the_model_searches_then_expands_and_the_next_block_shows_it(
    setup: Setup, claude: ClaudeHarness, fake_api: FakeMessagesAPI
) -> None:
    out = setup.rg_cmd("install", "claude-code", "--scope", "local")
    assert "registered the rolling-graph MCP server" in out, out
    memories = claude.project.parent / "memories.md"
    memories.write_text(MEMORY)
    setup.rg_cmd("seed", str(memories))
    node = slugify(MEMORY[2:].strip())  # seed keeps the bullet as the label

    s = fake_api.script
    s.when("what did we decide about email", reply=[tool_use(SEARCH, {"query": "email bento"})])
    s.when("match(es) for", reply=[tool_use(EXPAND, {"node": node})])
    s.when("counts as an activation", reply=[text("We chose Bento over Resend.")])
    tools = ("Bash", SEARCH, EXPAND)
    first = claude.run("What did we decide about email?", allowed_tools=tools, env=setup.env)
    sid = str(first["session_id"])
    assert first["result"] == "We chose Bento over Resend.", first

    # The tool results reached the model's next requests.
    results = [r for body in fake_api.requests("main") for r in _tool_results(body)]
    found = [r for r in results if "match(es) for" in r]
    assert found and f"id {node}" in found[0], results
    expanded = [r for r in results if "counts as an activation" in r]
    assert expanded and "chosen over Resend for deliverability" in expanded[0], results

    # The expansion was an activation in the worker's graph: weight up, audited.
    audit = setup.audit(sid)
    pulled = [
        op["value"]["weight"]
        for rec in audit
        if rec.get("type") == "patch" and (rec.get("source") or {}).get("probe") == "warm"
        for op in rec["applied"]
        if op["path"] == f"/nodes/{node}"
    ]
    patches = [r for r in audit if r.get("type") == "patch"]
    expand = [r for r in patches if (r.get("source") or {}).get("probe", "").startswith("expand")]
    assert pulled and expand, audit
    raised = next(op["value"] for op in expand[-1]["applied"] if op["path"].endswith("/weight"))
    assert raised > pulled[0]
    graph = json.loads((setup.data / "sessions" / sid / "graph.json").read_text())
    assert graph["nodes"][node]["weight"] == raised

    # The next block (the resumed session's start) names the tools and the expanded decision.
    before = len(fake_api.requests("main"))
    claude.run("Thanks, carry on.", resume=sid, allowed_tools=tools, env=setup.env)
    later = fake_api.requests("main")[before:]
    blocks = [b for body in later for b in our_blocks_in(body)]
    assert blocks, "no rolling-memory block reached the model after the expansion"
    block = blocks[-1]
    first_line = block.splitlines()[0]
    assert first_line.startswith(HEADER) and "memory_search" in first_line, block
    assert "Use Bento for transactional email" in block, block
