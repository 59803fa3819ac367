"""The anthropic backend through the real SDK; HTTP answered by httpx.MockTransport or a local
HTTP server (no network)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.probe.anthropic_backend import TOOL_NAME, AnthropicBackend
from rolling_graph.probe.base import ProbeError
from tests.probe.conftest import VALID_PATCH, make_request

pytest.importorskip("anthropic")
try:  # anthropic SDK 2.x runs on httpx2 (same API); older SDKs on httpx
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]


def message(
    tool_input: Any, stop_reason: str = "tool_use", usage: tuple[int, int] = (321, 45)
) -> dict[str, Any]:
    content = (
        [{"type": "tool_use", "id": "toolu_01", "name": TOOL_NAME, "input": tool_input}]
        if stop_reason != "refusal"
        else []
    )
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


class Recorder:
    """A MockTransport handler that answers from a list and keeps every request."""

    def __init__(self, *responses: Any) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        r = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(r, Exception):
            raise r
        if callable(r):
            return r(request)
        return r


def ok(body: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, json=body)


def err(status: int) -> httpx.Response:
    return httpx.Response(
        status,
        json={
            "type": "error",
            "error": {"type": "rate_limit_error" if status == 429 else "api_error", "message": "x"},
        },
        headers={"retry-after-ms": "5"},  # the SDK honours it: fast tests, real backoff path
    )


def backend(settings: Any, handler: Recorder) -> AnthropicBackend:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return AnthropicBackend(
        settings, http_client=client, api_key="sk-ant-test-not-a-real-key-000000"
    )


def test_valid_reply_applies(settings: Any) -> None:
    rec = Recorder(ok(message(VALID_PATCH)))
    reply = backend(settings, rec).run(make_request())
    assert reply.raw == VALID_PATCH
    assert (reply.tokens_in, reply.tokens_out) == (321, 45)
    assert reply.prompt_id == "probe.v3" and len(reply.prompt_hash or "") == 64
    sent = json.loads(rec.requests[0].content)
    assert sent["model"] == "claude-haiku-4-5"
    assert sent["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert sent["tools"][0]["input_schema"]["required"] == ["rationale", "ops"]
    assert "let's use Resend for email" in sent["messages"][0]["content"]
    sess = HotSession.in_memory("s1")
    res = sess.apply(reply.raw, PatchSource(reply.backend, reply.prompt_id, reply.prompt_hash))
    assert res.applied and "use-resend|uses|email" in sess.graph.edges


def test_ops_as_json_string_are_accepted(settings: Any) -> None:
    rec = Recorder(ok(message({"rationale": "r", "ops": json.dumps(VALID_PATCH["ops"])})))
    assert backend(settings, rec).run(make_request()).raw["ops"] == VALID_PATCH["ops"]


def test_invalid_op_is_rejected_whole(settings: Any) -> None:
    bad = {
        "rationale": "r",
        "ops": [*VALID_PATCH["ops"], {"op": "remove", "path": "/nodes/email", "reason": "x"}],
    }
    reply = backend(settings, Recorder(ok(message(bad)))).run(make_request())
    sess = HotSession.in_memory("s1")
    sess.apply({"ops": [VALID_PATCH["ops"][1]]}, PatchSource("seed"))
    before = json.dumps(sess.graph.to_json_dict(), sort_keys=True)
    res = sess.apply(reply.raw, PatchSource(reply.backend))
    assert not res.applied and "remove is not allowed" in (res.error or "")
    assert json.dumps(sess.graph.to_json_dict(), sort_keys=True) == before


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            200,
            content=b'{"id": "msg_01", "type": "message", "content": [',
            headers={"content-type": "application/json"},
        ),
        httpx.Response(200, json=message("not an object")),
        httpx.Response(200, json=message({"rationale": "r", "ops": "[{not json"})),
        httpx.Response(
            200, json={**message(VALID_PATCH), "content": [{"type": "text", "text": "no tool"}]}
        ),
    ],
    ids=["truncated-body", "input-not-object", "ops-not-json", "no-tool-call"],
)
def test_malformed_reply_is_a_probe_error(settings: Any, response: httpx.Response) -> None:
    with pytest.raises(ProbeError):
        backend(settings, Recorder(response)).run(make_request())


def test_refusal(settings: Any) -> None:
    with pytest.raises(ProbeError, match="refus") as info:
        backend(settings, Recorder(ok(message({}, stop_reason="refusal")))).run(make_request())
    assert info.value.reply is not None and info.value.reply.tokens_in == 321


@pytest.mark.parametrize("status", [429, 500, 529])
def test_retries_then_success(settings: Any, status: int) -> None:
    rec = Recorder(err(status), err(status), ok(message(VALID_PATCH)))
    reply = backend(settings, rec).run(make_request())
    assert len(rec.requests) == 3  # two retries with backoff, then the answer
    assert reply.raw == VALID_PATCH
    # the SDK numbers its retries: proof that these were retries of one call
    assert [r.headers.get("x-stainless-retry-count") for r in rec.requests] == ["0", "1", "2"]


@pytest.mark.parametrize("status", [429, 500])
def test_retries_exhausted(settings: Any, status: int) -> None:
    rec = Recorder(err(status))
    with pytest.raises(ProbeError, match=f"HTTP {status}"):
        backend(settings, rec).run(make_request())
    assert len(rec.requests) == 1 + settings.probe_retries


def test_client_error_is_not_retried(settings: Any) -> None:
    rec = Recorder(
        httpx.Response(
            400,
            json={"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}},
        )
    )
    with pytest.raises(ProbeError, match="HTTP 400"):
        backend(settings, rec).run(make_request())
    assert len(rec.requests) == 1


def test_connection_error_retried(settings: Any) -> None:
    rec = Recorder(httpx.ConnectError("refused"), ok(message(VALID_PATCH)))
    assert backend(settings, rec).run(make_request()).raw == VALID_PATCH
    assert len(rec.requests) == 2


def test_timeout_transport(settings: Any) -> None:
    rec = Recorder(httpx.ReadTimeout("slow"))
    with pytest.raises(ProbeError, match="timed out"):
        backend(settings, rec).run(make_request())
    assert len(rec.requests) == 1 + settings.probe_retries


def test_timeout_real_server(settings: Any) -> None:
    """A local server that answers too late: the per-call timeout fires for real."""
    hits: list[float] = []

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            hits.append(time.monotonic())
            self.rfile.read(int(self.headers.get("content-length", 0)))
            time.sleep(1.5)
            try:
                self.send_response(200)
                self.end_headers()
            except OSError:
                pass

        def log_message(self, *a: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        s = settings.model_copy(update={"probe_timeout": 0.3, "probe_retries": 1})
        b = AnthropicBackend(
            s,
            api_key="sk-ant-test-not-a-real-key-000000",
            base_url=f"http://127.0.0.1:{server.server_address[1]}",
        )
        started = time.monotonic()
        with pytest.raises(ProbeError, match="timed out"):
            b.run(make_request())
        assert time.monotonic() - started < 5
        assert len(hits) == 2  # the first try and one retry
    finally:
        server.shutdown()
