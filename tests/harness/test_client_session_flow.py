"""Where the client adapters meet resume, security and the MCP hint (the harness merge).

- the start event's cold-worker wait applies to each client's own start event;
- after a compaction the next context event brings the block back even when it is identical
  (the "no identical re-injection" rule must not swallow it);
- client session ids become safe keys, and opted-out projects are ignored for every client;
- the MCP hint names tools only a Claude Code session has.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rolling_graph.config import load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.harness.adapters import codex, copilot_cli, gemini_cli
from rolling_graph.paths import safe_session_id
from rolling_graph.pipeline.engine import Engine
from rolling_graph.transport import client as hookclient
from rolling_graph.transport.hook_handler import handle_hook_bytes

from ..warm._hot import hot_session, node_op


def test_each_clients_start_event_waits_for_a_cold_worker() -> None:
    start = b'{"hook_event_name": "SessionStart", "session_id": "s"}'
    prompt = b'{"hook_event_name": "UserPromptSubmit", "session_id": "s"}'
    for harness in ("claude-code", "codex", "gemini"):
        assert hookclient._start_budget_s(start, harness) == 20.0
        assert hookclient._start_budget_s(prompt, harness) is None
    # Copilot's payloads do not name the event: the command line does.
    assert hookclient._start_budget_s(b'{"sessionId": "s"}', "copilot", "sessionStart") == 20.0
    assert hookclient._start_budget_s(b'{"sessionId": "s"}', "copilot", "preToolUse") is None


def test_client_session_ids_become_safe_keys() -> None:
    bad = "../../etc/" + "x" * 300
    events = [
        codex.parse_payload(
            {"hook_event_name": "UserPromptSubmit", "session_id": bad, "prompt": "hi"}
        ),
        gemini_cli.parse_payload(
            {"hook_event_name": "BeforeAgent", "session_id": bad, "prompt": "hi"}
        ),
        copilot_cli.parse_payload({"sessionId": bad, "prompt": "hi"}, "userPromptSubmitted"),
    ]
    for ev in events:
        assert ev is not None and ev.session_id == safe_session_id(bad)
        assert "/" not in ev.session_id and len(ev.session_id) < 80


class _NoEngine:
    settings = SimpleNamespace(ignore_paths=(), home=None)

    def handle(self, event: Any) -> Any:  # pragma: no cover - must not be reached
        raise AssertionError(f"an opted-out project's event reached the engine: {event}")


def test_an_opted_out_project_is_ignored_for_every_client(tmp_path: Path) -> None:
    (tmp_path / ".rolling-graph-ignore").write_text("")
    cwd = str(tmp_path / "src")
    payloads = {
        "codex": ({"hook_event_name": "SessionStart", "session_id": "a", "cwd": cwd}, None),
        "gemini": ({"hook_event_name": "SessionStart", "session_id": "b", "cwd": cwd}, None),
        "copilot": ({"sessionId": "c", "cwd": cwd, "source": "new"}, "sessionStart"),
    }
    for harness, (payload, event) in payloads.items():
        raw = json.dumps(payload).encode()
        assert handle_hook_bytes(_NoEngine(), raw, harness, event) == ""


@pytest.mark.parametrize("harness", ["gemini", "copilot"])
def test_the_same_block_comes_back_after_a_compaction(tmp_path: Path, harness: str) -> None:
    engine = Engine(load_settings(home=tmp_path, probe="offline"))
    try:
        hot_session(engine.store, "s", [node_op("alpha", 0.9, label="Alpha service")])
        engine.forget("s")

        def ev(kind: str, **kw: Any) -> HookEvent:
            return HookEvent(kind, "s", cwd="/x", harness=harness, **kw)

        first = engine.handle(ev("session_start", source="resume"))
        assert first.injected and "Alpha service" in first.injected
        same = engine.handle(ev("prompt_submit", prompt="go on"))
        assert same.injected is None and same.notes.get("inject_skipped") == "unchanged"
        # Gemini CLI and Copilot CLI send no SessionStart after compacting: the next context
        # event must bring the (unchanged) block back, once.
        engine.handle(ev("pre_compact", trigger="manual"))
        back = engine.handle(ev("prompt_submit", prompt="go on"))
        assert back.injected and "Alpha service" in back.injected
        again = engine.handle(ev("prompt_submit", prompt="go on"))
        assert again.injected is None
        # A compaction in the middle of a turn (Copilot compacts between tool calls): the
        # block is then the very text last injected, and it must come back all the same.
        tool = {"tool_name": "Noop", "tool_input": {}, "tool_response": ""}
        engine.handle(ev("pre_compact", trigger="auto"))
        mid = engine.handle(ev("tool_use", phase="post", **tool))
        assert mid.injected and "Alpha service" in mid.injected
        engine.handle(ev("pre_compact", trigger="auto"))
        twice = engine.handle(ev("tool_use", phase="post", **tool))
        assert twice.injected == mid.injected
        assert engine.handle(ev("tool_use", phase="post", **tool)).injected is None
    finally:
        engine.close()


def test_the_mcp_hint_is_for_claude_code_sessions_only(tmp_path: Path) -> None:
    from rolling_graph.harness.install.mcp import MARKER

    settings = load_settings(home=tmp_path, probe="offline")
    (tmp_path / MARKER).write_text("[]")  # a Claude Code registration exists
    engine = Engine(settings)
    try:
        for sid, harness in (("claude", "claude-code"), ("codex", "codex")):
            hot_session(engine.store, sid, [node_op("alpha", 0.9, label="Alpha service")])
            engine.forget(sid)
            out = engine.handle(
                HookEvent("session_start", sid, cwd="/x", harness=harness, source="startup")
            )
            assert out.injected and ("memory_search" in out.injected) == (harness == "claude-code")
    finally:
        engine.close()
