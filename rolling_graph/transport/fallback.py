"""What the hook prints when the worker is out of reach: the last rendered block, or nothing.

Standard library only, imported by the hook client on that path alone. SessionStart (each
harness's start event) always gets the block: the agent's context is new or was just
compacted. On the prompt event it is printed only once per block (a marker file remembers
which block the fallback delivered), so a hung worker does not repeat it on every prompt.
"""

from __future__ import annotations

import json
import os

# Per harness: (the start event, which always gets the fallback block; the prompt event, once)
FALLBACK_EVENTS = {
    "claude-code": ("SessionStart", "UserPromptSubmit"),
    "codex": ("SessionStart", "UserPromptSubmit"),
    "gemini": ("SessionStart", "BeforeAgent"),
    "copilot": ("sessionStart", "userPromptSubmitted"),
}


def _event_info(raw: bytes, event: str | None = None) -> tuple[str, str]:
    """(event name, session id) from the payload, cheaply; ("", "") if unreadable.

    ``event`` (from the command line) wins: Copilot CLI's payloads do not name the event."""
    if len(raw) > 1_000_000:
        return "", ""  # not worth parsing on the fallback path
    try:
        payload = json.loads(raw)
        name = event or payload.get("hook_event_name")
        sid = payload.get("session_id") or payload.get("sessionId")
        return (name if isinstance(name, str) else ""), (sid if isinstance(sid, str) else "")
    except Exception:  # noqa: BLE001
        return "", ""


def _format(harness: str, name: str, text: str) -> str:
    if harness == "claude-code":
        text = text if len(text) <= 9_500 else text[:9_499] + "…"
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}},
            ensure_ascii=False,
        )
    from rolling_graph.harness.adapters import (
        registry as adapters,  # stdlib-only modules; fallback path only
    )

    return str(adapters.get(harness).format_output(name, text))


def fallback_output(raw: bytes, harness: str = "claude-code", event: str | None = None) -> str:
    """The last rendered block of the session in ``harness``'s format, or ""."""
    name, sid = _event_info(raw, event)
    start, prompt = FALLBACK_EVENTS.get(harness, ("", ""))
    if name not in (start, prompt) or not sid:
        return ""
    try:
        from rolling_graph.paths import session_dir

        d = session_dir(sid)
        last = json.loads((d / "last_block.json").read_bytes())
        text = last.get("text") if isinstance(last, dict) else None
        if not isinstance(text, str) or not text:
            return ""
        if name == prompt:
            marker = d / "fallback_delivered"
            from rolling_graph.transport.protocol import fnv32

            sig = str(last.get("signature") or fnv32(text))
            try:
                if marker.read_text() == sig:
                    return ""
            except OSError:
                pass
            from rolling_graph.paths import open_private

            with open(open_private(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w") as fh:
                fh.write(sig)
        return _format(harness, name, text)
    except Exception:  # noqa: BLE001 - a missing or bad file just means no fallback
        return ""
