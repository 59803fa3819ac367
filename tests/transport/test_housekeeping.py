"""The worker's idle rule in process: it does not exit while probes are queued or in flight."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from rolling_graph.transport.server import Worker
from rolling_graph.transport.worker_status import probe_counts


class FakeRunner:
    def __init__(self) -> None:
        self.in_flight = 1
        self.queued: list[Any] = []


class FakeEngine:
    def __init__(self) -> None:
        self.components: dict[str, Any] = {"probe": FakeRunner()}
        self.sessions: dict[str, Any] = {}


def _worker(tmp_path: Path) -> Worker:
    files = {k: str(tmp_path / k) for k in ("socket", "lock", "info", "spawn")}
    files["dir"] = str(tmp_path)
    w = Worker(files)
    w.engine = FakeEngine()
    w.ready.set()
    w.idle_s = 0.1
    return w


def test_no_idle_exit_while_probes_in_flight(tmp_path: Path) -> None:
    w = _worker(tmp_path)
    t = threading.Thread(target=w._housekeeping, daemon=True)
    t.start()
    time.sleep(0.6)
    assert not w.stopping.is_set()
    w.engine.components["probe"].in_flight = 0
    t.join(timeout=3)
    assert w.stopping.is_set()


def test_probe_counts_duck_typing() -> None:
    class WithStats:
        def stats(self) -> dict[str, Any]:
            return {"queued": 2, "in_flight": 1}

    class Bare:
        pass

    eng = FakeEngine()
    assert probe_counts(eng) == {"queued": 0, "in_flight": 1}
    eng.components["probe"] = WithStats()
    assert probe_counts(eng) == {"queued": 2, "in_flight": 1}
    eng.components["probe"] = Bare()
    assert probe_counts(eng) == {"queued": 0, "in_flight": 0}
    eng.components.clear()
    assert probe_counts(eng) is None
    assert probe_counts(None) is None
