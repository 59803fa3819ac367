"""Is the paid probe backend working? Failures, backoff, and telling the person once.

A failing paid backend (bad reply, timeout, 5xx, refused key) must not stop the graph from
growing, and must not fail silently either. The runner falls back to the offline probe for the
turn and records the failure here; this module keeps, per user (``probe_health.json`` in the
data directory, shared by the worker, ``doctor`` and ``stats``):

- consecutive failures and the last error, and a **backoff**: no paid call until
  ``backoff_s · 2^(n−1)`` seconds (capped at ``backoff_max_s``) after the n-th failure in a row;
- budget stops (session cap, daily token budget) as the same kind of episode;
- a **notice**, set when an episode starts and handed out once — the next SessionStart block
  carries it as one line. A success ends the episode (and the log says so).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE = "probe_health.json"


def _hhmm(t: float) -> str:
    return time.strftime("%H:%M UTC", time.gmtime(t))


class Health:
    def __init__(
        self,
        home: Path,
        *,
        backoff_s: float = 60.0,
        backoff_max_s: float = 1800.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(home) / FILE
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.clock = clock

    @classmethod
    def from_settings(cls, settings: Any, clock: Callable[[], float] = time.time) -> Health:
        return cls(
            Path(settings.home),
            backoff_s=float(getattr(settings, "backoff_s", 60.0)),
            backoff_max_s=float(getattr(settings, "backoff_max_s", 1800.0)),
            clock=clock,
        )

    # -- persistence (one small file; the last writer wins, which is fine for a status)
    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _locked(self) -> Any:
        """Read-modify-write under a file lock: two sessions starting at once must not both
        take the notice."""
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.path) + ".lock", timeout=5)

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    # -- the runner's side
    def retry_in(self) -> float:
        """Seconds until a paid call may be tried again (0: now)."""
        return max(0.0, float(self.read().get("retry_at") or 0.0) - self.clock())

    def failure(self, backend: str, error: str) -> bool:
        """Record a failed paid call. True when it starts an episode (log it loudly once)."""
        from rolling_graph.privacy.redact.secrets import redact

        error = " ".join(redact(error).split())  # one line; an echoed key never persists
        with self._locked():
            data = self.read()
            now = self.clock()
            n = int(data.get("consecutive") or 0) + 1
            first = n == 1 and data.get("state") != "failing"
            wait = min(self.backoff_max_s, self.backoff_s * 2 ** (n - 1))
            data.update(
                state="failing",
                backend=backend,
                consecutive=n,
                failures=int(data.get("failures") or 0) + 1,
                last_error=error[:300],
                last_failure_at=now,
                retry_at=now + wait,
            )
            if first:
                data["since"] = now
                data["notice"] = (
                    f"rolling-graph: the {backend} probe failed at {_hhmm(now)} ({error[:120]}); "
                    "the graph keeps growing with the offline probe, retrying with backoff — "
                    "see `rolling-graph doctor`."
                )
            self._write(data)
            return first

    def blocked(self, backend: str, reason: str, detail: str) -> bool:
        """A budget stopped a paid call. True the first time for this reason today."""
        with self._locked():
            data = self.read()
            key = f"{reason}:{time.strftime('%Y-%m-%d', time.gmtime(self.clock()))}"
            if data.get("budget_stop") == key:
                return False
            data.update(budget_stop=key, budget_detail=detail, backend=backend)
            data["notice"] = (
                f"rolling-graph: {detail}; the offline probe is used meanwhile — "
                "see `rolling-graph stats`."
            )
            self._write(data)
            return True

    def success(self, backend: str) -> bool:
        """A paid call worked. True when it ends a failure episode."""
        with self._locked():
            data = self.read()
            if data.get("state") != "failing":
                return False
            data.update(
                state="ok", backend=backend, consecutive=0, retry_at=0, recovered_at=self.clock()
            )
            self._write(data)
            return True

    # -- the person's side
    def take_notice(self) -> str | None:
        """The pending one-line notice, once (the next SessionStart block carries it)."""
        if not self.read().get("notice"):
            return None  # the common case: no lock taken on every SessionStart
        with self._locked():
            data = self.read()
            notice = data.get("notice")
            if not notice:
                return None
            data["notice"] = None
            data["notice_shown_at"] = self.clock()
            self._write(data)
            return str(notice)

    def status(self) -> tuple[bool, str]:
        """(healthy, one line) for ``doctor`` and ``stats``."""
        data = self.read()
        if data.get("state") == "failing":
            n = int(data.get("consecutive") or 0)
            wait = self.retry_in()
            return False, (
                f"{data.get('backend')} failing since {_hhmm(float(data.get('since') or 0))} "
                f"({n} in a row; last: {data.get('last_error')}); offline probe used meanwhile"
                + (f"; next try in {wait:.0f}s" if wait else "; next try on the next trigger")
            )
        stop = str(data.get("budget_stop") or "")
        if stop.endswith(time.strftime("%Y-%m-%d", time.gmtime(self.clock()))):
            return True, f"budget reached today: {data.get('budget_detail')}"
        if data.get("recovered_at"):
            return (
                True,
                f"{data.get('backend')} working (recovered at {_hhmm(data['recovered_at'])})",
            )
        return True, "no paid-probe failures recorded"
