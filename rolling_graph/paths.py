"""Where rolling-graph keeps its files. Standard library only: the hook client uses it."""

from __future__ import annotations

import os
import re
from pathlib import Path

_SESSION_ID_OK = re.compile(r"[^A-Za-z0-9._-]")


def data_home() -> Path:
    """The data directory: ``ROLLING_GRAPH_HOME``, else ``$XDG_DATA_HOME/rolling-graph``."""
    explicit = os.environ.get("ROLLING_GRAPH_HOME")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg).expanduser() / "rolling-graph"


def config_file() -> Path:
    """The TOML config file: ``ROLLING_GRAPH_CONFIG``, else ``$XDG_CONFIG_HOME/rolling-graph/config.toml``."""
    explicit = os.environ.get("ROLLING_GRAPH_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg).expanduser() / "rolling-graph" / "config.toml"


def safe_session_id(session_id: str) -> str:
    """A session id usable as a directory name (harness ids are UUIDs; be defensive anyway)."""
    cleaned = _SESSION_ID_OK.sub("_", session_id.strip())[:128].lstrip(".")
    if not cleaned:
        raise ValueError(f"unusable session id: {session_id!r}")
    return cleaned


def sessions_dir(home: Path | None = None) -> Path:
    return (home or data_home()) / "sessions"


def session_dir(session_id: str, home: Path | None = None) -> Path:
    return sessions_dir(home) / safe_session_id(session_id)


def log_file(home: Path | None = None) -> Path:
    return (home or data_home()) / "rolling-graph.log"
