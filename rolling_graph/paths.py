"""Where rolling-graph keeps its files. Standard library only: the hook client uses it."""

from __future__ import annotations

import os
import re
from pathlib import Path

_SESSION_ID_BAD = re.compile(r"[^A-Za-z0-9._-]")
_SESSION_ID_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


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
    """A session id usable as a directory name and a short key (harness ids are UUIDs).

    A well-formed id (128 characters at most from ``[A-Za-z0-9._-]``) is kept as it is; any
    other is mapped to a readable stem plus a hash of the whole id, so a 5 MB or
    ``../../etc`` id becomes a short, distinct, safe key. Idempotent.
    """
    if _SESSION_ID_OK.fullmatch(session_id):
        return session_id
    if not session_id.strip():
        raise ValueError("unusable session id: empty")
    import hashlib  # only for odd ids: keeps the hook client's import cost down

    digest = hashlib.blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=10)
    stem = _SESSION_ID_BAD.sub("_", session_id[:40]).strip("._-")[:40]
    return f"{stem}-{digest.hexdigest()}" if stem else f"id-{digest.hexdigest()}"


def sessions_dir(home: Path | None = None) -> Path:
    return (home or data_home()) / "sessions"


def session_dir(session_id: str, home: Path | None = None) -> Path:
    return sessions_dir(home) / safe_session_id(session_id)


def log_file(home: Path | None = None) -> Path:
    return (home or data_home()) / "rolling-graph.log"
