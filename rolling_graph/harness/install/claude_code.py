"""Install / uninstall our hook entries in Claude Code's ``settings.json``.

Scopes: ``user`` (``~/.claude/settings.json``), ``project`` (``<cwd>/.claude/settings.json``),
``local`` (``<cwd>/.claude/settings.local.json``). Install is idempotent, keeps every other
setting and hook, and writes a timestamped backup before changing a file. Our entries are
recognised by their command (it ends in ``rolling-graph hook`` — :data:`MARK` — or in the
standard-library client's path), so uninstall
removes exactly those and nothing else. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

EVENTS: dict[str, int] = {
    # event → timeout in seconds (Claude Code's unit). The client answers within ~0.3 s and
    # degrades to printing nothing; the timeouts are a ceiling, never a wait. SessionStart
    # waits up to 20 s for a cold worker (transport.client.DEFAULT_START_BUDGET_MS): above that.
    "SessionStart": 30,
    "UserPromptSubmit": 5,
    "PreToolUse": 5,
    "PostToolUse": 5,
    "PreCompact": 10,
    "SessionEnd": 2,  # Claude Code shares ~1.5 s across all SessionEnd hooks anyway
}
MARK = "rolling-graph hook"
SCOPES = ("user", "project", "local")


def settings_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if scope == "user":
        return (home or Path.home()) / ".claude" / "settings.json"
    base = (cwd or Path.cwd()) / ".claude"
    return base / ("settings.json" if scope == "project" else "settings.local.json")


def console_script(executable: str | None = None) -> str:
    """Absolute path of this environment's ``rolling-graph`` console script (unquoted)."""
    exe = executable
    if not exe:
        here = Path(sys.executable).parent / "rolling-graph"
        exe = str(here) if here.exists() else (shutil.which("rolling-graph") or str(here))
    return str(Path(exe).absolute())


def _quote(path: str) -> str:
    return f'"{path}"' if " " in path else path


def hook_command(executable: str | None = None) -> str:
    """The hook command every installer writes (one place, so a portable form meets here).

    By default this environment's Python at the interpreter floor, ``-I -S`` (no ``site``, no
    ``PYTHON*`` variables), running the standard-library client by path
    (:mod:`rolling_graph.transport.stdlib_client`): a hook then starts as fast as a bare
    ``python -I -S`` (issue 31). Given a console script (``executable``), ``<it> hook``.
    """
    if executable:
        return f"{_quote(console_script(executable))} hook"
    from rolling_graph.transport import stdlib_client

    script = Path(stdlib_client.__file__).with_name("stdlib_hook.py")  # run by path
    python = str(Path(sys.executable).absolute())  # not resolved: a venv's link is the venv
    return f"{_quote(python)} -I -S {_quote(str(script))}"


# ``rolling-graph hook`` or ``python -I -S …/transport/stdlib_hook.py``, the program possibly
# quoted, possibly followed by our flags (``--harness codex``): all installers share this test.
_OURS = re.compile(
    r'(?:rolling-graph"? hook|transport[/\\]stdlib_hook\.py"?)(?:\s+--[a-z-]+\s+\S+)*\s*$'
)


def is_ours(hook: Any, key: str = "command") -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get(key), str)
        and _OURS.search(hook[key]) is not None
    )


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def backup(path: Path) -> Path | None:
    """Copy ``path`` aside with a timestamp, if it exists. Returns the copy's path."""
    if not path.exists():
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    copy = path.with_name(f"{path.name}.rolling-graph-backup-{stamp}")
    shutil.copy2(path, copy)
    return copy


def write_text(path: Path, text: str) -> Path | None:
    """Back up the old file (if any), then write atomically. Returns the backup path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = backup(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return saved


def _write(path: Path, data: dict[str, Any]) -> Path | None:
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _strip_ours(hooks: dict[str, Any]) -> bool:
    """Remove our hook commands everywhere; drop groups and events left empty by that."""
    changed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        new_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [h for h in group["hooks"] if not is_ours(h)]
                if len(kept) != len(group["hooks"]):
                    changed = True
                    if not kept:
                        continue
                    group = {**group, "hooks": kept}
            new_groups.append(group)
        if new_groups:
            hooks[event] = new_groups
        else:
            del hooks[event]
    return changed


def desired_entries(command: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event, timeout in EVENTS.items():
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": command, "timeout": timeout}]
        }
        if event in ("PreToolUse", "PostToolUse"):
            group = {"matcher": "*", **group}
        out[event] = [group]
    return out


def install(path: Path, command: str | None = None) -> tuple[bool, Path | None]:
    """Add our entries to the settings file at ``path``. Returns (changed, backup)."""
    command = command or hook_command()
    data = _read(path)
    before = json.dumps(data, sort_keys=True)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    hooks = json.loads(json.dumps(hooks))  # deep copy
    _strip_ours(hooks)  # replaces an older install (e.g. another venv path) in place
    for event, groups in desired_entries(command).items():
        existing = hooks.get(event)
        hooks[event] = (existing if isinstance(existing, list) else []) + groups
    data["hooks"] = hooks
    if json.dumps(data, sort_keys=True) == before:
        return False, None
    return True, _write(path, data)


def uninstall(path: Path) -> tuple[bool, Path | None]:
    """Remove exactly our entries from the settings file at ``path``. Returns (changed, backup)."""
    data = _read(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not _strip_ours(hooks):
        return False, None
    if not hooks:
        del data["hooks"]
    return True, _write(path, data)


def installed(path: Path) -> list[str]:
    """The events for which our hook is present in ``path``."""
    try:
        hooks = _read(path).get("hooks") or {}
    except (OSError, ValueError):
        return []
    return sorted(
        event
        for event, groups in hooks.items()
        if isinstance(groups, list)
        and any(
            isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or []) for g in groups
        )
    )


# Shared with the MCP registration (``mcp_install``): same reading rules, same backups.
read_json = _read
write_json = _write
