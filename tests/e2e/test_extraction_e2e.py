"""What enters the graph reaches the model, through the real Claude Code: a task, a decision
and its correction, a colleague with a deadline, a personal aside, and a switch to another task.

The person's prompts go through the installed hooks (offline probe, observers); the assertions
read the blocks the model received in its requests (the local Messages API stand-in logs them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .fake_messages_api import FakeMessagesAPI, tool_use
from .harness import CLAUDE_CODE_VERSION, ClaudeHarness
from .scenario import Scenario, our_blocks_in

PROMPTS = [
    ("task", "Please add CSV export to the reports page."),
    ("decision", "Let's use Redis for the cache of the export rows."),
    ("correction", "Actually, use memcached instead of Redis."),
    ("person", "Priya Raman from the platform team needs this by Friday, March 14."),
    ("aside", "Unrelated, but remind me to book my daughter's dentist appointment for Tuesday."),
    (
        "switch",
        "Now write the release notes for version 2.3, and make sure to use British spelling.",
    ),
    ("check", "Which cache backend did we settle on?"),
]


@pytest.fixture(scope="module")
def blocks(claude_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """The last block of ours in the first request of each turn, in turn order."""
    base = tmp_path_factory.mktemp("e2e-extraction")
    with FakeMessagesAPI(base / "requests.jsonl") as api:
        sc = Scenario(ClaudeHarness(claude_bin, api, base / "scratch"), CLAUDE_CODE_VERSION)
        reports = sc.claude.project / "reports.py"
        api.script.when(
            "CSV export",
            reply=[
                tool_use(
                    "Write",
                    {"file_path": str(reports), "content": "def export_csv(rows):\n    pass\n"},
                )
            ],
        )
        with sc.environment():
            (sc.claude.project / "README.md").write_text("# reports\n")
            sc._install()
            sc.rg_cmd("worker", "start")
            out: list[str] = []
            sid = None
            for name, prompt in PROMPTS:
                run = sc._run(name, prompt, sid)
                sid = run.session_id
                # The block that reached the model with the *next* turn is what this one added:
                # collect every turn's first request, then read them in order.
                found = our_blocks_in(run.requests[0]) if run.requests else []
                out.append(found[-1] if found else "")
            # After a compaction the full block (SessionStart(compact)) reaches the next request.
            sc._run("compact", "/compact", sid)
            after = sc._run("after", "Where were we?", sid)
            found = our_blocks_in(after.requests[0]) if after.requests else []
            out.append(found[-1] if found else "")
    yield out


def _after(blocks: list[str], name: str) -> str:
    """The last block the model received by the turn after ``name`` (facts of a turn reach
    the graph no later than the next turn)."""
    i = [n for n, _ in PROMPTS].index(name)
    return "\n".join(b for b in blocks[i + 1 : i + 3] if b)


def test_task_reaches_the_model(blocks: list[str]) -> None:
    text = _after(blocks, "task")
    assert "Add CSV export to the reports page" in text, text
    assert "reports.py" in text, text  # the file written while the task was in progress


def test_correction_supersedes_and_redis_is_never_current(blocks: list[str]) -> None:
    text = _after(blocks, "correction")
    assert "Use memcached" in text, text
    for line in text.splitlines():
        if "Redis" in line:
            # Redis appears only as what was replaced.
            assert "supersedes" in line, line
            assert not re.search(r"(?<!\()Redis(?![^()]*\))", line.split("supersedes")[0]), line


def test_person_with_team_and_deadline_not_dates_as_items(blocks: list[str]) -> None:
    text = _after(blocks, "person")
    assert "Priya Raman" in text, text
    assert "Fri 14 March" in text, text  # the deadline, as a fact of the task or the person
    for word in ("Friday", "March"):
        assert not re.search(rf"(?:^|[:,] ){word}\b", text, re.M), text  # never an item


def test_aside_is_personal_and_the_compaction_block_keeps_it(blocks: list[str]) -> None:
    full = blocks[-1]  # the block after /compact: the whole picture within the budget
    assert full.startswith("Rolling memory of this session"), full
    lines = [ln for ln in full.splitlines() if "dentist" in ln]
    assert lines and all("personal" in ln for ln in lines), full
    assert "Use memcached" in full and "Priya Raman" in full, full


def test_task_switch_moves_the_current_task(blocks: list[str]) -> None:
    text = _after(blocks, "switch")
    current = [ln for ln in text.splitlines() if ln.startswith("Task in progress:")]
    assert current and "release notes" in current[-1], text
    assert "British spelling" in text, text  # the requirement, kept with the task
    assert "Add CSV export to the reports page" in text  # the earlier task is still known


def test_question_names_the_decision(blocks: list[str]) -> None:
    last = blocks[-2]  # the block of the turn after "Which cache backend did we settle on?"
    assert "memcached" in last, last
