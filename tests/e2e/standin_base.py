"""Shared core of the model-API stand-ins for Codex, Gemini CLI and Copilot CLI (stdlib only).

Each protocol module (``fake_openai.py``, ``fake_gemini.py``) subclasses :class:`StandIn` with
its wire format; this module holds what they share: a threaded HTTP server on 127.0.0.1, a log
of every request (memory + JSONL), and a tiny script of replies.

The script is keyed on the person's prompt, not on request order, because the clients make
side requests (titles, next-speaker checks, compaction) that an order-based script would
misread: a main-loop request whose last user prompt contains a rule's text gets one shell tool
call; the request that carries that tool's result gets a short final text; every other
main-loop request gets a short acknowledgement; requests without tools get
:data:`SUMMARY_TEXT` (compaction summaries and titles alike).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Body = dict[str, Any]

SUMMARY_TEXT = "Summary so far: the user is editing notes.txt in a scratch project."
DONE_TEXT = "Done."
ACK_TEXT = "Noted."


@dataclass
class Reply:
    """What the model says: a text, or a shell command to run through the client's tool."""

    text: str = ""
    shell: str | None = None


@dataclass
class Exchange:
    method: str
    path: str
    body: Body
    kind: str
    reply: Reply | None = None


@dataclass
class Script:
    """``on(prompt_part, shell=cmd)``: the first main request for that prompt runs ``cmd``.

    Each rule is used once: injected context can repeat a prompt's words in later requests,
    and a rule that fired again would loop the client."""

    rules: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on(self, prompt_part: str, *, shell: str) -> None:
        with self.lock:
            self.rules.append((prompt_part.lower(), shell))

    def answer(self, kind: str, last_prompt: str, after_tool: bool) -> Reply:
        if kind != "main":
            return Reply(SUMMARY_TEXT)
        if after_tool:
            return Reply(DONE_TEXT)
        low = last_prompt.lower()
        with self.lock:
            for i, (part, shell) in enumerate(self.rules):
                if part in low:
                    del self.rules[i]
                    return Reply(shell=shell)
        return Reply(ACK_TEXT)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    standin: StandIn


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def send_json(self, obj: Any, status: int = 200) -> None:
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def send_sse(self, events: list[tuple[str | None, Any]]) -> None:
        """Write ``(event name or None, data)`` pairs as one SSE body, then close."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True  # why: no content-length, so the body ends at close
        for name, data in events:
            payload = data if isinstance(data, str) else json.dumps(data)
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {payload}\n\n".encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        self.server.standin.handle(self, "GET", {})

    def do_POST(self) -> None:
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self.server.standin.handle(self, "POST", body)


class StandIn:
    """Base: subclasses implement :meth:`handle` (route + answer) for their protocol."""

    name = "standin"

    def __init__(self, log_path: Path | None = None, script: Script | None = None) -> None:
        self.log_path = log_path
        self.script = script or Script()
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None

    def handle(self, h: _Handler, method: str, body: Body) -> None:  # pragma: no cover
        raise NotImplementedError

    def start(self) -> StandIn:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.standin = self
        self._server = server
        threading.Thread(target=server.serve_forever, name=self.name, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def record(self, method: str, path: str, body: Body, kind: str, reply: Reply | None) -> None:
        with self._lock:
            self.exchanges.append(Exchange(method, path, body, kind, reply))
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    row = {"method": method, "path": path, "kind": kind, "body": body}
                    row["reply"] = None if reply is None else reply.__dict__
                    fh.write(json.dumps(row) + "\n")

    def requests(self, kind: str | None = "main") -> list[Body]:
        with self._lock:
            return [e.body for e in self.exchanges if kind is None or e.kind == kind]

    def requests_containing(self, needle: str, kind: str | None = "main") -> list[Body]:
        return [b for b in self.requests(kind) if needle in json.dumps(b, ensure_ascii=False)]

    def wait_for(self, pred: Callable[[], bool], timeout: float = 10.0) -> bool:
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return True
            time.sleep(0.05)
        return pred()
