"""A new session starts where the last one left off; a resumed one gets nothing it has."""

from __future__ import annotations

from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.pipeline.engine import Engine
from rolling_graph.warm.reconcile import Reconciler

from ._hot import edge_op, hot_session, node_op
from .test_reconcile import T0


def _last_session(settings: Any) -> None:
    rec = Reconciler(settings, HotStore(settings.home))
    ops = [
        node_op("ship-resume", 0.9, label="Ship the resume block", kind="task",
                attrs={"status": "in_progress", "due": "friday"}),
        node_op("fix-login", 0.6, label="Fix login redirect", kind="task",
                attrs={"status": "completed"}),
        node_op("use-bento", 0.9, label="Use Bento", kind="decision", summary="deliverability"),
        node_op("use-resend", 0.3, label="Use Resend", kind="decision"),
        edge_op("use-bento", "supersedes", "use-resend", 0.9),
    ]  # fmt: skip
    rec.flush(hot_session(rec.hot, "old-session", ops), final=True, now=T0)
    rec.close()


def test_new_session_gets_where_we_left_off(warm_settings: Any) -> None:
    _last_session(warm_settings)
    engine = Engine(warm_settings)
    try:
        out = engine.handle(HookEvent("session_start", "new", cwd="/x", source="startup"))
        text = out.injected or ""
        assert text.startswith("Rolling memory from earlier sessions, where we left off")
        assert "last session old-sess" in text
        assert "[in progress] Ship the resume block (due friday)" in text
        assert "Completed last time: Fix login redirect." in text
        assert "Use Bento (supersedes Use Resend)" in text
        assert out.notes["warm"]["resume"]["previous_session"] == "old-session"
        # The pulled task keeps its attributes in the new hot graph.
        graph = engine.sessions["new"].graph
        assert graph.nodes["ship-resume"].attrs == {"status": "in_progress", "due": "friday"}
        # Resumed before anything happened: the same block again would only repeat it.
        again = engine.handle(HookEvent("session_start", "new", cwd="/x", source="resume"))
        assert again.injected is None and again.notes.get("inject_skipped") == "unchanged"
        # After a compaction the context is gone: the block comes back.
        compact = engine.handle(HookEvent("session_start", "new", cwd="/x", source="compact"))
        assert compact.injected and "Ship the resume block" in compact.injected
    finally:
        engine.close()


def test_resume_with_an_unchanged_graph_injects_nothing(warm_settings: Any) -> None:
    engine = Engine(warm_settings)
    try:
        hot_session(engine.store, "s", [node_op("alpha", 0.9, label="Alpha service")])
        engine.forget("s")
        first = engine.handle(HookEvent("session_start", "s", cwd="/x", source="resume"))
        assert first.injected and "Alpha service" in first.injected  # nothing sent before
        second = engine.handle(HookEvent("session_start", "s", cwd="/x", source="resume"))
        assert second.injected is None
    finally:
        engine.close()
