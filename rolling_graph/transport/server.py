"""The worker's server: a Unix-socket server in front of one :class:`~rolling_graph.pipeline.engine.Engine`.

Life cycle:

1. check the socket directory (ours alone, 0700; refused otherwise, never "fixed");
2. take the single-instance lock (``fcntl.flock`` on ``worker-<hash>.lock``); a second worker
   waits briefly for a stopping one, and leaves if a live worker answers instead;
3. replace a stale socket file (we hold the lock, so nobody is behind it), bind, chmod 0600;
4. load settings and the engine in the background (:mod:`rolling_graph.transport.engine_host`),
   so that hooks arriving meanwhile are queued rather than refused (their events are then
   handled, even if the client gave up);
5. one thread per connection, one request per connection (the engine locks per session), read
   and answered as :mod:`rolling_graph.transport.protocol` says;
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
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from rolling_graph.transport.engine_host import EngineHost
from rolling_graph.transport.health import probe_health
from rolling_graph.transport.protocol import (
    PROTOCOL,
    BadRequest,
    SocketDirError,
    WorkerUnavailable,
    check_socket_dir,
    read_request,
    request,
    worker_files,
)
from rolling_graph.transport.reply_first import (
    Replies,
    SessionOrder,
    render_after_probe,
)
from rolling_graph.transport.worker_status import (
    percentiles,
    probe_counts,
    rss_bytes,
    worker_version,
)

log = logging.getLogger("rolling_graph.transport")

LOCK_WAIT_S = 30.0  # how long a new worker waits for an old one that is stopping
STOP_GRACE_S = 20.0  # how long a stopping worker lets probes in flight finish
CONN_TIMEOUT_S = 60.0
#: how long a hook waits for the GIL behind the worker's own threads (sys.setswitchinterval)
SWITCH_INTERVAL_S = 0.001
After = Callable[[], None] | None  # what a connection's thread does after the reply
ENGINE_WAIT_S = 120.0


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


class Worker(EngineHost):
    """The socket side of the worker; the engine side is :class:`EngineHost`."""

    def __init__(self, files: dict[str, str] | None = None) -> None:
        super().__init__()
        self.files = files or worker_files()
        self.version = worker_version()
        self.pid = os.getpid()
        self.started = time.time()
        self.served = 0
        self._lock_fd: int | None = None
        self._listener: socket.socket | None = None
        self._sock_ino: int | None = None
        self._threads: set[threading.Thread] = set()
        self._hook_ms: deque[float] = deque(maxlen=2000)  # request to reply, recent hooks
        self._handle_ms: deque[float] = deque(maxlen=2000)  # the engine's handling of each
        self.order = SessionOrder()
        self._replies: Replies | None = None

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
            # A hook's reply must not wait 5 ms (the default) for each GIL hand-off while the
            # worker handles earlier events and probes on its other threads.
            sys.setswitchinterval(SWITCH_INTERVAL_S)
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
        accepted = time.perf_counter()
        with self._guard:
            self.active += 1
            self.last_activity = time.monotonic()
        t = threading.Thread(target=self._handle_conn, args=(conn, accepted), daemon=True)
        with self._guard:
            self._threads.add(t)
        t.start()

    def _handle_conn(self, conn: socket.socket, accepted: float | None = None) -> None:
        try:
            conn.settimeout(CONN_TIMEOUT_S)
            uid = _peer_uid(conn)
            if uid is not None and uid != os.getuid():
                log.warning("refused a connection from uid %d", uid)
                return
            after: Callable[[], None] | None = None
            try:
                header, body = read_request(conn)
                reply, after = self._dispatch(header, body)
            except BadRequest as err:
                reply = self._reply(False, error=str(err))
            try:
                data = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()
                with contextlib.suppress(OSError):  # the client may have given up: fine
                    conn.sendall(data + b"\n")
                    conn.close()  # the client is answered; what follows is the worker's own
                if "out" in reply and accepted is not None:
                    # Accepted to answered: what the client waits for, GIL hand-offs included.
                    self._hook_ms.append(round((time.perf_counter() - accepted) * 1000, 3))
            finally:
                if after is not None:
                    after()
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

    def _reply(self, ok: bool, **fields: Any) -> dict[str, Any]:
        return {"v": PROTOCOL, "ok": ok, "version": self.version, "pid": self.pid, **fields}

    def _dispatch(self, header: dict[str, Any], body: bytes) -> tuple[dict[str, Any], After]:
        """The reply, and what to do after sending it (a hook answered before handling)."""
        if header.get("v") != PROTOCOL:
            return self._reply(
                False,
                error=f"unsupported protocol {header.get('v')!r}; this worker speaks {PROTOCOL}",
            ), None
        op = header.get("op")
        if op == "hook":
            ev = header.get("event")  # Copilot CLI names the event on the command line only
            harness = str(header.get("harness") or "claude-code")
            return self._hook(body, harness, ev if isinstance(ev, str) else None)
        if op == "ping":
            return self._reply(
                True, ready=self.ready.is_set(), stopping=self.stopping.is_set()
            ), None
        if op == "status":
            return self._reply(True, **self.status()), None
        if op == "stop":
            log.info("stop requested (client %s)", header.get("client"))
            self.stopping.set()
            return self._reply(True, stopping=True), None
        if op == "recall":  # the agent's questions (rolling-graph mcp)
            if not self.ready.wait(ENGINE_WAIT_S) or self.engine is None:
                return self._reply(False, error=f"engine not available: {self.engine_error}"), None
            from rolling_graph.mcp.recall import handle_request

            return self._reply(**handle_request(self.engine, header, body)), None
        return self._reply(False, error=f"unknown op {op!r}"), None

    def _hook(self, body: bytes, harness: str, event: str | None = None) -> tuple[dict, After]:
        """One hook: answered at once with the session's pending block and handled after
        the reply, or handled first (:mod:`rolling_graph.transport.reply_first` says which)."""
        self._retry_failed_engine()
        if not self.ready.wait(ENGINE_WAIT_S) or self.engine is None:
            return self._reply(False, error=f"engine not available: {self.engine_error}"), None
        from rolling_graph.transport.hook_handler import parse_hook, run_hook

        started = time.perf_counter()
        engine, replies = self.engine, self._replies_for(self.engine)
        call = parse_hook(engine, body, harness, event)
        if call is None:
            return self._answered(started, ""), None
        sid = call.session_id
        if not replies.waits(call.event.kind, sid):
            out = replies.take(call, lambda: call.opted_out(engine))
            ticket = self.order.take(sid)

            def after() -> None:
                with self.order.turn(sid, ticket):
                    t0 = time.perf_counter()
                    outcome = run_hook(engine, call)
                    replies.handled(call, getattr(outcome, "injected", None), replied=True)
                    self._handle_ms.append(round((time.perf_counter() - t0) * 1000, 3))
                self._after_probe(engine, call, replies, outcome)

            return self._answered(started, out), after
        if call.opted_out(engine):
            return self._answered(started, ""), None
        with self.order.turn(sid, self.order.take(sid)):
            t0 = time.perf_counter()
            outcome = run_hook(engine, call)
            out = replies.handled(call, getattr(outcome, "injected", None), replied=False)
            self._handle_ms.append(round((time.perf_counter() - t0) * 1000, 3))
        return self._answered(started, out), lambda: self._after_probe(
            engine, call, replies, outcome
        )

    def _after_probe(self, engine: Any, call: Any, replies: Replies, outcome: Any) -> None:
        if outcome is None or not outcome.probe or outcome.notes.get("probe") == "inline":
            return
        try:
            render_after_probe(engine, call, replies, self.stopping)
        except Exception:  # noqa: BLE001 - the block is rendered again on the next event anyway
            log.exception("rendering after the probe failed")

    def _answered(self, started: float, out: str) -> dict[str, Any]:
        ms = round((time.perf_counter() - started) * 1000, 3)
        return self._reply(True, out=out, ms=ms)

    def _replies_for(self, engine: Any) -> Replies:
        with self._guard:
            if self._replies is None or self._replies.store is not engine.store:
                self._replies = Replies(engine.store)
            return self._replies

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
            "hook_ms": percentiles(list(self._hook_ms)),
            "handle_ms": percentiles(list(self._handle_ms)),
            "behind": self.order.behind(),
            "idle_s": self.idle_s,
            "idle_for_s": round(time.monotonic() - self.last_activity, 1),
            "socket": self.files["socket"],
        }

    # -- shutdown -----------------------------------------------------------------------------
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
        if self._replies is not None:
            self._replies.save()
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
    from rolling_graph.transport.logsetup import configure_logging

    configure_logging()
    try:
        return Worker().run()
    except Exception:  # noqa: BLE001
        log.exception("worker failed")
        return 1
