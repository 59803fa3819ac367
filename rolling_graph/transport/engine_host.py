"""The engine's life inside the worker: loaded in the background after the socket is bound,
warmed up, loaded again when a broken config file is fixed, and idleness (the worker exits after
``worker_idle_s`` without requests or probes; sessions untouched for a while are dropped).

:class:`EngineHost` is the base of :class:`rolling_graph.transport.server.Worker`, which adds the
socket; the state both read (``stopping``, ``active``, ``last_activity``) is set up here.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from rolling_graph.transport.health import config_stamp
from rolling_graph.transport.worker_status import probe_counts

log = logging.getLogger("rolling_graph.transport")

SESSION_IDLE_S = 600.0  # open sessions untouched this long are dropped from memory


class EngineHost:
    """The worker's engine: loaded once, reloaded after a config fix, idle when nothing runs."""

    def __init__(self) -> None:
        self.engine: Any = None
        self.engine_error: str | None = None
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.idle_s = 900.0
        self.last_activity = time.monotonic()
        self.active = 0  # connections being served (the idle rule waits for them)
        self._guard = threading.Lock()
        self._config_stamp: tuple[int, int] | None = None  # config file the engine came from

    def _load_engine(self) -> None:
        try:
            from rolling_graph.config import load_settings
            from rolling_graph.pipeline.engine import Engine

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

        from rolling_graph.harness.adapters import claude_code
        from rolling_graph.pipeline.engine import Engine

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
