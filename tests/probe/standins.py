"""Local stand-ins for the paid probe APIs: real HTTP servers (``http.server``) that speak the
OpenAI chat-completions and the Anthropic Messages protocols, count calls and tokens, and can
misbehave on purpose. Used through the real SDKs by the tests and by ``bench/probe_cost.py``.

``mode`` says how a server answers:

- ``ok``: a schema-valid patch (OpenAI: honours ``response_format``; bare JSON content);
- ``prose``: ignores ``response_format`` and wraps the JSON in prose and a code fence;
- ``no_schema``: refuses ``response_format: json_schema`` with HTTP 400 (older llama.cpp),
  accepts ``json_object`` and plain requests;
- ``think``: a reasoning model's ``<think>…</think>`` block before the fenced JSON;
- ``garbage``: HTTP 200 with content that holds no patch (a bad reply);
- ``error``: HTTP 500 every time;
- ``slow``: sleeps ``delay`` seconds before answering (the client times out first).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: what a healthy stand-in answers: one task node, named after the call number
PATCH_TEMPLATE = {
    "rationale": "a task was named",
    "ops": [
        {
            "op": "add",
            "path": "/nodes/standin-task-{n}",
            "value": {"label": "Stand-in task {n}", "domain": "project", "kind": "task"},
            "reason": "the stand-in always names one",
        }
    ],
}


def patch_for(n: int) -> dict[str, Any]:
    return json.loads(json.dumps(PATCH_TEMPLATE).replace("{n}", str(n)))


class StandIn:
    """Base: a threaded HTTP server on 127.0.0.1 with a free port; ``calls`` and ``bodies``."""

    def __init__(self, mode: str = "ok", delay: float = 5.0) -> None:
        self.mode = mode
        self.delay = delay
        self.calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:  # /v1/models: doctor's reachability check
                outer._send(self, 200, {"object": "list", "data": []})

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(size) or b"{}")
                except ValueError:
                    body = {}
                with outer._lock:
                    outer.calls += 1
                    n = outer.calls
                    outer.bodies.append(body)
                status, doc = outer.answer(self.path, body, n)
                if outer.mode == "slow":
                    time.sleep(outer.delay)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client gave up
                    outer._send(self, status, doc)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, doc: dict[str, Any]) -> None:
        data = json.dumps(doc).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        h.send_header("retry-after-ms", "1")  # fast tests, real SDK retry path
        h.end_headers()
        h.wfile.write(data)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def answer(self, path: str, body: dict[str, Any], n: int) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def count(self, body: dict[str, Any], out_text: str) -> tuple[int, int]:
        """Token usage as a server would report it (~4 characters a token)."""
        tin = max(1, len(json.dumps(body)) // 4)  # messages, system, tools, schema
        tout = max(1, len(out_text) // 4)
        with self._lock:
            self.tokens_in += tin
            self.tokens_out += tout
        return tin, tout

    def __enter__(self) -> StandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class OpenAIStandIn(StandIn):
    """``POST /v1/chat/completions`` as Ollama, llama.cpp or vLLM answer it."""

    def answer(self, path: str, body: dict[str, Any], n: int) -> tuple[int, dict[str, Any]]:
        if not path.rstrip("/").endswith("/chat/completions"):
            return 404, {"error": {"message": f"no route {path}", "type": "not_found"}}
        fmt = (body.get("response_format") or {}).get("type")
        if self.mode == "error":
            return 500, {"error": {"message": "model crashed", "type": "server_error"}}
        if self.mode == "no_schema" and fmt == "json_schema":
            return 400, {"error": {"message": "response_format json_schema is not supported"}}
        patch = json.dumps(patch_for(n))
        content = {
            "ok": patch,
            "no_schema": patch,
            "prose": f"Sure! Here is the patch you asked for:\n\n```json\n{patch}\n```\nHope it helps.",
            "think": f"<think>The person named a task; one node.</think>\n```json\n{patch}\n```",
            "garbage": "I am not sure what you want me to do here.",
            "slow": patch,
        }[self.mode]
        tin, tout = self.count(body, content)
        return 200, {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "local"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
        }


class MessagesStandIn(StandIn):
    """``POST /v1/messages`` with the forced ``emit_patch`` tool, as the Anthropic API answers."""

    def answer(self, path: str, body: dict[str, Any], n: int) -> tuple[int, dict[str, Any]]:
        if not path.rstrip("/").endswith("/v1/messages"):
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        if self.mode == "error":
            return 500, {"type": "error", "error": {"type": "api_error", "message": "overloaded"}}
        tool = (body.get("tool_choice") or {}).get("name", "emit_patch")
        if self.mode == "garbage":
            content: list[dict[str, Any]] = [{"type": "text", "text": "no patch today"}]
            stop = "end_turn"
        else:
            content = [
                {"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": patch_for(n)}
            ]
            stop = "tool_use"
        tin, tout = self.count(body, json.dumps(content))
        return 200, {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": tout},
        }
