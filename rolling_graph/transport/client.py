"""The thin hook client: ``rolling-graph hook``. Standard library only on its hot path.

Claude Code waits for this process on every prompt, so it does as little as possible: read the
event from stdin (bounded), hand it to the per-user worker over a Unix socket
(:mod:`rolling_graph.transport.protocol`), print the worker's reply text, exit 0. If the worker
is absent it is started (detached) and the event is still delivered once the socket is up; if no
reply comes within the time budget (``ROLLING_GRAPH_HOOK_BUDGET_MS``, default 300) the hook
degrades: it prints nothing, or the last rendered block of the session on
SessionStart/UserPromptSubmit (each client's own start and prompt events: ``--harness``,
``--event``; :mod:`rolling_graph.transport.fallback`), and exits 0. SessionStart (each client's
start event) waits up to ``ROLLING_GRAPH_START_BUDGET_MS`` (20000) instead: a cold worker needs
1–5 s, and giving up at 300 ms left the first request of the day without memory.

Environment: ``ROLLING_GRAPH_PROBE_CHILD=1`` exits at once (the claude-cli probe's own child
session must not run our hooks); ``ROLLING_GRAPH_WORKER=0`` handles the event in this process
(slow: loads the engine; for tests and debugging).
"""

from __future__ import annotations

import os
import sys
import time

from rolling_graph import __version__
from rolling_graph.transport.protocol import (
    MAX_STDIN,
    SocketDirError,
    WorkerUnavailable,
    check_socket_dir,
    request,
    version_tuple,
    worker_files,
)

DEFAULT_BUDGET_MS = 300
DEFAULT_START_BUDGET_MS = 20_000
SPAWN_BACKOFF_S = 1.0  # a worker started this recently is still coming up: do not start another
HARNESSES = ("claude-code", "codex", "gemini", "copilot")
# What ``spawn_worker`` runs: the worker process (rolling_graph.transport → transport.server).
WORKER_MODULE = "rolling_graph.transport"


# ---------------------------------------------------------------------------------------------
# Logging (never stdout: Claude Code reads stdout)
# ---------------------------------------------------------------------------------------------


def log(message: str) -> None:
    try:
        from rolling_graph.paths import log_file, open_private, private_dir  # error path only

        path = log_file()
        private_dir(path.parent)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        from rolling_graph.privacy.redact.secrets import (
            redact,  # error path only; a message may quote input
        )

        fd = open_private(path)
        with open(fd, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} pid={os.getpid()} hook: {redact(message[:2000])}\n")
    except Exception:  # noqa: BLE001 - logging must never break the hook
        pass


# ---------------------------------------------------------------------------------------------
# Starting and replacing the worker (also used by the MCP server, `worker start` and doctor)
# ---------------------------------------------------------------------------------------------


def spawn_worker(files: dict[str, str] | None = None, *, force: bool = False) -> bool:
    """Start a detached worker unless one started moments ago is still coming up. True if
    started."""
    files = files or worker_files()
    stamp = files["spawn"]
    now = time.time()
    if not force and coming_up(stamp, now):
        return False
    try:
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        os.utime(stamp, (now, now))
    except OSError:
        pass
    import subprocess  # only when starting a worker

    from rolling_graph.paths import log_file, open_private, private_dir

    logpath = log_file()
    try:
        private_dir(logpath.parent)
        out = open(open_private(logpath), "ab")  # noqa: SIM115 - handed to the child, closed below
    except OSError:
        out = subprocess.DEVNULL  # type: ignore[assignment]
    try:
        # Detached: own session, no stdio shared with the harness (Claude Code waits for our
        # stdout to close, so a child holding it would hang the hook), cwd / (no busy mounts).
        child = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE, "serve"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
            cwd="/",
        )
    except OSError as err:
        log(f"could not start the worker: {err}")
        return False
    finally:
        if out is not subprocess.DEVNULL:
            out.close()  # type: ignore[union-attr]
    try:  # which worker is coming up: a later client sees whether it is still alive
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, str(child.pid).encode())
        os.close(fd)
        os.utime(stamp, (now, now))
    except OSError:
        pass
    return True


def coming_up(stamp: str, now: float) -> bool:
    """Whether a worker started less than ``SPAWN_BACKOFF_S`` ago may still be coming up: not
    when the process the stamp names is gone (killed or crashed at once: start another now)."""
    try:
        if now - os.stat(stamp).st_mtime >= SPAWN_BACKOFF_S:
            return False
        with open(stamp, encoding="ascii") as fh:
            pid = fh.read().strip()
    except (OSError, ValueError):
        return False
    return not pid.isdigit() or pid_alive(int(pid))  # no pid yet: being started


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs: it exists and, where /proc says so, is not a zombie (a
    killed worker whose parent has not reaped it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def replace_older_worker(files: dict[str, str], worker_version: str) -> None:
    """A client of a newer package asks the older worker to stop and starts a new one.

    The new worker waits for the old one's lock, so nothing runs twice. An older client never
    stops a newer worker (two installs side by side would otherwise take turns killing each
    other's workers).
    """
    log(f"worker version {worker_version} is older than this client's {__version__}; replacing it")
    try:
        request("stop", deadline=time.monotonic() + 1.0, sock_path=files["socket"])
    except WorkerUnavailable as err:
        log(f"could not stop the old worker: {err}")
    spawn_worker(files, force=True)


# ---------------------------------------------------------------------------------------------
# The hook
# ---------------------------------------------------------------------------------------------


def _budget_s(name: str = "HOOK_BUDGET_MS", default: int = DEFAULT_BUDGET_MS) -> float:
    try:
        ms = float(os.environ.get("ROLLING_GRAPH_" + name) or default)
    except ValueError:
        ms = default
    return max(ms, 1.0) / 1000.0


def _start_budget_s(
    raw: bytes, harness: str = "claude-code", event: str | None = None
) -> float | None:
    """The start event's longer wait (module docstring), else None. Bytes first: cheap on big
    events. Copilot CLI's start event, ``sessionStart``, comes by ``--event`` (not in payloads)."""
    start = "sessionStart" if harness == "copilot" else "SessionStart"
    if event is None:
        if f'"{start}"'.encode() not in raw[:4096]:
            return None
        from rolling_graph.transport.fallback import _event_info

        event = _event_info(raw)[0]
    if event == start:
        return max(_budget_s(), _budget_s("START_BUDGET_MS", DEFAULT_START_BUDGET_MS))
    return None


def read_stdin(deadline: float, cap: int = MAX_STDIN) -> bytes:
    """All of stdin up to ``cap`` bytes; never waits on a terminal or past ``deadline``."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""  # closed or replaced stdin
    try:
        if os.isatty(fd):
            return b""
    except OSError:
        return b""
    import select

    chunks: list[bytes] = []
    size = 0
    while size <= cap:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            log("stdin not closed within the budget; using what was read")
            break
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
        except (OSError, ValueError):
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if len(data) > cap:
        log(f"hook payload over {cap} bytes; ignored")
        return b""
    return data


def fallback_output(raw: bytes, harness: str = "claude-code", event: str | None = None) -> str:
    """The last rendered block, or nothing, when the worker is out of reach (see
    :mod:`rolling_graph.transport.fallback`; imported only on this rare path)."""
    from rolling_graph.transport.fallback import fallback_output as fallback

    return fallback(raw, harness, event)


def _emit(text: str) -> None:
    if not text:
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed stdout is not our problem to report
        pass


def _in_process(raw: bytes, harness: str, event: str | None) -> str:
    # The server side, in this process (the client itself never imports the engine).
    from rolling_graph.transport.hook_handler import handle_in_process

    return handle_in_process(raw, harness, event)


def run_hook(
    raw: bytes, deadline: float, harness: str = "claude-code", event: str | None = None
) -> str:
    """Deliver ``raw`` to the worker (starting it if needed) and return the stdout text."""
    try:
        files = worker_files()
        check_socket_dir(files["dir"])
    except SocketDirError as err:
        log(str(err))
        return fallback_output(raw, harness, event)
    except OSError as err:
        log(f"socket directory unusable: {err}")
        return fallback_output(raw, harness, event)
    spawned = False
    while True:
        try:
            extra = {"harness": harness, "event": event} if harness != "claude-code" else {}
            reply = request("hook", body=raw, deadline=deadline, sock_path=files["socket"], **extra)
            break
        except WorkerUnavailable as err:
            if err.connected:
                # The worker has the event (or died with it): never send it twice.
                log(f"worker did not answer: {err}")
                return fallback_output(raw, harness, event)
            if not spawned:
                spawned = True
                spawn_worker(files)
            if time.monotonic() + 0.01 >= deadline:
                log(f"worker not reachable within the budget: {err}")
                return fallback_output(raw, harness, event)
            time.sleep(0.01)
    out = reply.get("out") if reply.get("ok") else None
    if not reply.get("ok"):
        log(f"worker error: {reply.get('error')}")
    worker_version = str(reply.get("version") or "0")
    if version_tuple(worker_version) < version_tuple(__version__):
        _emit(out if isinstance(out, str) else "")  # the answer first, then the restart
        replace_older_worker(files, worker_version)
        return ""
    return out if isinstance(out, str) else fallback_output(raw, harness, event)


def parse_args(argv: list[str] | None) -> tuple[str, str | None]:
    """(harness, event) from ``--harness NAME`` and ``--event NAME``; unknown words ignored
    (a hook must not fail on a flag a newer installer wrote)."""
    harness, event = "claude-code", None
    args = list(argv or [])
    for i, arg in enumerate(args[:-1]):
        if arg == "--harness":
            harness = args[i + 1]
        elif arg == "--event":
            event = args[i + 1]
    return harness if harness in HARNESSES else "claude-code", event


def main(argv: list[str] | None = None) -> int:
    """``rolling-graph hook [--harness NAME] [--event NAME]``: always returns 0."""
    try:
        harness, event = parse_args(argv)
        if os.environ.get("ROLLING_GRAPH_PROBE_CHILD") == "1":
            return 0  # recursion guard: the probe's own claude session
        started = time.monotonic()
        deadline = started + _budget_s()
        raw = read_stdin(deadline)
        if not raw.strip():
            return 0
        if os.environ.get("ROLLING_GRAPH_WORKER", "1") in ("0", "false", "no", "off"):
            _emit(_in_process(raw, harness, event))
            return 0
        start_budget = _start_budget_s(raw, harness, event)
        _emit(run_hook(raw, started + start_budget if start_budget else deadline, harness, event))
    except BaseException as err:  # noqa: BLE001 - a hook must never fail the person's prompt
        if isinstance(err, KeyboardInterrupt | SystemExit):
            return 0
        log(f"hook client failed: {type(err).__name__}: {err}")
    return 0
