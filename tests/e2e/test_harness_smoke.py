"""Prove the e2e harness: a trivial hook's additionalContext reaches the stand-in's next request,
and the transcript records the hook runs (exit code, duration)."""

from __future__ import annotations

import json
import shlex
import sys
import time

import pytest

from .fake_messages_api import text, tool_use
from .harness import ClaudeHarness
from .transcript import additional_contexts, hook_durations, hook_runs

pytestmark = pytest.mark.e2e

MARKER = "RG-SMOKE-7f3a"
# Echo hookSpecificOutput for whichever event called us; stdlib only so startup stays cheap.
_HOOK_CODE = (
    "import json,sys; p=json.load(sys.stdin); e=p['hook_event_name']; "
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': e, "
    f"'additionalContext': '{MARKER} ' + e}}}}))"
)
HOOK_CMD = f"{shlex.quote(sys.executable)} -c {shlex.quote(_HOOK_CODE)}"


def test_additional_context_reaches_model_and_transcript(
    claude: ClaudeHarness, record_property: pytest.RecordProperty
) -> None:
    claude.set_hooks(
        {"UserPromptSubmit": HOOK_CMD, "SessionStart": HOOK_CMD, "PostToolUse": HOOK_CMD}
    )
    api = claude.api
    api.script.when(
        "list the project",
        reply=[text("Listing."), tool_use("Bash", {"command": "echo smoke-listing"})],
    )
    api.script.when("smoke-listing", reply="The project is listed.")

    t0 = time.monotonic()
    result = claude.run("Please list the project.", allowed_tools=["Bash"])
    wall = time.monotonic() - t0
    sid = result["session_id"]
    assert result["result"] == "The project is listed."

    main = api.requests("main")
    assert len(main) == 2, [e.kind for e in api.exchanges]
    first, second = (json.dumps(b) for b in main)
    # UserPromptSubmit and SessionStart context are in the very first request...
    assert f"UserPromptSubmit hook additional context: {MARKER} UserPromptSubmit" in first
    assert f"SessionStart hook additional context: {MARKER} SessionStart" in first
    # ...and PostToolUse context arrives with the tool result in the next one.
    assert f"{MARKER} PostToolUse" not in first
    assert f"PostToolUse:Bash hook additional context: {MARKER} PostToolUse" in second

    lines = claude.transcript(sid)
    runs = hook_runs(lines)
    names = {r.hook_name for r in runs}
    assert {"SessionStart:startup", "PostToolUse:Bash"} <= names, names
    assert all(r.exit_code == 0 for r in runs), runs
    contexts = {r.hook_event: r.contexts for r in additional_contexts(lines)}
    assert contexts["UserPromptSubmit"] == [f"{MARKER} UserPromptSubmit"]

    durations = hook_durations(lines)
    assert durations and all(d >= 0 for ds in durations.values() for d in ds)
    record_property("hook_durations_ms", json.dumps(durations))
    record_property("claude_wall_s", round(wall, 3))
    print(f"claude wall {wall:.2f}s; hook durations (ms): {durations}")
