"""A tiny hook command: append the stdin payload to a JSONL file, optionally inject a marker.

Usage (in settings.json): ``python hook_capture.py OUT.jsonl [--inject]``. With ``--inject`` it
prints ``hookSpecificOutput.additionalContext`` = ``RGMARK-<Event>-<detail>-<n>`` for the events whose
output schema accepts it (Stop is left out on purpose: there additionalContext makes the model
continue, see the payloads README). Stdlib only, so any python can run it.
"""

from __future__ import annotations

import json
import sys

# Events whose hookSpecificOutput.additionalContext Claude Code 2.1.330 accepts and feeds the model.
INJECTABLE = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}


def marker(payload: dict[str, object], n: int) -> str:
    """Unique per hook call (``n`` = payloads captured so far), so replays can be told apart."""
    event = str(payload.get("hook_event_name"))
    detail = payload.get("tool_name") or payload.get("source") or payload.get("trigger") or "any"
    return f"RGMARK-{event}-{detail}-{n}"


def main(argv: list[str]) -> int:
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {"_unparsed": raw}
    with open(argv[1], "a+") as f:
        f.seek(0)
        n = sum(1 for _ in f)
        f.write(json.dumps(payload) + "\n")
    event = payload.get("hook_event_name")
    if "--inject" in argv[2:] and event in INJECTABLE:
        out = {
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": marker(payload, n)}
        }
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
