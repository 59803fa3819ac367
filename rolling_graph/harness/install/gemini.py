"""Install / uninstall our hooks in Gemini CLI's ``settings.json``.

Scopes: ``user`` (``~/.gemini/settings.json``) and ``project`` (``<cwd>/.gemini/settings.json``,
read only in a trusted folder). Layout as Claude Code's (event → groups → command handlers), but
timeouts are in **milliseconds** and each handler carries a ``name``. Idempotent, keeps every
other setting and hook, backs the file up before changing it; uninstall removes exactly our
handlers. A later MCP step would add ``mcpServers["rolling-graph"]`` to the same document.
Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rolling_graph.harness.install import claude_code as base

EVENTS: dict[str, int] = {
    # event → timeout in milliseconds (Gemini's unit); ceilings, the client answers in ~0.3 s.
    # SessionStart waits up to 20 s for a cold worker (transport.client.DEFAULT_START_BUDGET_MS).
    "SessionStart": 30_000,
    "BeforeAgent": 5_000,
    "BeforeTool": 5_000,
    "AfterTool": 5_000,
    "PreCompress": 10_000,
    "SessionEnd": 2_000,
}
SCOPES = ("user", "project")
MIN_TIMEOUT_MS = 500  # below this a timeout was surely written in seconds


def settings_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if scope == "user":
        return (home or Path.home()) / ".gemini" / "settings.json"
    return (cwd or Path.cwd()).absolute() / ".gemini" / "settings.json"


def hook_command(executable: str | None = None) -> str:
    return f"{base.hook_command(executable)} --harness gemini"


def desired_entries(command: str) -> dict[str, list[dict[str, Any]]]:
    handler = {"type": "command", "command": command, "name": "rolling-graph"}
    return {event: [{"hooks": [handler | {"timeout": ms}]}] for event, ms in EVENTS.items()}


def install(path: Path, command: str | None = None) -> tuple[bool, list[Path]]:
    """Add our entries to the settings file at ``path`` (JSON with comments: read, and written
    back with its comments; the original stays in the backup). (changed, backups)."""
    data = base._read(path, comments=True)
    before = json.dumps(data, sort_keys=True)
    hooks = json.loads(json.dumps(data.get("hooks") if isinstance(data.get("hooks"), dict) else {}))
    base._strip_ours(hooks)
    only_ours = not hooks and not any(k != "hooks" for k in data)
    for event, groups in desired_entries(command or hook_command()).items():
        existing = hooks.get(event)
        hooks[event] = (existing if isinstance(existing, list) else []) + groups
    data["hooks"] = hooks
    if json.dumps(data, sort_keys=True) == before:
        return False, []
    saved = base._write(path, data, keep=not only_ours, comments=True)
    return True, [saved] if saved else []


def uninstall(path: Path) -> tuple[bool, list[Path]]:
    changed, saved = base.uninstall(path, comments=True)
    return changed, [saved] if saved else []


def status(path: Path) -> tuple[list[str], list[str]]:
    """(events with our hook, problems): missing events, timeouts in the wrong unit."""
    try:
        data = base._read(path, comments=True)
    except (OSError, ValueError) as err:
        return [], [f"{path} is unreadable ({err})"]
    events = base.installed(path, comments=True)
    if not events:
        return [], []
    problems = []
    missing = sorted(set(EVENTS) - set(events))
    if missing:
        problems.append(f"{path} lacks {', '.join(missing)}")
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
                t = h.get("timeout") if base.is_ours(h) else None
                if isinstance(t, (int, float)) and t < MIN_TIMEOUT_MS:
                    problems.append(f"{event} timeout {t} is in seconds; Gemini reads ms")
    return events, problems
