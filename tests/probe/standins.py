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

Prompt caching is reported as the real APIs report it. Messages: a request whose prefix (tools,
system, messages, in that order) up to a ``cache_control`` breakpoint was seen within its TTL
reads it (``usage.cache_read_input_tokens``), else writes it (``cache_creation_input_tokens``),
and only if it reaches the model's minimum (4,096 tokens for Haiku 4.5; 2,048 for the Haiku 3
family; else 1,024); ``input_tokens`` is the rest. Chat completions: the longest prefix of the
messages seen before, from 1,024 tokens in steps of 128, is
``usage.prompt_tokens_details.cached_tokens`` (``prompt_tokens`` includes it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
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
        self.tokens_cached = 0
        self.tokens_cache_write = 0
        self.cache_prefix_tokens = 0  # the size of the last cacheable prefix seen
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

    @staticmethod
    def tokens(data: Any) -> int:
        return len(json.dumps(data)) // 4

    def __enter__(self) -> StandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class OpenAIStandIn(StandIn):
    """``POST /v1/chat/completions`` as Ollama, llama.cpp or vLLM answer it."""

    CACHE_MIN = 1024
    CACHE_STEP = 128

    def __init__(self, mode: str = "ok", delay: float = 5.0) -> None:
        super().__init__(mode, delay)
        self.prompts: list[str] = []

    def cached(self, body: dict[str, Any]) -> int:
        """Tokens of the longest prefix of this prompt that an earlier one shared."""
        text = json.dumps(body.get("messages", []))
        with self._lock:
            common = max((len(os.path.commonprefix([text, p])) for p in self.prompts), default=0)
            self.prompts.append(text)
        tokens = common // 4
        return 0 if tokens < self.CACHE_MIN else tokens - tokens % self.CACHE_STEP

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
        cached = min(self.cached(body), tin)
        with self._lock:
            self.tokens_cached += cached
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
            "usage": {
                "prompt_tokens": tin,
                "completion_tokens": tout,
                "total_tokens": tin + tout,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }


class MessagesStandIn(StandIn):
    """``POST /v1/messages`` with the forced ``emit_patch`` tool, as the Anthropic API answers."""

    #: minimum cacheable prefix by model-name prefix (Anthropic's prompt-caching table)
    CACHE_MIN = (("claude-haiku-4-5", 4096), ("claude-opus-4-5", 4096), ("claude-3", 2048))
    TTL_S = {"5m": 300.0, "1h": 3600.0}

    def __init__(self, mode: str = "ok", delay: float = 5.0) -> None:
        super().__init__(mode, delay)
        self.cache: dict[str, float] = {}  # prefix hash -> expiry (monotonic)

    @staticmethod
    def _blocks(body: dict[str, Any]) -> list[Any]:
        """Tools, system blocks, message content blocks: the order the cache prefix follows."""
        system = body.get("system") or []
        out: list[Any] = list(body.get("tools") or [])
        out += [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        for m in body.get("messages") or []:
            c = m.get("content")
            out += [{"type": "text", "text": c}] if isinstance(c, str) else list(c or [])
        return out

    def cache_usage(self, body: dict[str, Any]) -> tuple[int, int]:
        """(read, written) tokens for the prefix up to the last ``cache_control`` breakpoint."""
        blocks = self._blocks(body)
        ends = [i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("cache_control")]
        if not ends:
            return 0, 0
        prefix = blocks[: ends[-1] + 1]
        size = self.tokens(prefix)
        model = str(body.get("model", ""))
        floor = next((m for p, m in self.CACHE_MIN if model.startswith(p)), 1024)
        if size < floor:
            return 0, 0
        key = hashlib.sha256(json.dumps(prefix, sort_keys=True).encode()).hexdigest()
        ttl = self.TTL_S.get(str(prefix[-1]["cache_control"].get("ttl", "5m")), 300.0)
        now = time.monotonic()
        with self._lock:
            self.cache_prefix_tokens = size
            hit = self.cache.get(key, 0.0) > now
            self.cache[key] = now + ttl
            if hit:
                self.tokens_cached += size
            else:
                self.tokens_cache_write += size
        return (size, 0) if hit else (0, size)

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
        read, written = self.cache_usage(body)
        return 200, {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": max(0, tin - read - written),
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written,
                "output_tokens": tout,
            },
        }
