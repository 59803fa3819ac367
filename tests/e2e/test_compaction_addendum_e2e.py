"""After a compaction, the real Claude Code's next prompt carries the addendum: the names that
neither its own summary nor the SessionStart(compact) block says.

Claude Code writes its summary to the transcript after the compaction hooks ran, so the
SessionStart(compact) block cannot know it; the next UserPromptSubmit hook reads it. A small
block budget makes the compaction block leave names out, as a long session does at 800.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.render.addendum import HEAD

from .fake_messages_api import FakeMessagesAPI, text, text_of
from .harness import CLAUDE_CODE_VERSION, ClaudeHarness
from .scenario import Scenario

BUDGET = 240
FIELDS = [f"gauge_{i:02d}_offset" for i in range(40)]


def _texts(body: dict[str, Any]) -> str:
    system = body.get("system")
    parts = [text_of(system) if system else ""]
    parts += [text_of(m.get("content")) for m in body.get("messages", [])]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def after_compact(claude_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The text of the first model request after ``/compact`` (system and messages)."""
    base = tmp_path_factory.mktemp("e2e-addendum")
    with FakeMessagesAPI(base / "requests.jsonl") as api:
        sc = Scenario(ClaudeHarness(claude_bin, api, base / "scratch"), CLAUDE_CODE_VERSION)
        sc.env["ROLLING_GRAPH_BUDGET"] = str(BUDGET)
        listing = "The tide gauge has these calibration fields: " + ", ".join(
            f"`{f}`" for f in FIELDS
        )
        api.script.when("calibration fields", reply=[text(listing + ".")])
        with sc.environment():
            (sc.claude.project / "README.md").write_text("# tide gauges\n")
            sc._install()
            sc.rg_cmd("worker", "start")
            sid = sc._run(
                "fields", "List the calibration fields of the tide gauge.", None
            ).session_id
            sc._run("compact", "/compact", sid)
            after = sc._run("after", "Which of those fields drift in winter?", sid)
    assert after.requests, "no model request after /compact"
    return _texts(after.requests[0])


def test_the_first_prompt_after_compact_adds_what_the_summary_left_out(after_compact: str) -> None:
    lines = [ln for ln in after_compact.splitlines() if HEAD in ln]
    assert len(lines) == 1, after_compact[-3000:]
    line = lines[0][lines[0].index(HEAD) :]
    names = line[len(HEAD) :].rstrip(".").split(", ")
    assert names and set(names) <= set(FIELDS), names
    # The fields were only in the reply the compaction dropped: each name the addendum lists
    # is said nowhere else in the request (not by the summary, not by the compaction block).
    assert all(after_compact.count(n) == 1 for n in names), names
    assert "SessionStart hook additional context" in after_compact  # the block came too
    assert estimate_tokens(line) <= BUDGET // 5
    print("\nthe addendum as the model received it:\n" + line)
