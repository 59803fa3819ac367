"""Install / uninstall our hooks in GitHub Copilot CLI: one hooks file of our own.

Scopes: ``user`` (``$COPILOT_HOME/hooks/rolling-graph.json``, default ``~/.copilot``) and
``project`` (``<cwd>/.github/hooks/rolling-graph.json``; Copilot loads repository hooks only
in a trusted folder, and in prompt mode only with ``GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS``).
Copilot's format: ``{"version": 1, "hooks": {event: [{"type": "command", "bash": …,
"timeoutSec": …}]}}``. Its payloads do not name the event, so each command passes
``--event``. Since the file is ours alone, uninstall removes it (restoring one it replaced), and no other
hook or setting is ever touched. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rolling_graph.harness.install import claude_code as base
from rolling_graph.harness.install import no_trace

EVENTS: dict[str, int] = {
    # event → timeout in seconds; ceilings, the client answers in ~0.3 s. sessionStart
    # waits up to 20 s for a cold worker (transport.client.DEFAULT_START_BUDGET_MS).
    "sessionStart": 30,
    "userPromptSubmitted": 5,
    "preToolUse": 5,
    "postToolUse": 5,
    "preCompact": 10,
    "sessionEnd": 2,
}
SCOPES = ("user", "project")
FILE_NAME = "rolling-graph.json"


def hooks_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if scope == "user":
        explicit = os.environ.get("COPILOT_HOME")
        root = Path(explicit).expanduser() if explicit else (home or Path.home()) / ".copilot"
        return root / "hooks" / FILE_NAME
    return (cwd or Path.cwd()).absolute() / ".github" / "hooks" / FILE_NAME


def hook_command(event: str, executable: str | None = None) -> str:
    return f"{base.hook_command(executable)} --harness copilot --event {event}"


def desired(executable: str | None = None) -> dict[str, Any]:
    return {
        "version": 1,
        "hooks": {
            event: [{"type": "command", "bash": hook_command(event, executable), "timeoutSec": t}]
            for event, t in EVENTS.items()
        },
    }


def install(path: Path, executable: str | None = None) -> tuple[bool, list[Path]]:
    """Write our hooks file. (changed, backups)."""
    data = desired(executable)
    try:
        if base._read(path) == data:
            return False, []
    except ValueError:
        pass  # unreadable: replaced (after the backup)
    ours = path.exists() and bool(status(path)[0])  # a file only we wrote needs no backup
    saved = base._write(path, data, keep=not ours)
    return True, [saved] if saved else []


def uninstall(path: Path) -> tuple[bool, list[Path]]:
    """Remove our file: the file it replaced comes back from its backup, if there was one."""
    if not path.exists():
        return False, []
    no_trace.settle(path, "", empty=True, same=lambda _original: True)
    return True, []


def status(path: Path) -> tuple[list[str], list[str]]:
    """(events with our hook, problems)."""
    if not path.exists():
        return [], []
    try:
        data = base._read(path)
    except (OSError, ValueError) as err:
        return [], [f"{path} is unreadable ({err})"]
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    events = sorted(
        e
        for e, hs in hooks.items()
        if isinstance(hs, list) and any(base.is_ours(h, "bash") for h in hs)
    )
    problems = []
    if data.get("version") != 1:
        problems.append(f'{path} lacks "version": 1')
    missing = sorted(set(EVENTS) - set(events))
    if missing:
        problems.append(f"{path} lacks {', '.join(missing)}")
    return events, problems
