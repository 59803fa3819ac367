"""The wire protocol between the hook client and the worker, and where the worker lives.

Standard library only: the hook client imports this on every hook.

Protocol (version 1), one request per connection over a Unix socket, JSON lines:

- request: one JSON header line ``{"v": 1, "op": "hook"|"recall"|"ping"|"status"|"stop",
  "client": VERSION, ...}``; for ``hook`` the header carries ``"len": N`` and exactly N raw
  payload bytes follow (no re-encoding of a payload that can be megabytes); ``recall`` (the MCP
  server's questions) carries ``"tool"`` and ``"cwd"`` in the header and the JSON arguments as
  the body;
- reply: one JSON line ``{"v": 1, "ok": true|false, "version": WORKER_VERSION, ...}``; for
  ``hook`` the stdout text is in ``"out"``; on failure ``"error"`` says why.

Also here: the socket-location and directory-permission rules (the socket directory must be
ours alone), shared by the client and the worker. ``ROLLING_GRAPH_SOCKET_DIR`` overrides the
socket directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat as _stat
import time

# The C module behind ``socket``: the Python wrapper pulls in selectors and enum machinery
# (~3 ms per hook) for features this client does not use.
from _socket import AF_UNIX, SOCK_STREAM
from _socket import socket as _unix_socket

from rolling_graph import __version__

PROTOCOL = 1
MAX_STDIN = 32 * 1024 * 1024  # the largest hook payload, on both sides (hook_handler.MAX_PAYLOAD)
MAX_REPLY = 4 * 1024 * 1024
MAX_HEADER = 64 * 1024
_UNIX_PATH_MAX = 104  # sun_path is 108 on Linux, 104 on macOS


# ---------------------------------------------------------------------------------------------
# Locations (shared by the client and the worker)
# ---------------------------------------------------------------------------------------------


def data_home() -> str:
    """Same rule as :func:`rolling_graph.paths.data_home`, without importing pathlib users."""
    explicit = os.environ.get("ROLLING_GRAPH_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(os.path.expanduser(xdg), "rolling-graph")


def fnv32(text: str) -> str:
    # A tiny stable hash (hashlib would cost an OpenSSL import on every hook).
    h = 0x811C9DC5
    for b in text.encode("utf-8", "surrogateescape"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def socket_dir() -> str:
    """Where the worker's socket, lock and info files live.

    ``ROLLING_GRAPH_SOCKET_DIR``, else ``$XDG_RUNTIME_DIR/rolling-graph`` (a per-user tmpfs),
    else ``<data home>/run``. One worker per data home: file names carry a hash of it.
    """
    explicit = os.environ.get("ROLLING_GRAPH_SOCKET_DIR")
    if explicit:
        return os.path.expanduser(explicit)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "rolling-graph")
    run = os.path.join(data_home(), "run")
    if len(run) + 30 > _UNIX_PATH_MAX:  # a deep home would overflow sun_path
        return os.path.join("/tmp", f"rolling-graph-{os.getuid()}")
    return run


def worker_files(directory: str | None = None) -> dict[str, str]:
    d = directory or socket_dir()
    tag = fnv32(os.path.abspath(data_home()))
    return {
        "dir": d,
        "socket": os.path.join(d, f"worker-{tag}.sock"),
        "lock": os.path.join(d, f"worker-{tag}.lock"),
        "info": os.path.join(d, f"worker-{tag}.json"),
        "spawn": os.path.join(d, f"worker-{tag}.spawn"),
    }


class SocketDirError(Exception):
    """The socket directory is unsafe (wrong owner, permissions, or not a directory)."""


def check_socket_dir(directory: str, create: bool = True) -> None:
    """Make sure ``directory`` is ours alone: a real directory, owned by us, mode 0700-ish.

    A missing directory is created with mode 0700. An existing one with the wrong owner or with
    group/other permissions is refused, never "fixed": it may be someone else's.
    """
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        if not create:
            raise SocketDirError(f"socket directory {directory} does not exist") from None
        parent = os.path.dirname(directory)
        if parent and not os.path.isdir(parent):
            os.makedirs(parent, mode=0o700, exist_ok=True)
            with contextlib.suppress(OSError):
                os.chmod(parent, 0o700)  # the data home, when the socket lives in it
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, 0o700)
        st = os.lstat(directory)
    if not _stat.S_ISDIR(st.st_mode):
        raise SocketDirError(
            f"refusing socket directory {directory}: not a directory (a symlink or file); "
            "remove it or set ROLLING_GRAPH_SOCKET_DIR"
        )
    uid = os.getuid()
    if st.st_uid != uid:
        raise SocketDirError(
            f"refusing socket directory {directory}: owned by uid {st.st_uid}, not by you "
            f"(uid {uid}); use a directory of your own (ROLLING_GRAPH_SOCKET_DIR)"
        )
    if st.st_mode & 0o077:
        raise SocketDirError(
            f"refusing socket directory {directory}: mode {_stat.S_IMODE(st.st_mode):04o} lets "
            f"others in; it must be 0700 (chmod 700 {directory}) or set ROLLING_GRAPH_SOCKET_DIR"
        )


# ---------------------------------------------------------------------------------------------
# One request: the client's side and the server's side
# ---------------------------------------------------------------------------------------------


class WorkerUnavailable(Exception):
    """No worker answered (absent, refused, or no reply before the deadline)."""

    def __init__(self, message: str, connected: bool = False) -> None:
        super().__init__(message)
        self.connected = connected  # the request may have reached the worker


def request(
    op: str,
    *,
    body: bytes | None = None,
    deadline: float,
    sock_path: str | None = None,
    **fields: object,
) -> dict[str, object]:
    """Send one request and return the decoded reply; raises WorkerUnavailable."""
    path = sock_path or worker_files()["socket"]
    header: dict[str, object] = {"v": PROTOCOL, "op": op, "client": __version__, **fields}
    if body is not None:
        header["len"] = len(body)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise WorkerUnavailable("budget spent before connecting")
    s = _unix_socket(AF_UNIX, SOCK_STREAM)
    try:
        s.settimeout(remaining)
        try:
            s.connect(path)
        except (FileNotFoundError, ConnectionRefusedError) as err:
            raise WorkerUnavailable(f"no worker at {path} ({type(err).__name__})") from None
        except OSError as err:
            raise WorkerUnavailable(f"cannot connect to {path}: {err}") from None
        try:
            data = json.dumps(header, separators=(",", ":")).encode() + b"\n"
            s.sendall(data + body if body is not None else data)
            chunks: list[bytes] = []
            size = 0
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                s.settimeout(remaining)
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if chunk.endswith(b"\n") or size > MAX_REPLY:
                    break
        except TimeoutError:
            raise WorkerUnavailable("no reply within the budget", connected=True) from None
        except OSError as err:
            raise WorkerUnavailable(f"connection failed: {err}", connected=True) from None
    finally:
        s.close()
    raw = b"".join(chunks)
    try:
        reply = json.loads(raw)
    except ValueError:
        raise WorkerUnavailable(f"unreadable reply ({len(raw)} bytes)", connected=True) from None
    if not isinstance(reply, dict):
        raise WorkerUnavailable("reply is not an object", connected=True)
    return reply


class BadRequest(Exception):
    """A request the worker cannot read (answered with ``ok: false``)."""


def read_request(conn: _unix_socket) -> tuple[dict[str, object], bytes]:
    """The server side of one request: its header line and its body (``len`` bytes)."""
    buf = b""
    while b"\n" not in buf:
        chunk = conn.recv(65536)
        if not chunk:
            raise BadRequest("connection closed before a request line")
        buf += chunk
        if len(buf) > MAX_HEADER and b"\n" not in buf[:MAX_HEADER]:
            raise BadRequest("request line too long")
    line, _, rest = buf.partition(b"\n")
    try:
        header = json.loads(line)
    except ValueError:
        raise BadRequest("request line is not JSON") from None
    if not isinstance(header, dict):
        raise BadRequest("request line is not an object")
    n = header.get("len")
    if n is None:
        return header, b""
    if not isinstance(n, int) or n < 0 or n > MAX_STDIN:
        raise BadRequest(f"bad body length {n!r}")
    chunks = [rest[:n]]
    got = len(chunks[0])
    while got < n:
        chunk = conn.recv(min(1 << 20, n - got))
        if not chunk:
            raise BadRequest("connection closed inside the body")
        chunks.append(chunk)
        got += len(chunk)
    return header, b"".join(chunks)


def version_tuple(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in str(version).split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
