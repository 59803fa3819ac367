"""The openai backend through the real ``openai`` SDK against local OpenAI-compatible servers
(tests/probe/standins.py): one that honours the JSON schema, one that ignores it and wraps the
JSON in prose and fences, one that refuses the schema (400), a reasoning model, a bad reply,
a 5xx and one that times out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import Settings
from rolling_graph.probe.base import ProbeError
from rolling_graph.probe.openai_backend import OpenAIBackend, parse_patch
from rolling_graph.probe.select import make_backend, resolve_name
from tests.probe.conftest import make_request
from tests.probe.standins import OpenAIStandIn, patch_for

pytest.importorskip("openai")


def settings_for(tmp_path: Path, server: OpenAIStandIn | None, **kw: Any) -> Settings:
    base = {
        "home": tmp_path / "home",
        "probe": "openai",
        "openai_base_url": f"{server.url}/v1" if server else "",
        "openai_model": "qwen2.5:7b",
        "probe_timeout": 2.0,
        "probe_retries": 0,
    }
    return Settings(**{**base, **kw})


def test_schema_server(tmp_path: Path) -> None:
    with OpenAIStandIn("ok") as srv:
        backend = OpenAIBackend(settings_for(tmp_path, srv))
        reply = backend.run(make_request())
        backend.close()
    assert reply.raw == patch_for(1)
    body = srv.bodies[0]
    assert body["model"] == "qwen2.5:7b"
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["required"] == [
        "rationale",
        "ops",
    ]
    assert body["messages"][0]["role"] == "system" and "Resend" in body["messages"][1]["content"]
    assert reply.tokens_in == srv.tokens_in > 100 and reply.tokens_out == srv.tokens_out > 0
    assert not reply.tokens_estimated
    assert reply.prompt_id == "probe.v3" and len(reply.prompt_hash or "") == 64
    assert reply.model == "qwen2.5:7b" and reply.backend == "openai"


@pytest.mark.parametrize("mode", ["prose", "think"])
def test_server_ignoring_the_schema_is_parsed_tolerantly(tmp_path: Path, mode: str) -> None:
    with OpenAIStandIn(mode) as srv:
        reply = OpenAIBackend(settings_for(tmp_path, srv)).run(make_request())
    assert srv.calls == 1 and reply.raw == patch_for(1)


def test_server_refusing_the_schema_steps_down_once(tmp_path: Path) -> None:
    with OpenAIStandIn("no_schema") as srv:
        backend = OpenAIBackend(settings_for(tmp_path, srv))
        first = backend.run(make_request())
        second = backend.run(make_request())
    kinds = [(b.get("response_format") or {}).get("type") for b in srv.bodies]
    # 400 on json_schema, then json_object works and is kept for the next call
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert first.raw == patch_for(2) and second.raw == patch_for(3)


def test_response_format_none_sends_none(tmp_path: Path) -> None:
    with OpenAIStandIn("ok") as srv:
        OpenAIBackend(settings_for(tmp_path, srv, openai_response_format="none")).run(
            make_request()
        )
    assert "response_format" not in srv.bodies[0]


def test_bad_reply_is_a_probe_error_with_usage(tmp_path: Path) -> None:
    with OpenAIStandIn("garbage") as srv, pytest.raises(ProbeError, match="no JSON patch") as ei:
        OpenAIBackend(settings_for(tmp_path, srv)).run(make_request())
    assert ei.value.reply is not None and ei.value.reply.tokens_in == srv.tokens_in


def test_5xx_is_retried_then_fails(tmp_path: Path) -> None:
    with OpenAIStandIn("error") as srv, pytest.raises(ProbeError, match="HTTP 500"):
        OpenAIBackend(settings_for(tmp_path, srv, probe_retries=2)).run(make_request())
    assert srv.calls == 3  # the SDK's own retries, honouring retry-after


def test_timeout(tmp_path: Path) -> None:
    with OpenAIStandIn("slow", delay=3.0) as srv:
        started = time.perf_counter()
        with pytest.raises(ProbeError, match="timed out"):
            OpenAIBackend(settings_for(tmp_path, srv, probe_timeout=0.5)).run(make_request())
        assert time.perf_counter() - started < 2.5


def test_connection_refused(tmp_path: Path) -> None:
    with OpenAIStandIn("ok") as srv:
        url = srv.url
    s = settings_for(tmp_path, None, openai_base_url=f"{url}/v1")
    with pytest.raises(ProbeError, match="connection failed"):
        OpenAIBackend(s).run(make_request())


@pytest.mark.parametrize(
    "text",
    [
        '{"rationale": "x", "ops": []}',
        'Here you go:\n```json\n{"rationale": "x", "ops": []}\n```',
        '{"patch": {"rationale": "x", "ops": []}}',
        '{"rationale": "x", "ops": "[]"}',
        '<think>hmm {not json}</think> {"rationale": "x", "ops": []}',
    ],
)
def test_parse_patch_shapes(text: str) -> None:
    assert parse_patch(text)["ops"] == []


def test_parse_patch_bare_list_of_ops() -> None:
    ops = [{"op": "add", "path": "/nodes/a", "value": {"label": "A"}, "reason": "r"}]
    import json

    assert parse_patch(json.dumps(ops)) == {"rationale": "", "ops": ops}
    with pytest.raises(ProbeError):
        parse_patch("[1, 2, 3]")


def test_select_auto_and_by_name(tmp_path: Path) -> None:
    s = settings_for(tmp_path, None, probe="auto", openai_base_url="http://127.0.0.1:9/v1")
    assert resolve_name("auto", s, env={"PATH": ""}) == "openai"
    assert resolve_name("auto", s, env={"PATH": "", "ANTHROPIC_API_KEY": "k"}) == "anthropic"
    plain = settings_for(tmp_path, None, probe="auto")
    assert resolve_name("auto", plain, env={"PATH": "", "OPENAI_API_KEY": "k"}) == "offline"
    assert isinstance(make_backend(s, name="openai"), OpenAIBackend)


def test_doctor_checks_the_endpoint(tmp_path: Path) -> None:
    from rolling_graph.cli.doctor_probe import check_probe

    with OpenAIStandIn("ok") as srv:
        ok = check_probe(settings_for(tmp_path, srv))
    assert ok.ok and "qwen2.5:7b" in ok.detail
    down = check_probe(settings_for(tmp_path, srv))  # the server is gone now
    assert not down.ok and "does not answer" in down.detail and "ollama serve" in down.fix
