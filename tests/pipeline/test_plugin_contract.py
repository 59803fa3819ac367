"""The plugin contract as third parties meet it: hand-offs are typed, documented fields of the
event context; the engine feeds the transcript before any hook runs; ``hookimpl`` comes from the
package; and the hook client and the CLI import nothing of the plugin machinery."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from rolling_graph.config import load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.pipeline import hookspecs
from rolling_graph.pipeline.engine import Engine
from rolling_graph.pipeline.plugins import get_plugin_manager

ROOT = Path(__file__).resolve().parents[2]


def _field_docstrings(cls: type) -> dict[str, str]:
    """Attribute docstrings (a string literal right after a field) of a class's source."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for node, nxt in zip(body.body, body.body[1:], strict=False):
        named = isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        if named and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)  # type: ignore[union-attr]
    return docs


def test_every_hand_off_is_a_documented_field_of_the_context() -> None:
    fields = {f.name for f in dataclasses.fields(hookspecs.EventContext)}
    # What the built-in plugins hand each other, each as its own field (no untyped dict).
    assert {
        "transcript_events",
        "coalesced",
        "gate",
        "probe_queued",
        "probe_tier",
        "notice",
        "warm",
        "resume",
        "inject_skipped",
    } <= fields
    docs = _field_docstrings(hookspecs.EventContext)
    own = fields - {"event", "session", "settings", "engine"}
    assert own <= set(docs), f"fields without a docstring: {sorted(own - set(docs))}"


def test_built_in_plugins_use_no_free_form_notes() -> None:
    for path in (ROOT / "rolling_graph" / "pipeline" / "default_plugins").glob("*.py"):
        assert "ctx.notes" not in path.read_text(), path.name


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    @hookspecs.hookimpl(tryfirst=True)
    def prompt_submit(self, ctx: Any, prompt: str) -> None:
        self.seen.append([str(ev.get("text", "")) for ev in ctx.transcript_events])

    @hookspecs.hookimpl(tryfirst=True)
    def pre_compact(self, ctx: Any, trigger: str) -> None:
        self.seen.append([str(ev.get("text", "")) for ev in ctx.transcript_events])


def _line(kind: str, text: str, n: int) -> str:
    msg: dict[str, Any] = {"role": kind, "content": text}
    if kind == "assistant":
        msg = {"role": "assistant", "id": f"m{n}", "content": [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": kind,
            "uuid": f"{kind}{n}",
            "sessionId": "feed",
            "timestamp": f"2026-02-01T10:00:0{n}.000Z",
            "message": msg,
        }
    )


def test_engine_feeds_new_transcript_lines_before_the_hooks(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_line("user", "first", 1) + "\n" + _line("assistant", "one", 2) + "\n")
    rec = _Recorder()
    pm = get_plugin_manager(load_entry_points=False, extra=[rec])
    engine = Engine(load_settings(home=tmp_path / "home", probe="offline"), pm=pm)
    try:

        def prompt(text: str) -> None:
            ev = HookEvent("prompt_submit", "feed", prompt=text, transcript_path=str(transcript))
            engine.handle(ev)

        prompt("first")
        with transcript.open("a") as fh:
            fh.write(_line("assistant", "two", 3) + "\n")
        prompt("second")
        prompt("third")  # nothing new since: nothing fed
        with transcript.open("a") as fh:
            fh.write(_line("assistant", "last words", 4) + "\n")
        # Before a compaction too: the agent's last reply reaches the pre-compaction probe.
        engine.handle(HookEvent("pre_compact", "feed", transcript_path=str(transcript)))
    finally:
        engine.close()
    assert rec.seen[0][-1] == "one"
    assert rec.seen[1] == ["two"]
    assert rec.seen[2] == []
    assert rec.seen[3] == ["last words"]


def test_a_session_keeps_its_transcript_offset_from_the_old_gate_state(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    old = _line("user", "first", 1) + "\n" + _line("assistant", "one", 2) + "\n"
    transcript.write_text(old + _line("assistant", "two", 3) + "\n")
    settings = load_settings(home=tmp_path / "home", probe="offline")
    rec = _Recorder()
    engine = Engine(settings, pm=get_plugin_manager(load_entry_points=False, extra=[rec]))
    # A session begun before the engine fed transcripts: the offset sat in the gate's state.
    engine.store.write_state("feed", "gate", {"transcript_offset": len(old.encode())})
    try:
        engine.handle(
            HookEvent("prompt_submit", "feed", prompt="x", transcript_path=str(transcript))
        )
    finally:
        engine.close()
    assert rec.seen == [["two"]]


def test_third_party_plugin_written_with_the_package_hookimpl_is_called(tmp_path: Path) -> None:
    from rolling_graph import hookimpl

    calls: list[str] = []

    class Plugin:
        @hookimpl
        def session_start(self, ctx: Any, source: str) -> None:
            calls.append(f"{ctx.session_id}:{source}")
            ctx.notes["plugin"] = "was here"

    pm = get_plugin_manager(load_entry_points=False, extra=[Plugin()])
    engine = Engine(load_settings(home=tmp_path, probe="offline"), pm=pm, replay=True)
    try:
        out = engine.handle(HookEvent("session_start", "tp", source="startup"))
    finally:
        engine.close()
    assert hookimpl is hookspecs.hookimpl
    assert calls == ["tp:startup"]
    assert out.notes["plugin"] == "was here"  # the free-form bag reaches the outcome


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return set(out.stdout.split())


def test_the_hook_client_imports_no_plugin_machinery() -> None:
    # The client's home, and its former import path (kept for code written against it).
    for module in ("rolling_graph.transport.client", "rolling_graph.transport.client"):
        mods = _modules_after(f"import {module}; {module}.main")
        assert module in mods and "rolling_graph.transport.protocol" in mods
        heavy = {m for m in mods if m.split(".")[0] in ("pluggy", "click", "pydantic")}
        assert not heavy, (module, sorted(heavy))
        assert not {m for m in mods if m.startswith("rolling_graph.pipeline.hookspecs")}
        # ~4 ms on every hook, for annotations alone (unless the interpreter's start-up has it).
        assert "typing" not in mods - _modules_after("pass")


def test_importing_the_cli_builds_no_plugin_manager() -> None:
    mods = _modules_after("import rolling_graph.cli")
    assert "rolling_graph.cli" in mods
    assert "pluggy" not in mods and "rolling_graph.pipeline.plugins" not in mods
