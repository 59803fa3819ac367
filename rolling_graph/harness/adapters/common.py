"""What the harness adapters share: payload field access and tool-name normalization.

Standard library only (used on the hook path). The engine's observers speak Claude Code's tool
vocabulary (``Bash``, ``Read``, ``Write``, ``Edit`` with ``command`` / ``file_path``), so other
clients' tool calls are mapped onto it here, once, instead of teaching every observer each
client's names.
"""

from __future__ import annotations

import json
from typing import Any

from rolling_graph.harness.adapters.claude_code import PayloadError
from rolling_graph.paths import safe_session_id

# client tool name → Claude Code tool name
TOOL_ALIASES = {
    # Gemini CLI
    "run_shell_command": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "replace": "Edit",
    "glob": "Glob",
    "search_file_content": "Grep",
    "grep_search": "Grep",
    "write_todos": "TodoWrite",
    # Copilot CLI
    "bash": "Bash",
    "view": "Read",
    "create": "Write",
    "edit": "Edit",
    "grep": "Grep",
    # Codex CLI (older builds)
    "shell": "Bash",
    "exec_command": "Bash",
    "shell_command": "Bash",
    "apply_patch": "Edit",
    # pi (replayed from its session file; ``bash``/``edit``/``grep`` as above)
    "read": "Read",
    "write": "Write",
}
_PATH_KEYS = ("file_path", "path", "absolute_path", "filePath")


def str_field(payload: dict[str, Any], *keys: str, required: bool = False) -> str | None:
    """The first of ``keys`` present in ``payload`` as a string; PayloadError if not a string."""
    for key in keys:
        value = payload.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise PayloadError(f"field {key!r} must be a string")
        return value
    if required:
        raise PayloadError(f"missing field {keys[0]!r}")
    return None


def session_id(payload: dict[str, Any], *keys: str) -> str:
    sid = str_field(payload, *keys, required=True) or ""
    if not sid.strip():
        raise PayloadError("empty session_id")
    # Harness ids are UUIDs; anything else (huge, `../`) becomes a short, safe key.
    return safe_session_id(sid)


def tool_call(name: str, tool_input: Any) -> tuple[str, dict[str, Any]]:
    """(Claude-style tool name, input dict with ``file_path`` / ``command`` where known)."""
    if isinstance(tool_input, str):  # some clients send the arguments as a JSON string
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            tool_input = {"value": tool_input}
    if not isinstance(tool_input, dict):
        tool_input = {"value": tool_input} if tool_input is not None else {}
    canonical = TOOL_ALIASES.get(name, name)
    out = dict(tool_input)
    if "file_path" not in out:
        for key in _PATH_KEYS:
            if isinstance(out.get(key), str):
                out["file_path"] = out[key]
                break
    if canonical == "Bash" and "command" not in out and isinstance(out.get("cmd"), str):
        out["command"] = out["cmd"]
    if canonical == "Bash" and isinstance(out.get("command"), list):
        # Codex's older shell tool: ["bash", "-lc", "cmd"]
        parts = [str(p) for p in out["command"]]
        out["command"] = parts[-1] if len(parts) >= 3 and parts[1] == "-lc" else " ".join(parts)
    return canonical, out


def hook_specific(event_name: str, context: str, limit: int) -> str:
    """Claude-style ``hookSpecificOutput`` JSON (Codex and Gemini CLI read the same shape)."""
    if len(context) > limit:
        context = context[: limit - 1] + "…"
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}},
        ensure_ascii=False,
    )


def transcript_tool(fmt: str, name: str, tool_input: Any) -> tuple[str, dict[str, Any]]:
    """Replay's view of a transcript's tool call: Gemini CLI and Copilot CLI names mapped as
    their live adapters map them, pi's the same way; other formats as written (the
    Claude Code export and aider readers already give Claude Code's names)."""
    if fmt in ("gemini", "copilot", "pi"):
        return tool_call(name, tool_input)
    return name, dict(tool_input) if isinstance(tool_input, dict) else {}
