"""The plugin contract of rolling-graph (pluggy): the hooks, and the context they share.

Built-in behaviour — the gate, probe scheduling, rendering and flushing — is implemented as
default plugins on these same hooks (see :mod:`rolling_graph.pipeline.plugins`); third-party plugins
register through the ``rolling_graph`` entry-point group and decorate their functions with
``hookimpl`` (``from rolling_graph import hookimpl``).

All hooks are called with keyword arguments. An implementation may accept fewer arguments than
its spec, so specs can grow without breaking plugins. Event hooks receive an
:class:`EventContext` and cooperate by reading and updating it: the gate adds triggers, the
probe scheduler reads them, the renderer sets ``ctx.inject``. Every hand-off between plugins is
a typed field of :class:`EventContext`, declared below with who writes and who reads it.

Order within an event: ``tryfirst`` plugins (the gate) run before ordinary ones (probe
scheduling, warm reconciliation), and ``trylast`` plugins (the renderer) after them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from rolling_graph.core.hook_event import HookEvent, Trigger

if TYPE_CHECKING:
    from rolling_graph.config import Settings
    from rolling_graph.core.session import HotSession
    from rolling_graph.observe.worktree_changes import Changes
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.warm.resume import ResumeData

PROJECT = "rolling_graph"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

__all__ = ["EventContext", "HookEvent", "Trigger", "hookimpl", "hookspec"]


# ---------------------------------------------------------------------------------------------
# The context of one event
# ---------------------------------------------------------------------------------------------


@dataclass
class EventContext:
    """Shared state while the plugins handle one event; the outcome is read from it afterwards.

    The engine fills the first fields (and ``transcript_events``) before any hook runs; the
    others are hand-offs between plugins, each documented with its writer and its readers.
    """

    event: HookEvent
    session: HotSession
    settings: Settings
    engine: Engine
    transcript_events: list[Any] = field(default_factory=list)
    """What the agent did since the previous hook event, read from the transcript by the engine
    before the hooks run (prompt, finished tool and pre-compact events): scrubbed summaries
    (dicts with ``type`` = the transcript event's class name, ``text``…) live, the transcript's
    own event objects in replay. Read by the probe plugin (the assistant's text goes to the
    probe)."""
    triggers: list[Trigger] = field(default_factory=list)
    """What the gate detected on this event (gate plugin → probe plugin, outcome)."""
    probe_due: bool = False
    """The gate asks for a probe now (gate plugin → probe plugin; see rolling_graph.gate)."""
    coalesced: list[dict[str, Any]] = field(default_factory=list)
    """Triggers the gate held back since the last probe and now releases with this one
    (``{"name", "words"}``; gate plugin → probe plugin, which probes them together)."""
    gate: dict[str, Any] | None = None
    """The gate's decision on this event as written to the audit log (gate plugin → outcome)."""
    probe_requested: bool = False
    """The probe scheduler queued a probe (probe plugin → outcome)."""
    probe_queued: str | None = None
    """How it was queued: ``inline`` (replay: already applied), ``started`` or ``coalesced``
    (probe plugin → outcome)."""
    probe_tier: str | None = None
    """``paid`` or ``free``, when the backend is paid (probe plugin → outcome)."""
    ops_applied: int = 0
    """Patch operations applied while handling the event (probe runner in replay → outcome)."""
    mentions: list[str] = field(default_factory=list)
    """Node ids the prompt names (renderer: those branches snap to full detail)."""
    warm: dict[str, Any] = field(default_factory=dict)
    """What the warm store did: ``pull`` / ``flush`` results, ``finished_pending``, ``resume``
    counts or ``error`` (warm plugin → outcome)."""
    resume: tuple[ResumeData, Changes] | None = None
    """The "where we left off" data of a fresh session and the work tree's changes since the
    previous one (warm plugin → renderer, which renders it instead of the ordinary block)."""
    inject: str | None = None
    """The text injected into the agent (renderer; the probe plugin prepends a notice)."""
    inject_tokens: int = 0
    """Estimated tokens of ``inject``."""
    inject_skipped: str | None = None
    """Why nothing was injected although a block exists (``unchanged``; renderer → outcome)."""
    notice: str | None = None
    """A one-line notice about the paid probe put on top of the block (probe plugin → outcome)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """Free-form hand-offs between third-party plugins; built-in plugins use the fields above."""

    @property
    def session_id(self) -> str:
        return self.event.session_id

    def report(self) -> dict[str, Any]:
        """The hand-offs that were set, by name, for the outcome (traces, tests, status)."""
        out: dict[str, Any] = dict(self.notes)
        named = {
            "transcript_events": self.transcript_events or None,
            "coalesced": self.coalesced or None,
            "gate": self.gate,
            "probe": self.probe_queued,
            "probe_tier": self.probe_tier,
            "warm": self.warm or None,
            "inject_skipped": self.inject_skipped,
            "notice": self.notice,
        }
        out.update({k: v for k, v in named.items() if v is not None})
        return out


# ---------------------------------------------------------------------------------------------
# Session events (one per harness hook event)
# ---------------------------------------------------------------------------------------------


@hookspec
def session_start(ctx: EventContext, source: str) -> None:
    """A session started, resumed, was cleared, or was compacted.

    :param ctx: the event context; ``ctx.session`` is the session's hot graph.
    :param source: ``startup`` | ``resume`` | ``clear`` | ``compact``.

    The built-in warm plugin pulls relevant warm branches into the hot graph here; the renderer
    then sets ``ctx.inject`` so that the block reaches the agent (after compaction too).
    """


@hookspec
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    """The person submitted a prompt (one user turn).

    :param ctx: the event context; the turn counter has already advanced.
    :param prompt: the prompt text, already scrubbed (secrets redacted, <private> spans out).

    The gate records what it detected in ``ctx.triggers`` and sets ``ctx.probe_due`` when a
    probe is due; the probe scheduler then queues one; the renderer sets ``ctx.inject`` when the block changed meaningfully.
    """


@hookspec
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    """The agent used a tool.

    :param tool_name: e.g. ``Bash``, ``Read``, ``Edit``.
    :param tool_input: the tool's input object (scrubbed, like every text of an event).
    :param tool_response: the tool's output (``None`` before the tool ran).
    :param phase: ``pre`` (PreToolUse) or ``post`` (PostToolUse).

    Tool events feed the gate cheaper signals (new files, commands, errors) and a step-based
    dead-man switch; probe results of earlier turns are rendered from here too.
    """


@hookspec
def pre_compact(ctx: EventContext, trigger: str) -> None:
    """The harness is about to compact the conversation (``trigger``: ``manual`` | ``auto``).

    Claude Code cannot take context from this event; plugins flush state here (the warm plugin
    flushes the hot graph) and re-inject on ``session_start(source="compact")``.
    """


@hookspec
def session_end(ctx: EventContext, reason: str) -> None:
    """The session ended (``reason`` as the harness gives it). Keep this fast: the harness
    allows ~1.5 s for all SessionEnd hooks together; hand heavy work to the worker."""


# ---------------------------------------------------------------------------------------------
# Extension points
# ---------------------------------------------------------------------------------------------


@hookspec
def register_gate_rules(register: Callable[[Any], None]) -> None:
    """Register extra gate rules.

    :param register: call it with an object that has ``name: str`` and
        ``check(text: str, doc: Any, state: Any, graph: Any) -> list[str] | None`` returning the
        words that made it fire, or ``None``. A rule that fires triggers a probe like a built-in
        trigger and is reported under its ``name``.
    """


@hookspec
def register_probe_backends(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Register probe backends.

    :param register: call ``register(name, factory)`` where ``factory(settings)`` returns an
        object with ``name`` and ``run(request) -> ProbeReply`` (see :mod:`rolling_graph.probe`).
    """


@hookspec
def register_commands(cli: Any) -> None:
    """Add commands to the ``rolling-graph`` click group."""
