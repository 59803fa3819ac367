"""A local stand-in for the Anthropic Messages API, enough to drive the real Claude Code offline.

Written for the e2e tests (stdlib only, threaded, binds 127.0.0.1 on an OS-chosen port). It

* logs every request (method, path, body) to a JSONL file and keeps them in memory;
* answers main-loop turns from a script of *rules*: "for the request whose last user message
  contains X, reply with these blocks" (text and tool_use), falling back to an ordered queue
  and then to a plain text reply;
* answers side requests sensibly: the /compact summary request gets a plausible scripted
  summary, title/topic requests get a short JSON-ish title, anything else small gets "ok";
* supports ``stream: true`` (SSE, which the real client uses for every /v1/messages call),
  non-streaming replies, ``/v1/messages/count_tokens`` and harmless GETs.

Run in-process (``with FakeMessagesAPI(log_path) as api: ... api.base_url``) or standalone
(``python fake_messages_api.py [port] [log.jsonl]``) for manual poking.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Block = dict[str, Any]
Body = dict[str, Any]

DEFAULT_COMPACT_SUMMARY = (
    "<analysis>\nThe user asked for small file edits; each step succeeded.\n</analysis>\n\n"
    "<summary>\n"
    "1. Primary Request and Intent: The user asked for small edits in a scratch project.\n"
    "2. Key Technical Concepts: shell commands, file reads and edits.\n"
    "3. Files and Code Sections: notes.txt was created, read and edited.\n"
    "4. Errors and fixes: none.\n"
    "5. Problem Solving: all requested steps completed.\n"
    "6. All user messages: see above.\n"
    "7. Pending Tasks: none.\n"
    "8. Current Work: the last edit to notes.txt finished.\n"
    "9. Optional Next Step: wait for the next request.\n"
    "</summary>"
)

# Why: the compact request is an ordinary /v1/messages call whose last user message carries the
# summarisation instructions; these phrases identify it without depending on exact wording.
_COMPACT_MARKERS = (
    "create a detailed summary of the conversation",
    "your task is to create a detailed summary",
    "summary of the conversation so far",
)
_TITLE_MARKERS = ("title", "topic")


def text_of(content: Any) -> str:
    """Flatten a message ``content`` (string or block list, incl. tool_result) to plain text."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.append(str(block.get("text", "")))
            elif kind == "tool_result":
                parts.append(text_of(block.get("content", "")))
            elif kind == "tool_use":
                parts.append(json.dumps(block.get("input", {})))
    return "\n".join(parts)


def last_user_text(body: Body) -> str:
    """Text of the last ``role: user`` message of a request body ("" if none)."""
    for msg in reversed(body.get("messages") or []):
        if msg.get("role") == "user":
            return text_of(msg.get("content"))
    return ""


def system_text(body: Body) -> str:
    return text_of(body.get("system", ""))


def classify(body: Body) -> str:
    """Return ``main``, ``compact``, ``title`` or ``side`` for a /v1/messages body."""
    last = last_user_text(body).lower()
    if any(m in last for m in _COMPACT_MARKERS):
        return "compact"
    if body.get("tools"):
        return "main"
    sys_text = system_text(body).lower()
    if any(m in sys_text for m in _TITLE_MARKERS):
        return "title"
    return "side"


def text(t: str) -> Block:
    return {"type": "text", "text": t}


_ids = itertools.count(1)


def tool_use(name: str, tool_input: dict[str, Any], *, id: str | None = None) -> Block:
    return {
        "type": "tool_use",
        "id": id or f"toolu_fake{next(_ids):04d}",
        "name": name,
        "input": tool_input,
    }


@dataclass
class Rule:
    """One scripted reply. ``match`` sees the whole body; ``times`` < 0 means unlimited."""

    match: Callable[[Body], bool]
    reply: list[Block]
    times: int = 1
    kinds: tuple[str, ...] = ("main",)
    label: str = ""
    used: int = 0

    def live(self) -> bool:
        return self.times < 0 or self.used < self.times


@dataclass
class Exchange:
    """One logged request and what we answered."""

    method: str
    path: str
    body: Body
    kind: str
    reply: list[Block] | None = None
    rule: str | None = None


@dataclass
class Script:
    """Thread-safe reply script. Rules are tried in insertion order; then the queue; then default."""

    rules: list[Rule] = field(default_factory=list)
    queue: list[list[Block]] = field(default_factory=list)
    default_reply: list[Block] = field(default_factory=lambda: [text("Done.")])
    compact_summary: str = DEFAULT_COMPACT_SUMMARY
    title_reply: str = '{"title": "Scratch session", "isNewTopic": true}'
    lock: threading.Lock = field(default_factory=threading.Lock)

    def when(
        self,
        contains: str | None = None,
        *,
        reply: Iterable[Block] | str,
        times: int = 1,
        regex: str | None = None,
        predicate: Callable[[Body], bool] | None = None,
        kinds: tuple[str, ...] = ("main",),
    ) -> Rule:
        """Reply with ``reply`` to the request whose last user message contains ``contains``.

        ``contains`` is matched case-insensitively; ``regex`` searches the same text;
        ``predicate`` sees the whole body. All given conditions must hold. Tool results are
        part of the user message text, so a follow-up turn can be keyed on a tool's output.
        The rule is used ``times`` times (-1: forever); ``kinds`` picks request kinds (see
        :func:`classify`).
        """
        blocks = [text(reply)] if isinstance(reply, str) else list(reply)
        pattern = re.compile(regex) if regex else None
        needle = contains.lower() if contains is not None else None

        def match(body: Body) -> bool:
            last = last_user_text(body)
            if needle is not None and needle not in last.lower():
                return False
            if pattern is not None and not pattern.search(last):
                return False
            return predicate is None or predicate(body)

        rule = Rule(match, blocks, times, kinds, label=contains or regex or "predicate")
        with self.lock:
            self.rules.append(rule)
        return rule

    def then(self, *turns: Iterable[Block] | str) -> None:
        """Append order-based turns used when no rule matches a main-loop request."""
        with self.lock:
            for turn in turns:
                self.queue.append([text(turn)] if isinstance(turn, str) else list(turn))

    def answer(self, body: Body, kind: str) -> tuple[list[Block], str | None]:
        with self.lock:
            for rule in self.rules:
                if rule.live() and kind in rule.kinds and rule.match(body):
                    rule.used += 1
                    return [dict(b) for b in rule.reply], rule.label
            if kind == "compact":
                return [text(self.compact_summary)], "compact-summary"
            if kind == "title":
                return [text(self.title_reply)], "title"
            if kind == "side":
                return [text("ok")], "side"
            if self.queue:
                return self.queue.pop(0), "queue"
            return [dict(b) for b in self.default_reply], None


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # why: the Node client keeps connections alive

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _send_json(self, obj: Any, status: int = 200) -> None:
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.server.api.record("GET", self.path, {}, "get")
        self._send_json({"data": [], "has_more": False, "first_id": None, "last_id": None})

    def do_POST(self) -> None:
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        api = self.server.api
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            api.record("POST", self.path, body, "count_tokens")
            # why: a rough estimate keeps the client's context accounting plausible
            self._send_json({"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return
        if not path.endswith("/v1/messages"):
            api.record("POST", self.path, body, "other")
            self._send_json({})
            return
        kind = classify(body)
        blocks, label = api.script.answer(body, kind)
        api.record("POST", self.path, body, kind, blocks, label)
        msg = api.message(body, blocks)
        if body.get("stream"):
            self._stream(msg, blocks)
        else:
            self._send_json(msg)

    def _stream(self, msg: dict[str, Any], blocks: list[Block]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True  # why: no content-length, so the body ends at close

        def ev(name: str, data: dict[str, Any]) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

        start = dict(msg, content=[], stop_reason=None)
        ev("message_start", {"type": "message_start", "message": start})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                cb: Block = {"type": "text", "text": ""}
                delta: Block = {"type": "text_delta", "text": b["text"]}
            else:
                cb = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            ev(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": cb},
            )
            ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": msg["usage"]["output_tokens"]},
            },
        )
        ev("message_stop", {"type": "message_stop"})
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: FakeMessagesAPI


class FakeMessagesAPI:
    """In-process server; use as a context manager or call start()/stop()."""

    def __init__(self, log_path: Path | None = None, script: Script | None = None) -> None:
        self.log_path = log_path
        self.script = script or Script()
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, port: int = 0) -> FakeMessagesAPI:
        server = _Server(("127.0.0.1", port), _Handler)
        server.api = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-messages-api")
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- logging ---------------------------------------------------------------------------
    def record(
        self,
        method: str,
        path: str,
        body: Body,
        kind: str,
        reply: list[Block] | None = None,
        rule: str | None = None,
    ) -> None:
        ex = Exchange(method, path, body, kind, reply, rule)
        with self._lock:
            self.exchanges.append(ex)
            if self.log_path is not None:
                with self.log_path.open("a") as f:
                    row = {"method": method, "path": path, "kind": kind, "rule": rule}
                    f.write(json.dumps(row | {"body": body, "reply": reply}) + "\n")

    def message(self, body: Body, blocks: list[Block]) -> dict[str, Any]:
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return {
            "id": f"msg_fake{next(self._counter):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-fake"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": max(1, len(json.dumps(body.get("messages", []))) // 4),
                "output_tokens": max(1, len(json.dumps(blocks)) // 4),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }

    # -- queries for tests -----------------------------------------------------------------
    def requests(self, kind: str | None = "main") -> list[Body]:
        """Bodies of logged /v1/messages requests of ``kind`` (None = every request)."""
        with self._lock:
            return [e.body for e in self.exchanges if kind is None or e.kind == kind]

    def requests_containing(self, needle: str, kind: str | None = "main") -> list[Body]:
        """Requests whose serialized body contains ``needle`` anywhere."""
        return [b for b in self.requests(kind) if needle in json.dumps(b)]

    def clear(self) -> None:
        with self._lock:
            self.exchanges.clear()


def main(argv: list[str]) -> None:
    port = int(argv[1]) if len(argv) > 1 else 0
    log = Path(argv[2]) if len(argv) > 2 else Path("requests.jsonl")
    api = FakeMessagesAPI(log).start(port)
    print(api.base_url, flush=True)
    assert api._thread is not None
    try:
        api._thread.join()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main(sys.argv)
