"""Register ``rolling-graph mcp`` with a client, and remove exactly that registration.

Claude Code reads MCP servers from three places, one per scope (like the hooks' scopes):

- ``user``    — ``~/.claude.json``, top-level ``mcpServers`` (every project);
- ``project`` — ``<project>/.mcp.json``, ``mcpServers`` (shared through the repository; Claude
  Code asks each person once before starting a project server);
- ``local``   — ``~/.claude.json``, ``projects[<absolute project path>].mcpServers``.

Our entry is the one named :data:`SERVER_NAME` whose command is a ``rolling-graph``
executable run with ``mcp``: uninstall removes that and nothing else. A marker file in the
data home lists the registrations, so that the injected block mentions the tools only while
a registration exists (``mcp_hint = "auto"``). Standard library only.

:func:`mcp_server_entry` is what other clients' installers (Codex, Gemini CLI) reuse.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from rolling_graph.harness.install.claude_code import (
    SCOPES,
    console_script,
    read_json,
    settle_json,
    write_json,
)

SERVER_NAME = "rolling-graph"
MARKER = "mcp-registrations.json"


def mcp_server_entry(executable: str | None = None) -> dict[str, Any]:
    """How to start our MCP server: ``{"command": <abs rolling-graph>, "args": ["mcp"]}``.

    The same executable as the hooks (this environment's console script), so the server and
    the hooks always talk to the same worker and data home.
    """
    return {"command": console_script(executable), "args": ["mcp"]}


def config_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if scope == "project":
        return (cwd or Path.cwd()) / ".mcp.json"
    return (home or Path.home()) / ".claude.json"


def is_ours(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    return Path(entry["command"]).name == "rolling-graph" and entry.get("args") == ["mcp"]


def _servers(data: dict[str, Any], scope: str, cwd: Path, create: bool) -> dict[str, Any] | None:
    """The ``mcpServers`` object of the scope inside a loaded file (created if asked)."""
    holder: Any = data
    if scope == "local":
        projects = data.get("projects")
        if not isinstance(projects, dict):
            if not create:
                return None
            projects = data["projects"] = {}
        holder = projects.get(str(cwd))
        if not isinstance(holder, dict):
            if not create:
                return None
            holder = projects[str(cwd)] = {}
    servers = holder.get("mcpServers")
    if not isinstance(servers, dict):
        if not create:
            return None
        servers = holder["mcpServers"] = {}
    return servers


def register(
    scope: str,
    *,
    cwd: Path | None = None,
    home: Path | None = None,
    path: Path | None = None,
    executable: str | None = None,
    marker_home: Path | None = None,
) -> tuple[bool, Path, Path | None]:
    """Add (or update) our server entry. Returns (changed, file, backup). ``marker_home`` is
    the data home whose marker turns the block's hint on (default: the environment's)."""
    cwd = (cwd or Path.cwd()).absolute()
    path = path or config_path(scope, cwd, home)
    data = read_json(path)
    servers = _servers(data, scope, cwd, create=True)
    assert servers is not None
    existing = servers.get(SERVER_NAME)
    if existing is not None and not is_ours(existing):
        raise ValueError(f"an MCP server named {SERVER_NAME!r} that is not ours is registered")
    entry = {"type": "stdio", **mcp_server_entry(executable), "env": {}}
    if existing == entry:
        _mark(path, scope, add=True, home=marker_home)
        return False, path, None
    others = json.loads(json.dumps(data))
    _strip(others, scope, cwd)
    servers[SERVER_NAME] = entry
    backup = write_json(path, data, keep=bool(others))  # no backup of a file only we wrote
    _mark(path, scope, add=True, home=marker_home)
    return True, path, backup


def unregister(
    scope: str,
    *,
    cwd: Path | None = None,
    home: Path | None = None,
    path: Path | None = None,
    marker_home: Path | None = None,
) -> tuple[bool, Path, Path | None]:
    """Remove exactly our entry (and containers it leaves empty). Returns (changed, file, backup)."""
    cwd = (cwd or Path.cwd()).absolute()
    path = path or config_path(scope, cwd, home)
    _mark(path, scope, add=False, home=marker_home)
    if not path.exists():
        return False, path, None
    data = read_json(path)
    servers = _servers(data, scope, cwd, create=False)
    if servers is None or not is_ours(servers.get(SERVER_NAME)):
        return False, path, None
    _strip(data, scope, cwd)
    return True, path, settle_json(path, data)


def _strip(data: dict[str, Any], scope: str, cwd: Path) -> None:
    """Remove our entry from a loaded file, and the containers it leaves empty."""
    servers = _servers(data, scope, cwd, create=False)
    if servers is None or SERVER_NAME not in servers:
        return
    del servers[SERVER_NAME]
    if not servers:
        if scope != "local":
            del data["mcpServers"]
        else:
            projects = data["projects"]
            del projects[str(cwd)]["mcpServers"]
            if not projects[str(cwd)]:
                del projects[str(cwd)]
            if not projects:
                del data["projects"]


def registered(scope: str, *, cwd: Path | None = None, home: Path | None = None) -> Path | None:
    """The file holding our entry for ``scope``, or None."""
    cwd = (cwd or Path.cwd()).absolute()
    path = config_path(scope, cwd, home)
    try:
        servers = _servers(read_json(path), scope, cwd, create=False)
    except (OSError, ValueError):
        return None
    return path if servers is not None and is_ours(servers.get(SERVER_NAME)) else None


def registered_entry(scope: str, *, cwd: Path | None = None, home: Path | None = None) -> Any:
    cwd = (cwd or Path.cwd()).absolute()
    path = registered(scope, cwd=cwd, home=home)
    if path is None:
        return None
    servers = _servers(read_json(path), scope, cwd, create=False) or {}
    return servers.get(SERVER_NAME)


# ------------------------------------------------------------------------------- marker


def _mark(path: Path, scope: str, *, add: bool, home: Path | None) -> None:
    from rolling_graph.paths import data_home

    marker = Path(home or data_home()) / MARKER
    key = f"{scope}:{path.absolute()}"
    try:
        regs = json.loads(marker.read_text(encoding="utf-8"))
        regs = regs if isinstance(regs, list) else []
    except (OSError, ValueError):
        regs = []
    regs = [r for r in regs if r != key] + ([key] if add else [])
    if regs:
        marker.parent.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(regs), encoding="utf-8")
        os.replace(tmp, marker)
    else:
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()


def hint_enabled(mode: str, home: Path, harness: str = "claude-code") -> bool:
    """Whether the block names the tools: ``on``, ``off``, or ``auto`` (a registration exists).

    The registrations are Claude Code's (``install claude-code``): under ``auto`` a Codex,
    Gemini CLI or Copilot CLI session, which does not have the tools, gets no hint."""
    if mode in ("on", "off"):
        return mode == "on"
    return harness == "claude-code" and (Path(home) / MARKER).exists()
