"""The worker process: a Unix-socket server in front of one :class:`~rolling_graph.engine.Engine`.

Life cycle:

1. check the socket directory (ours alone, 0700; refused otherwise, never "fixed");
2. take the single-instance lock (``fcntl.flock`` on ``worker-<hash>.lock``); a second worker
   waits briefly for a stopping one, and leaves if a live worker answers instead;
3. replace a stale socket file (we hold the lock, so nobody is behind it), bind, chmod 0600;
4. load settings and the engine in the background, so that hooks arriving meanwhile are
   queued rather than refused (their events are then handled, even if the client gave up);
5. one thread per connection, one request per connection (the engine locks per session);
6. exit after ``settings.worker_idle_s`` without requests, connections or probes in flight,
   on ``stop``, or on SIGTERM/SIGINT: stop listening, finish what was accepted, let probes
   finish (bounded), close the engine, release the lock.

Only stdlib is imported before the socket is bound; the engine (pydantic, spaCy…) comes after.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import signal
import socket
import struct
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from rolling_graph import __version__
from rolling_graph.hookclient import (
    MAX_STDIN,
    PROTOCOL,
    SocketDirError,
    WorkerUnavailable,
    check_socket_dir,
    request,
    worker_files,
)
from rolling_graph.worker.health import config_stamp, probe_health

log = logging.getLogger("rolling_graph.worker")

MAX_HEADER = 64 * 1024
LOCK_WAIT_S = 30.0  # how long a new worker waits for an old one that is stopping
STOP_GRACE_S = 20.0  # how long a stopping worker lets probes in flight finish
SESSION_IDLE_S = 600.0  # open sessions untouched this long are dropped from memory
CONN_TIMEOUT_S = 60.0
ENGINE_WAIT_S = 120.0


def worker_version() -> str:
    """The version this worker reports; ``ROLLING_GRAPH_WORKER_VERSION`` overrides it (tests)."""
    return os.environ.get("ROLLING_GRAPH_WORKER_VERSION") or __version__


def rss_bytes() -> int | None:
    """Resident memory of this process (VmRSS), or None off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _count(value: Any) -> int:
    if callable(value):
        value = value()
    if value is None:
        return 0
    if isinstance(value, bool | int | float):
        return int(value)
    try:
        return len(value)
    except TypeError:
        return 0


def probe_counts(engine: Any) -> dict[str, int] | None:
    """Queued/in-flight probes from the engine's probe runner, if it has one (duck-typed)."""
    components = getattr(engine, "components", {}) if engine is not None else {}
    # "probe_runner" is rolling_graph.probe.runner.COMPONENT (not imported: keep this module light).
    comp = components.get("probe_runner") or components.get("probe")
    if comp is None:
        return None
    try:
        for name in ("counts", "stats", "status"):
            fn = getattr(comp, name, None)
            if callable(fn):
                data = fn()
                if isinstance(data, dict):
                    return {
                        "queued": _count(data.get("queued", data.get("pending", 0))),
                        "in_flight": _count(data.get("in_flight", data.get("running", 0))),
                    }
        return {
            "queued": _count(getattr(comp, "queued", getattr(comp, "pending", 0))),
            "in_flight": _count(getattr(comp, "in_flight", getattr(comp, "running", 0))),
        }
    except Exception:  # noqa: BLE001 - a status line must not take the worker down
        log.exception("probe runner status failed")
        return None


def _percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    values.sort()

    def pick(q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    return {"n": len(values), "p50": pick(0.5), "p95": pick(0.95), "max": values[-1]}


def _peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's uid (SO_PEERCRED, Linux); None where unsupported."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return uid
    except OSError:
        return None


class _BadRequest(Exception):
    pass


class Worker:
    def __init__(self, files: dict[str, str] | None = None) -> None:
        self.files = files or worker_files()
        self.version = worker_version()
        self.pid = os.getpid()
        self.started = time.time()
        self.engine: Any = None
        self.engine_error: str | None = None
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.idle_s = 900.0
        self.last_activity = time.monotonic()
        self.active = 0
        self.served = 0
        self._lock_fd: int | None = None
        self._listener: socket.socket | None = None
        self._sock_ino: int | None = None
        self._threads: set[threading.Thread] = set()
        self._guard = threading.Lock()
        self._hook_ms: deque[float] = deque(maxlen=2000)  # server-side time of recent hooks
        self._config_stamp: tuple[int, int] | None = None  # config file the engine came from

    # -- start-up ---------------------------------------------------------------------------
    def _acquire_lock(self) -> bool:
        fd = os.open(self.files["lock"], os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._lock_fd = fd
                return True
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
            try:
                reply = request(
                    "ping", deadline=time.monotonic() + 0.5, sock_path=self.files["socket"]
                )
                if not reply.get("stopping"):
                    os.close(fd)
                    return False  # a live worker answers: we are not needed
            except WorkerUnavailable:
                pass  # the holder is stopping (or hung): wait for its lock
            if time.monotonic() > deadline:
                os.close(fd)
                log.warning(
                    "another worker holds %s and does not answer; giving up", self.files["lock"]
                )
                return False
            time.sleep(0.1)

    def _bind(self) -> None:
        path = self.files["socket"]
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # stale: we hold the lock, so no live worker is behind it
            log.info("removed stale socket %s", path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # created 0600, never briefly wider
        try:
            sock.bind(path)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        sock.listen(128)
        sock.settimeout(0.5)
        self._listener = sock
        self._sock_ino = os.stat(path).st_ino

    def _write_info(self) -> None:
        info = {"pid": self.pid, "version": self.version, "started": self.started}
        tmp = self.files["info"] + f".{self.pid}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(info, fh)
        os.replace(tmp, self.files["info"])

    def _load_engine(self) -> None:
        try:
            from rolling_graph.config import load_settings
            from rolling_graph.engine import Engine

            self._config_stamp = config_stamp()
            settings = load_settings()
            self.idle_s = float(settings.worker_idle_s)
            self.engine = Engine(settings)
            self._install_test_faults()
            self._warm_up(settings)
            log.info("engine ready in %.2f s", time.time() - self.started)
        except Exception as err:  # noqa: BLE001 - reported to every client, and logged
            self.engine_error = f"{type(err).__name__}: {err}"
            log.exception("the engine failed to load")
        finally:
            self.last_activity = time.monotonic()
            self.ready.set()

    def _warm_up(self, settings: Any) -> None:
        """Pay the lazy costs (spaCy pipeline, plugin imports) now, not on the first prompt.

        Runs a few synthetic events through a throwaway engine whose data home is a temporary
        directory and whose probe backend is ``offline``: nothing touches the person's data and
        nothing leaves the machine. Shared caches (the spaCy pipeline) are process-wide.
        """
        warm = getattr(self.engine, "warm", None)
        if callable(warm):
            warm()
            return
        import tempfile

        from rolling_graph.engine import Engine
        from rolling_graph.harness import claude_code

        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="rolling-graph-warmup-") as tmp:
            try:
                scratch = Engine(
                    settings.model_copy(update={"home": Path(tmp), "probe": "offline"})
                )
            except Exception:  # noqa: BLE001 - warming up is an optimisation only
                log.exception("warm-up engine failed")
                return
            try:
                base = {"session_id": "warm-up", "cwd": tmp, "transcript_path": ""}
                events = [
                    {"hook_event_name": "SessionStart", "source": "startup"},
                    {"hook_event_name": "UserPromptSubmit", "prompt": "Hello, warming up."},
                    {
                        "hook_event_name": "PostToolUse",
                        "tool_name": "Read",
                        "tool_input": {"file_path": "README.md"},
                        "tool_response": "ok",
                    },
                ]
                for ev in events:
                    # engine.handle directly: the hook handler would also attach a log handler
                    # for the scratch home's (soon deleted) log file.
                    event = claude_code.parse_payload({**base, **ev})
                    if event is not None:
                        scratch.handle(event)
                self._wait_probes(scratch, 10.0)
            except Exception:  # noqa: BLE001 - warming up is an optimisation only
                log.exception("warm-up failed")
            finally:
                scratch.close()
        log.info("warm-up took %.2f s", time.perf_counter() - started)

    @staticmethod
    def _wait_probes(engine: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = probe_counts(engine)
            if not counts or not (counts["queued"] or counts["in_flight"]):
                return
            time.sleep(0.05)

    def _install_test_faults(self) -> None:
        # Test-only fault injection: widen the window between a change and its save so that
        # tests can SIGKILL the worker mid-request. Off unless the variable is set.
        delay = os.environ.get("ROLLING_GRAPH_WORKER_TEST_SAVE_DELAY_MS")
        if not delay or self.engine is None:
            return
        store = self.engine.store
        real_save = store.save

        def slow_save(graph: Any) -> None:
            time.sleep(float(delay) / 1000)
            real_save(graph)

        store.save = slow_save

    # -- serving ----------------------------------------------------------------------------
    def run(self) -> int:
        try:
            check_socket_dir(self.files["dir"])
        except SocketDirError as err:
            log.error("%s", err)
            return 1
        if not self._acquire_lock():
            return 0
        try:
            self._bind()
            self._write_info()
            log.info(
                "worker %s (protocol %d) listening on %s",
                self.version,
                PROTOCOL,
                self.files["socket"],
            )
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, lambda *_: self.stopping.set())
            threading.Thread(target=self._load_engine, name="engine-load", daemon=True).start()
            threading.Thread(target=self._housekeeping, name="housekeeping", daemon=True).start()
            self._accept_loop()
        finally:
            self._shutdown()
        return 0

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self.stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError as err:
                if self.stopping.is_set():
                    break
                log.warning("accept failed: %s", err)
                time.sleep(0.05)
                continue
            self._start_handler(conn)

    def _start_handler(self, conn: socket.socket) -> None:
        with self._guard:
            self.active += 1
            self.last_activity = time.monotonic()
        t = threading.Thread(target=self._handle_conn, args=(conn,), daemon=True)
        with self._guard:
            self._threads.add(t)
        t.start()

    def _handle_conn(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(CONN_TIMEOUT_S)
            uid = _peer_uid(conn)
            if uid is not None and uid != os.getuid():
                log.warning("refused a connection from uid %d", uid)
                return
            try:
                header, body = self._read_request(conn)
                reply = self._dispatch(header, body)
            except _BadRequest as err:
                reply = self._reply(False, error=str(err))
            data = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
            with contextlib.suppress(OSError):  # the client may have given up: fine
                conn.sendall(data)
        except Exception:  # noqa: BLE001 - one bad connection must not stop the worker
            log.exception("connection handling failed")
        finally:
            with contextlib.suppress(OSError):
                conn.close()
            with self._guard:
                self.active -= 1
                self.served += 1
                self.last_activity = time.monotonic()
                self._threads.discard(threading.current_thread())

    def _read_request(self, conn: socket.socket) -> tuple[dict[str, Any], bytes]:
        buf = b""
        while b"\n" not in buf:
            chunk = conn.recv(65536)
            if not chunk:
                raise _BadRequest("connection closed before a request line")
            buf += chunk
            if len(buf) > MAX_HEADER and b"\n" not in buf[:MAX_HEADER]:
                raise _BadRequest("request line too long")
        line, _, rest = buf.partition(b"\n")
        try:
            header = json.loads(line)
        except ValueError:
            raise _BadRequest("request line is not JSON") from None
        if not isinstance(header, dict):
            raise _BadRequest("request line is not an object")
        n = header.get("len")
        if n is None:
            return header, b""
        if not isinstance(n, int) or n < 0 or n > MAX_STDIN:
            raise _BadRequest(f"bad body length {n!r}")
        chunks = [rest[:n]]
        got = len(chunks[0])
        while got < n:
            chunk = conn.recv(min(1 << 20, n - got))
            if not chunk:
                raise _BadRequest("connection closed inside the body")
            chunks.append(chunk)
            got += len(chunk)
        return header, b"".join(chunks)

    def _reply(self, ok: bool, **fields: Any) -> dict[str, Any]:
        return {"v": PROTOCOL, "ok": ok, "version": self.version, "pid": self.pid, **fields}

    def _dispatch(self, header: dict[str, Any], body: bytes) -> dict[str, Any]:
        if header.get("v") != PROTOCOL:
            return self._reply(
                False,
                error=f"unsupported protocol {header.get('v')!r}; this worker speaks {PROTOCOL}",
            )
        op = header.get("op")
        if op == "ping":
            return self._reply(True, ready=self.ready.is_set(), stopping=self.stopping.is_set())
        if op == "status":
            return self._reply(True, **self.status())
        if op == "stop":
            log.info("stop requested (client %s)", header.get("client"))
            self.stopping.set()
            return self._reply(True, stopping=True)
        if op == "hook":
            ev = header.get("event")  # Copilot CLI names the event on the command line only
            harness = str(header.get("harness") or "claude-code")
            return self._hook(body, harness, ev if isinstance(ev, str) else None)
        if op == "recall":  # the agent's questions (rolling-graph mcp)
            if not self.ready.wait(ENGINE_WAIT_S) or self.engine is None:
                return self._reply(False, error=f"engine not available: {self.engine_error}")
            from rolling_graph.recall import handle_request

            return self._reply(**handle_request(self.engine, header, body))
        return self._reply(False, error=f"unknown op {op!r}")

    def _retry_failed_engine(self) -> None:
        """An engine that failed to load (a bad config) is loaded again once the config file
        changes: fixing the file is enough, no manual restart."""
        with self._guard:
            if self.engine is not None or self.engine_error is None:
                return
            if config_stamp() == self._config_stamp:
                return
            self.engine_error = None
        log.info("the config file changed; loading the engine again")
        self._load_engine()

    def _hook(self, body: bytes, harness: str, event: str | None = None) -> dict[str, Any]:
        self._retry_failed_engine()
        if not self.ready.wait(ENGINE_WAIT_S) or self.engine is None:
            return self._reply(False, error=f"engine not available: {self.engine_error}")
        from rolling_graph.harness.hook_handler import handle_hook_bytes

        started = time.perf_counter()
        out = handle_hook_bytes(self.engine, body, harness, event)
        ms = round((time.perf_counter() - started) * 1000, 3)
        self._hook_ms.append(ms)
        return self._reply(True, out=out, ms=ms)

    def status(self) -> dict[str, Any]:
        engine = self.engine
        sessions = sorted(getattr(engine, "sessions", {}) or {})
        return {
            "pid": self.pid,
            "version": self.version,
            "protocol": PROTOCOL,
            "started": self.started,
            "uptime_s": round(time.time() - self.started, 1),
            "ready": self.ready.is_set(),
            "engine_error": self.engine_error,
            "sessions": len(sessions),
            "session_ids": sessions[:50],
            "connections": max(self.active - 1, 0),  # not counting the status request itself
            "served": self.served,
            "probes": probe_counts(engine),
            "probe_health": probe_health(engine),
            "rss_bytes": rss_bytes(),
            "hook_ms": _percentiles(list(self._hook_ms)),
            "idle_s": self.idle_s,
            "idle_for_s": round(time.monotonic() - self.last_activity, 1),
            "socket": self.files["socket"],
        }

    # -- idleness and shutdown --------------------------------------------------------------
    def _probes_busy(self) -> bool:
        counts = probe_counts(self.engine)
        return bool(counts and (counts["queued"] or counts["in_flight"]))

    def _housekeeping(self) -> None:
        while not self.stopping.wait(min(1.0, max(self.idle_s / 4, 0.05))):
            if not self.ready.is_set():
                continue
            self._retry_failed_engine()
            with self._guard:
                idle_for = time.monotonic() - self.last_activity
                busy = self.active > 0
            if busy:
                continue
            if self._probes_busy():
                self.last_activity = time.monotonic()  # idle time counts from the last probe
                continue
            if idle_for >= self.idle_s:
                log.info("idle for %.0f s; exiting", idle_for)
                self.stopping.set()
                return
            self._drop_idle_sessions()

    def _drop_idle_sessions(self) -> None:
        engine = self.engine
        if engine is None:
            return
        now = time.time()
        for sid in list(getattr(engine, "sessions", {})):
            try:
                mtime = os.stat(engine.store.dir(sid) / "graph.json").st_mtime
            except OSError:
                mtime = 0.0
            if now - mtime > SESSION_IDLE_S:
                with engine.thread_lock(sid):
                    engine.forget(sid)  # reloaded from disk on its next event

    def _stop_listening(self) -> None:
        listener, self._listener = self._listener, None
        if listener is None:
            return
        path = self.files["socket"]
        try:
            if os.stat(path).st_ino == self._sock_ino:
                os.unlink(path)  # new clients now start a new worker instead of queueing here
        except OSError:
            pass
        # Serve what already sits in the backlog: those clients sent their event to us.
        listener.setblocking(False)
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                break
            conn.setblocking(True)
            self._start_handler(conn)
        listener.close()

    def _shutdown(self) -> None:
        self.stopping.set()
        self._stop_listening()
        deadline = time.monotonic() + CONN_TIMEOUT_S
        while True:
            with self._guard:
                threads = list(self._threads)
            if not threads or time.monotonic() > deadline:
                break
            threads[0].join(timeout=max(deadline - time.monotonic(), 0.01))
        if self.engine is not None:
            self._wait_probes(self.engine, STOP_GRACE_S)
        if self.engine is not None:
            try:
                self.engine.close()
            except Exception:  # noqa: BLE001
                log.exception("engine close failed")
        with contextlib.suppress(OSError):
            with open(self.files["info"], encoding="utf-8") as fh:
                mine = json.load(fh).get("pid") == self.pid
            if mine:
                os.unlink(self.files["info"])
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock; a waiting new worker takes over
            self._lock_fd = None
        log.info("worker %s stopped after %d requests", self.pid, self.served)


def serve() -> int:
    """Run a worker in this process until it stops; returns the exit status."""
    from rolling_graph.worker.logsetup import configure_logging

    configure_logging()
    try:
        return Worker().run()
    except Exception:  # noqa: BLE001
        log.exception("worker failed")
        return 1
