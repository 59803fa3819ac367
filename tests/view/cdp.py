"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (standard library only).

Chromium reads commands from fd 3 and writes replies and events to fd 4, each a JSON message
ended by a NUL byte; this is the transport Playwright uses, and needs no WebSocket library.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# The machine's notes on running Chromium headless in a sandboxed container, offline.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--window-size=1400,900",
)


class CDPError(RuntimeError):
    pass


def find_chromium() -> str | None:
    override = os.environ.get("ROLLING_GRAPH_CHROMIUM")
    if override:
        return override
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _above_4(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium with a fresh, empty profile; ``close()`` ends it and removes it."""

    def __init__(self, executable: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="rg-chromium-")
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()
        # Move the child's ends above 4 first, so "3<&a 4>&b" never overwrites one with the other.
        to_child_r, from_child_w = (_above_4(fd) for fd in (to_child_r, from_child_w))
        args = [*CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe"]
        # Why bash (not sh: dash takes single-digit fds only): it puts our pipe ends on fds 3 and 4, where Chromium expects them.
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w}', executable, *args],
            pass_fds=(to_child_r, from_child_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next_id = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.call("Browser.getVersion")

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_child_r, 1 << 16)
            except OSError:
                return
            if not chunk:
                for q in list(self._waiting.values()):
                    q.put({"error": {"message": "chromium closed the pipe"}})
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg and msg["id"] in self._waiting:
                    self._waiting.pop(msg["id"]).put(msg)
                else:
                    self.events.append(msg)

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            mid = self._next_id
            q: queue.Queue[dict[str, Any]] = queue.Queue()
            self._waiting[mid] = q
            msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            os.write(self._to_child_w, json.dumps(msg).encode() + b"\0")
        try:
            reply = q.get(timeout=self.timeout)
        except queue.Empty:
            raise CDPError(f"{method}: no reply in {self.timeout} s") from None
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def new_page(self) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session)
        for domain in ("Page", "Runtime", "Network"):
            page.call(f"{domain}.enable")
        return page

    def close(self) -> None:
        with contextlib.suppress(CDPError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_child_w, self._from_child_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def events(self, method: str) -> list[dict[str, Any]]:
        return [
            e["params"]
            for e in self.browser.events
            if e.get("sessionId") == self.session and e.get("method") == method
        ]

    def goto(self, url: str, ready: str, timeout: float = 60.0) -> None:
        self.call("Page.navigate", {"url": url})
        self.wait_for(ready, timeout)

    def eval(self, expression: str) -> Any:
        res = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in res:
            raise CDPError(f"{expression!r} threw: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"timed out waiting for {expression!r}")
            time.sleep(0.05)

    def click(self, x: float, y: float) -> None:
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def type_text(self, text: str) -> None:
        self.call("Input.insertText", {"text": text})

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
