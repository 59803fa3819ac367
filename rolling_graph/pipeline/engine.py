"""The pipeline that handles session events, shared by the worker and by in-process replay.

``Engine.handle(event)`` loads the session's hot graph, advances the turn and decays it on a
user prompt, calls the plugin hooks (gate → probe scheduling / warm → rendering), saves the
graph, and returns an :class:`Outcome` that the harness adapter turns into hook output.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.config import Settings, load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore, HotStoreProtocol
from rolling_graph.core.session import HotSession, SessionParams
from rolling_graph.pipeline.hookspecs import EventContext
from rolling_graph.pipeline.plugins import get_plugin_manager


@dataclass
class Outcome:
    """What one event produced; also the record written to a replay trace."""

    session_id: str
    event: str
    turn: int
    step: int
    source: str | None = None
    triggers: list[dict[str, Any]] = field(default_factory=list)
    probe: bool = False
    ops_applied: int = 0
    injected: str | None = None
    injected_tokens: int = 0
    ms: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)  # the context's hand-offs, by name


class Engine:
    """Holds settings, the plugin manager, open sessions and shared components (gate, probe runner,
    warm store), created lazily by the plugins that need them and kept in ``components``."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        pm: Any = None,
        store: HotStoreProtocol | None = None,
        replay: bool = False,
    ) -> None:
        self.settings = settings or load_settings()
        self.params = SessionParams.from_settings(self.settings)
        self.store: HotStoreProtocol = store or HotStore(self.settings.home)
        self.pm = pm or get_plugin_manager()
        self.replay = (
            replay  # in-process replay: probes run synchronously, clock from the transcript
        )
        self.components: dict[str, Any] = {}
        self.sessions: dict[str, HotSession] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._locks_guard = threading.Lock()

    # -- sessions
    def thread_lock(self, session_id: str) -> threading.RLock:
        with self._locks_guard:
            return self._locks.setdefault(session_id, threading.RLock())

    @contextmanager
    def locked_session(self, session_id: str) -> Iterator[HotSession]:
        """The open session under both the in-process lock and the on-disk lock."""
        with self.thread_lock(session_id), self.store.lock(session_id):
            sess = self.sessions.get(session_id)
            if sess is not None and sess.is_stale():
                sess = None  # the CLI or a recover run changed it on disk: theirs wins
            if sess is None:
                sess = HotSession.open(self.store, session_id, self.params)
                self.sessions[session_id] = sess
            yield sess

    def component(self, name: str, factory: Any) -> Any:
        """A shared component (gate, probe runner, warm reconciler), built once on first use."""
        if name not in self.components:
            self.components[name] = factory(self)
        return self.components[name]

    def forget(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)

    # -- events
    def handle(self, event: HookEvent) -> Outcome:
        started = time.perf_counter()
        from rolling_graph.privacy.boundary import sanitize_event

        # The privacy boundary: nothing below this line sees a raw text of the event.
        event = sanitize_event(event)
        with self.locked_session(event.session_id) as sess:
            ctx = EventContext(event=event, session=sess, settings=self.settings, engine=self)
            counters = self._before_hooks(ctx)
            self._call_hooks(ctx)
            sess.save()
            outcome = Outcome(
                session_id=event.session_id,
                event=event.kind if event.kind != "tool_use" else f"{event.phase}_tool_use",
                turn=sess.graph.turn,
                step=int(counters.get("step", 0)),
                source=event.source if event.kind == "session_start" else None,
                triggers=[t.as_dict() for t in ctx.triggers],
                probe=ctx.probe_requested,
                ops_applied=ctx.ops_applied,
                injected=ctx.inject,
                injected_tokens=ctx.inject_tokens,
                notes=ctx.report(),
            )
            if event.kind == "session_end":
                self.forget(event.session_id)
        outcome.ms = round((time.perf_counter() - started) * 1000, 3)
        return outcome

    def _before_hooks(self, ctx: EventContext) -> dict[str, Any]:
        """Advance the clocks and feed the context what the transcript says since the last
        event (on prompts, finished tool steps and before a compaction, so that the agent's last
        reply reaches the pre-compaction probe); returns the session's counters."""
        event, sess = ctx.event, ctx.session
        counters = self.store.read_state(event.session_id, "counters", {"step": 0})
        before = dict(counters)
        if event.kind == "prompt_submit":
            sess.advance_turn()
            sess.decay()
        elif event.kind == "tool_use" and event.phase == "post":
            counters["step"] = int(counters.get("step", 0)) + 1
        # SessionEnd too, but only to look: a compaction summary may be the transcript's last
        # entry (harvest). The offset stays, so the next event (a resumed session's first
        # prompt) still reads the agent's last reply and the summary, for its names and the
        # addendum.
        if event.kind in ("prompt_submit", "pre_compact", "session_end") or (
            event.kind == "tool_use" and event.phase == "post"
        ):
            from rolling_graph.harness.adapters.transcript_feed import feed

            moved = dict(counters) if event.kind == "session_end" else counters
            ctx.transcript_events = feed(self.store, event, moved, replay=self.replay)
        if counters != before:
            # Written only when a finished tool step or new transcript lines moved it.
            self.store.write_state(event.session_id, "counters", counters)
        return counters

    def _call_hooks(self, ctx: EventContext) -> None:
        event, hook = ctx.event, self.pm.hook
        if event.kind == "prompt_submit":
            hook.prompt_submit(ctx=ctx, prompt=event.prompt or "")
        elif event.kind == "tool_use":
            hook.tool_use(
                ctx=ctx,
                tool_name=event.tool_name or "",
                tool_input=event.tool_input or {},
                tool_response=event.tool_response,
                phase=event.phase,
            )
        elif event.kind == "session_start":
            hook.session_start(ctx=ctx, source=event.source or "startup")
        elif event.kind == "pre_compact":
            hook.pre_compact(ctx=ctx, trigger=event.trigger or "auto")
        elif event.kind == "session_end":
            hook.session_end(ctx=ctx, reason=event.reason or "other")
        else:  # pragma: no cover - HookEvent.kind is a Literal
            raise ValueError(f"unknown event kind {event.kind!r}")

    def close(self) -> None:
        for comp in self.components.values():
            close = getattr(comp, "close", None)
            if callable(close):
                close()
        self.components.clear()
