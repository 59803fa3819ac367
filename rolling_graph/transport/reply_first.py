"""Reply first, handle after: how the worker answers a hook at the interpreter floor.

Handling an event (gate, spaCy, probe scheduling, observers, render, the hot store's writes)
takes tens of milliseconds; the hook client waits for the reply. So for the events that come
in a run (a prompt, a tool call) the worker replies at once with the block that is *pending*
for the session — what the handling of the session's previous events rendered and nobody has
delivered yet — and then handles the event; the block it renders is pending for the next one.
The agent so sees what an event changed with the next event (the next tool call's hook or the
next prompt's). A probe the event started is applied in the background; the block is rendered
again then (:func:`render_after_probe`), so its result comes with the next event as before.

Some events wait for their own handling (:meth:`Replies.waits`): the start of a session, a
compaction and the end (rare; they carry the block after a lost context, or nothing), and the
first prompt or tool call after a start or compaction (it reads the harness's compaction
summary and the first prompt's warm branches, whose block belongs to that very request).

Events of one session are handled in arrival order (:class:`SessionOrder`), whether the hook
waited or not. A pending block is never dropped (the renderer counts it delivered), not even at
the session's end (``claude -p`` resumes the session in its next run). It lives in memory; when
the worker stops, it goes to the
session's ``pending_block.json`` and the next worker delivers it (a killed worker loses it; the
renderer sends the block again when it next changes).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

log = logging.getLogger("rolling_graph.transport")

STATE = "pending_block"
BLOCK_HEAD = "Rolling memory "  # every block's first words (render.block, render.resume)
#: events that come in a run and are answered before they are handled
EARLY_KINDS = ("prompt_submit", "tool_use")


class SessionOrder:
    """Per-session tickets: events of one session are handled in the order they arrived,
    although each is handled on its own connection's thread."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next: dict[str, int] = {}
        self._serving: dict[str, int] = {}

    def take(self, session_id: str) -> int:
        with self._cond:
            ticket = self._next.get(session_id, 0)
            self._next[session_id] = ticket + 1
            self._serving.setdefault(session_id, 0)
            return ticket

    @contextlib.contextmanager
    def turn(self, session_id: str, ticket: int) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: self._serving.get(session_id, 0) >= ticket)
        try:
            yield
        finally:
            with self._cond:
                self._serving[session_id] = ticket + 1
                if self._next.get(session_id) == ticket + 1:  # caught up: forget the session
                    self._next.pop(session_id, None)
                    self._serving.pop(session_id, None)
                self._cond.notify_all()

    def behind(self) -> int:
        """Events accepted and not yet handled, over all sessions (status, tests)."""
        with self._cond:
            return sum(n - self._serving.get(s, 0) for s, n in self._next.items())


class Replies:
    """Pending blocks and which sessions' next event waits for its own handling."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._guard = threading.Lock()
        self._pending: dict[str, str] = {}
        self._waits: set[str] = set()
        self._seen: set[str] = set()

    def _load(self, session_id: str) -> None:
        """A block a stopped worker left for this session (once per session and worker)."""
        if session_id in self._seen:
            return
        self._seen.add(session_id)
        try:
            left = self.store.read_state(session_id, STATE, None)
            if isinstance(left, dict) and isinstance(left.get("text"), str):
                self._pending.setdefault(session_id, left["text"])
                self.store.write_state(session_id, STATE, {})
        except Exception:  # noqa: BLE001 - a lost pending block is re-rendered on its next change
            log.exception("reading the pending block of %s failed", session_id)

    def waits(self, kind: str, session_id: str) -> bool:
        """Whether this event is handled before the reply (the module docstring says which)."""
        with self._guard:
            self._load(session_id)
            return kind not in EARLY_KINDS or session_id in self._waits

    def take(self, call: Any, opted_out: Any) -> str:
        """The hook output of the session's pending block ("" when none, or when this event
        cannot carry context: then it stays for the next one). ``opted_out()`` is asked only
        when there is a block to give: a project that opted out since gets none."""
        if not call.carries_context():
            return ""
        with self._guard:
            self._load(call.session_id)
            text = self._pending.pop(call.session_id, None)
        return call.output(text) if text and not opted_out() else ""

    def handled(self, call: Any, injected: str | None, *, replied: bool) -> str:
        """Record what handling ``call`` injected. ``replied``: the hook was answered before;
        otherwise returns the hook's output: its own block, or else a pending one."""
        sid, kind = call.session_id, call.event.kind
        with self._guard:
            if kind in ("session_start", "pre_compact"):
                self._waits.add(sid)  # the first event after a lost context: see the docstring
            elif kind in EARLY_KINDS:
                self._waits.discard(sid)
            # A pending block is never dropped: the renderer counts it as delivered, and would
            # not send it again (a session ended by `claude -p` is resumed by the next one).
            if replied or not call.carries_context():
                if injected:
                    self._pending[sid] = self._newest(sid, injected)
                return ""
            pending = self._pending.pop(sid, None)
            text = injected or pending
            if injected and pending and not injected.startswith(BLOCK_HEAD):
                # The event's own text is only what follows a block (the addendum after a
                # compaction): the block still owed goes first, not dropped.
                text = f"{pending}\n{injected}"
        return call.output(text) if text else ""

    def rendered(self, session_id: str, text: str | None) -> None:
        """A block rendered outside an event (after a probe): pending for the next one."""
        if text:
            with self._guard:
                self._pending[session_id] = self._newest(session_id, text)

    def _newest(self, session_id: str, text: str) -> str:
        """The block the renderer wrote last (its ``last_block``): a render after a probe and
        an event's may hand their texts in out of order, and the older must not win."""
        try:
            last = self.store.read_state(session_id, "last_block", {})
        except Exception:  # noqa: BLE001 - the text handed in is the next best
            return text
        newest = last.get("text") if isinstance(last, dict) else None
        return newest if isinstance(newest, str) and newest else text

    def save(self) -> None:
        """Leave undelivered blocks for the next worker (on stop)."""
        with self._guard:
            pending, self._pending = dict(self._pending), {}
        for sid, text in pending.items():
            try:
                self.store.write_state(sid, STATE, {"text": text})
            except Exception:  # noqa: BLE001
                log.exception("saving the pending block of %s failed", sid)


def render_after_probe(engine: Any, call: Any, replies: Replies, stopping: Any) -> None:
    """The event started a probe: once its patch is applied, render the block again, so that
    what it found is pending for the session's next event, not the one after (the offline
    probe reads every prompt; a turn without tool calls has no event in between)."""
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.pipeline.default_plugins.render_plugin import render_into
    from rolling_graph.pipeline.hookspecs import EventContext

    sid, ev = call.session_id, call.event
    # The probe runner (rolling_graph.probe.runner.COMPONENT), duck-typed as worker_status reads it.
    runner = getattr(engine, "components", {}).get("probe_runner")
    if runner is None:
        return
    while not runner.wait(sid, 0.5):
        if stopping.is_set():
            return
    # Only what the renderer reads of an event; none of its texts.
    bare = HookEvent("tool_use", sid, cwd=ev.cwd, harness=ev.harness, redacted=True)
    with engine.locked_session(sid) as sess:
        ctx = EventContext(event=bare, session=sess, settings=engine.settings, engine=engine)
        render_into(ctx)
        replies.rendered(sid, ctx.inject)  # under the session's lock: in render order
