"""Reply first, handle after (transport/reply_first.py), through the worker's own hook path in
process with a real engine: which events wait for their handling, which are answered with the
block the session's earlier events left pending, the order per session, and a pending block
that outlives its worker."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import load_settings
from rolling_graph.pipeline.engine import Engine
from rolling_graph.probe.runner import get_runner
from rolling_graph.transport.hook_handler import parse_hook
from rolling_graph.transport.reply_first import Replies, SessionOrder
from rolling_graph.transport.server import Worker


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    files = {k: str(tmp_path / k) for k in ("socket", "lock", "info", "spawn")}
    files["dir"] = str(tmp_path)
    w = Worker(files)
    w.engine = Engine(load_settings(home=tmp_path / "home", probe="offline"))
    w.ready.set()
    try:
        yield w
    finally:
        w.engine.close()


def _raw(cwd: Path, **fields: Any) -> bytes:
    return json.dumps({"session_id": "s", "cwd": str(cwd), **fields}).encode()


def _hook(w: Worker, cwd: Path, **fields: Any) -> tuple[str, bool]:
    """(the context the hook printed, whether it was answered before the event was handled)."""
    handled = len(w._handle_ms)
    reply, after = w._hook(_raw(cwd, **fields), "claude-code")
    assert reply["ok"], reply
    early = len(w._handle_ms) == handled  # not handled yet when the reply was made
    if after is not None:
        after()  # what the connection's thread does once the reply is sent
    # The offline probe of a prompt runs in the background: its result, if any, then comes at
    # a fixed point of the sequence, not whenever the thread gets there.
    assert get_runner(w.engine).wait("s", 30)
    out = reply["out"]
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    return text, early


def _tool(cwd: Path, tool: str, name: str) -> dict[str, Any]:
    path = str(cwd / name)
    tool_input = {"file_path": path, "old_string": "a", "new_string": "b"} if tool == "Edit" else {}
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": tool_input or {"file_path": path},
        "tool_response": "ok",
    }


def test_a_block_reaches_the_agent_on_the_next_event(worker: Worker, tmp_path: Path) -> None:
    cwd = tmp_path
    assert _hook(worker, cwd, hook_event_name="SessionStart", source="compact") == ("", False)
    # The first prompt after a start waits for its own handling (warm pull, summary harvest).
    assert _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="go on")[1] is False
    # Then prompts and tool calls are answered first, with what earlier events rendered.
    assert _hook(worker, cwd, **_tool(cwd, "Edit", "mailer.py")) == ("", True)
    text, early = _hook(worker, cwd, **_tool(cwd, "Read", "notes.py"))
    assert early and "mailer.py" in text and "notes.py" not in text
    text, early = _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="next")
    assert early and "notes.py" in text and "mailer.py" in text
    # After a compaction the next context event waits, and carries the block itself.
    assert _hook(worker, cwd, hook_event_name="PreCompact", trigger="manual") == ("", False)
    text, early = _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="again")
    assert not early and "mailer.py" in text and "notes.py" in text
    st = worker.status()
    assert st["behind"] == 0 and st["handle_ms"]["n"] == 7


def test_an_undelivered_block_outlives_its_worker(worker: Worker, tmp_path: Path) -> None:
    cwd = tmp_path
    _hook(worker, cwd, hook_event_name="SessionStart", source="compact")
    _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="go on")
    assert _hook(worker, cwd, **_tool(cwd, "Edit", "mailer.py")) == ("", True)
    assert worker._replies is not None
    worker._replies.save()  # the worker stops with the block undelivered
    store = worker.engine.store
    call = parse_hook(worker.engine, _raw(cwd, hook_event_name="UserPromptSubmit", prompt="x"))
    assert call is not None
    nxt = Replies(store)  # the next worker
    assert not nxt.waits("prompt_submit", "s")
    assert "mailer.py" in nxt.take(call, lambda: False)
    assert Replies(store).take(call, lambda: False) == ""  # delivered once


def test_events_of_a_session_are_handled_in_arrival_order() -> None:
    order = SessionOrder()
    tickets = [order.take("s") for _ in range(3)]
    other = order.take("t")  # another session does not wait for this one
    seen: list[int] = []

    def handle(ticket: int) -> None:
        with order.turn("s", ticket):
            seen.append(ticket)

    threads = [threading.Thread(target=handle, args=(t,)) for t in reversed(tickets[1:])]
    for t in threads:
        t.start()
    with order.turn("t", other):
        pass
    with order.turn("s", tickets[0]):
        assert seen == []  # the later events wait for the first
        seen.append(tickets[0])
    for t in threads:
        t.join()
    assert seen == tickets and order.behind() == 0


def test_what_a_prompts_probe_found_comes_with_the_next_prompt(
    worker: Worker, tmp_path: Path
) -> None:
    cwd = tmp_path
    _hook(worker, cwd, hook_event_name="SessionStart", source="startup")
    _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="hello")
    said = "Let's use PostgreSQL for the warm store instead of SQLite."
    text, early = _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt=said)
    assert early and "PostgreSQL" not in text
    # The offline probe read that prompt after the reply; its block is rendered once the
    # patch is applied, and is what the very next prompt brings (no tool call in between).
    text, early = _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="go on")
    assert early and "PostgreSQL" in text


def test_a_block_pending_at_session_end_comes_with_the_resumed_session(
    worker: Worker, tmp_path: Path
) -> None:
    """`claude -p` ends the session after every run and resumes it in the next: the block the
    last tool call rendered is counted as delivered by the renderer, so it must not be lost."""
    cwd = tmp_path
    _hook(worker, cwd, hook_event_name="SessionStart", source="startup")
    _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="hello")
    assert _hook(worker, cwd, **_tool(cwd, "Edit", "mailer.py")) == ("", True)
    assert _hook(worker, cwd, hook_event_name="SessionEnd", reason="other") == ("", False)
    text, early = _hook(worker, cwd, hook_event_name="SessionStart", source="resume")
    assert not early and "mailer.py" in text


def test_a_project_that_opts_out_gets_no_pending_block(worker: Worker, tmp_path: Path) -> None:
    cwd = tmp_path
    _hook(worker, cwd, hook_event_name="SessionStart", source="startup")
    _hook(worker, cwd, hook_event_name="UserPromptSubmit", prompt="hello")
    assert _hook(worker, cwd, **_tool(cwd, "Edit", "mailer.py")) == ("", True)
    (cwd / ".rolling-graph-ignore").write_text("")  # a block is pending; then the opt-out
    assert _hook(worker, cwd, **_tool(cwd, "Read", "notes.py")) == ("", True)
    audit = worker.engine.store.dir("s") / "audit.jsonl"
    assert "notes.py" not in audit.read_text()  # nor was the event read


def test_an_addendum_after_a_compaction_does_not_drop_the_block_still_owed(
    worker: Worker, tmp_path: Path
) -> None:
    """A prompt's block was pending (rendered after its reply) when the harness compacted; the
    first prompt after, handled before its reply, injects only the addendum: the agent gets the
    block it is owed, then the addendum (Copilot CLI has no SessionStart(compact))."""
    store = worker.engine.store
    replies = Replies(store)
    call = parse_hook(worker.engine, _raw(tmp_path, hook_event_name="UserPromptSubmit", prompt="x"))
    assert call is not None
    block = "Rolling memory of this session (turn 3, 4 items). Current work first:\nUse Resend."
    replies.rendered("s", block)
    store.write_state("s", "last_block", {"text": block})
    addendum = "Also from this session, not in the summary above: PROVIDER."
    out = replies.handled(call, addendum, replied=False)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert text == f"{block}\n{addendum}"
    # A full block of its own replaces the pending one.
    replies.rendered("s", block)
    fresh = "Rolling memory of this session (turn 4, 5 items). Current work first:\nUse Bento."
    out = replies.handled(call, fresh, replied=False)
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == fresh
