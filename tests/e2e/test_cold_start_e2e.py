"""Cold start in the real Claude Code: no worker running, a new session, and its FIRST model
request already carries the project's memory (the SessionStart hook waits for the worker).

Ten fresh sessions, each after stopping the worker: 10/10 must carry the block. The memory is
seeded through the public CLI into the project's key (a git repository: its root commit).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .harness import CLAUDE_CODE_VERSION, ClaudeHarness
from .scenario import Scenario, our_blocks_in

RUNS = 10
MARKER = "Postmark"  # the seeded fact names it; nothing else in the session does
MEMORIES = f"""# Project memory
- Transactional email goes through {MARKER}, never Resend.
- The signup flow sends a confirmation email.
"""


def _git(project: Path, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)


def test_first_request_of_a_new_session_carries_memory_with_a_cold_worker(
    claude: ClaudeHarness,
) -> None:
    sc = Scenario(claude, CLAUDE_CODE_VERSION)
    project = claude.project
    (project / "README.md").write_text("# signup service\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", "README.md")
    _git(project, "commit", "-q", "-m", "first")
    memories = project.parent / "memories.md"
    memories.write_text(MEMORIES)
    with sc.environment():
        sc.rg_cmd("install", "claude-code", "--scope", "project")
        seeded = json.loads(sc.rg_cmd("seed", str(memories), "--json").stdout)
        assert seeded, "nothing was seeded"
        carried: list[bool] = []
        for i in range(RUNS):
            sc.rg_cmd("worker", "stop", "--wait", "10", check=False)
            status = json.loads(sc.rg_cmd("worker", "status", "--json", check=False).stdout)
            assert not status.get("running"), f"run {i}: the worker is still up: {status}"
            run = sc._run(f"cold{i}", "Hello, what should I work on today?", None)
            assert run.requests, f"run {i}: Claude Code sent no request"
            blocks = our_blocks_in(run.requests[0])
            carried.append(any(MARKER in b for b in blocks))
        print(f"\ncold starts whose first request carried the block: {sum(carried)}/{RUNS}")
        assert carried == [True] * RUNS
