"""Install / uninstall our hook entries in Claude Code's ``settings.json``.

Scopes: ``user`` (``~/.claude/settings.json``), ``project`` (``<cwd>/.claude/settings.json``),
``local`` (``<cwd>/.claude/settings.local.json``). Install is idempotent, keeps every other
setting and hook, and backs a file up once before changing it (see :mod:`no_trace`). Our
entries are recognised by their command (it ends in ``rolling-graph hook`` — :data:`MARK` —
or in the standard-library client's path), so uninstall
removes exactly those and nothing else. Standard library only.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from rolling_graph.harness.install import jsonc, no_trace

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
    if Path(exe).name != exe:  # a bare name (``--scope project``) is looked up on PATH
        exe = str(Path(exe).absolute())
    return exe


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


def _read(path: Path, *, comments: bool = False) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    data = jsonc.loads(text, path, comments=comments)
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def backup(path: Path) -> Path | None:
    """Copy ``path`` aside once (``<name>.rolling-graph-backup``), if it exists and has no
    backup yet: the copy always holds the file as it was before rolling-graph changed it."""
    return no_trace.backup_once(path)


def write_text(path: Path, text: str, *, keep: bool = True) -> Path | None:
    """Back up the old file (once; not when ``keep`` is false: a file only rolling-graph
    wrote), then write atomically. Returns the backup made now, if any."""
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = backup(path) if keep else None
    no_trace.atomic_write(path, text)
    return saved


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _text(path: Path, data: dict[str, Any], comments: bool) -> str:
    """What to write: where the client reads comments, the file's own text with only the
    changed members rewritten (its comments stay); else plain JSON."""
    if comments and path.exists():
        kept = jsonc.update(path.read_text(encoding="utf-8"), data)
        if kept is not None:
            return kept
    return _dumps(data)


def _write(
    path: Path, data: dict[str, Any], *, keep: bool = True, comments: bool = False
) -> Path | None:
    return write_text(path, _text(path, data, comments), keep=keep)


def settle_json(path: Path, data: dict[str, Any], *, comments: bool = False) -> Path | None:
    """Uninstall's write: ``data`` is the file without our entries (see :mod:`no_trace`).
    Returns the backup kept (the file changed since install), if any."""

    def same(original: str) -> bool:
        try:
            return (
                jsonc.loads(original, path, comments=comments) if original.strip() else {}
            ) == data
        except ValueError:
            return False

    return no_trace.settle(path, _text(path, data, comments), empty=not data, same=same)[1]


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


def install(
    path: Path, command: str | None = None, *, comments: bool = False
) -> tuple[bool, Path | None]:
    """Add our entries to the settings file at ``path``. Returns (changed, backup)."""
    command = command or hook_command()
    data = _read(path, comments=comments)
    before = json.dumps(data, sort_keys=True)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    hooks = json.loads(json.dumps(hooks))  # deep copy
    _strip_ours(hooks)  # replaces an older install (e.g. another venv path) in place
    only_ours = not hooks and not any(k != "hooks" for k in data)  # no backup of our own file
    for event, groups in desired_entries(command).items():
        existing = hooks.get(event)
        hooks[event] = (existing if isinstance(existing, list) else []) + groups
    data["hooks"] = hooks
    if json.dumps(data, sort_keys=True) == before:
        return False, None
    return True, _write(path, data, keep=not only_ours)


def uninstall(path: Path, *, comments: bool = False) -> tuple[bool, Path | None]:
    """Remove exactly our entries from the settings file at ``path``: restores the file as it
    was when nothing else changed, deletes it when install created it. (changed, backup kept)."""
    data = _read(path, comments=comments)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not _strip_ours(hooks):
        return False, None
    if not hooks:
        del data["hooks"]
    return True, settle_json(path, data, comments=comments)


def installed(path: Path, *, comments: bool = False) -> list[str]:
    """The events for which our hook is present in ``path``."""
    try:
        hooks = _read(path, comments=comments).get("hooks") or {}
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
