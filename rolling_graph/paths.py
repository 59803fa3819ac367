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


# --- private by default: folders 0700, files 0600, whatever the umask --------------------

_PRIVATE_DONE: set[str] = set()


def private_dir(path: Path, root: Path | None = None) -> Path:
    """Create ``path`` (and parents) and make it, and each folder between it and ``root``
    (the data home), 0700. ``mkdir``'s mode covers only the leaf and is cut by the umask."""
    key = str(path)
    if key in _PRIVATE_DONE and path.is_dir():
        return path
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    stop = root if root is not None else path
    for d in (path, *path.parents):
        if d != stop and stop not in d.parents:
            break
        private_mode(d, 0o700)
        if d == stop:
            break
    _PRIVATE_DONE.add(key)
    return path


def private_mode(path: Path | str, mode: int = 0o600) -> None:
    """Narrow ``path`` to ``mode`` if it is ours and wider; never raises."""
    try:
        st = os.stat(path)
        if st.st_uid == os.getuid() and (st.st_mode & 0o777) != mode:
            os.chmod(path, mode)
    except OSError:
        pass


def open_private(path: Path | str, flags: int = os.O_WRONLY | os.O_APPEND | os.O_CREAT) -> int:
    """``os.open`` a file created 0600 (an existing wider one is narrowed); returns the fd."""
    fd = os.open(path, flags, 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
    except OSError:
        pass
    return fd


def private_db(path: Path) -> None:
    """Before SQLite opens ``path``: its folder 0700 and the file 0600. SQLite gives its -wal,
    -shm and -journal files the database file's mode; older ones are narrowed here too."""
    private_dir(path.parent)
    os.close(open_private(path, os.O_WRONLY | os.O_CREAT))
    for suffix in ("-wal", "-shm", "-journal"):
        if os.path.exists(f"{path}{suffix}"):
            private_mode(f"{path}{suffix}")
