"""The plugin contract of rolling-graph (pluggy).

Built-in behaviour — the gate, probe scheduling, rendering and flushing — is implemented as
default plugins on these same hooks (see :mod:`rolling_graph.plugins`); third-party plugins
register through the ``rolling_graph`` entry-point group and import ``hookimpl`` from here.

All hooks are called with keyword arguments. An implementation may accept fewer arguments than
its spec, so specs can grow without breaking plugins. Event hooks receive an
:class:`~rolling_graph.events.EventContext` and cooperate by reading and updating it: the gate
adds triggers, the probe scheduler reads them, the renderer sets ``ctx.inject``.

Order within an event: ``tryfirst`` plugins (the gate) run before ordinary ones (probe
scheduling, warm reconciliation), and ``trylast`` plugins (the renderer) after them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from rolling_graph.events import EventContext

PROJECT = "rolling_graph"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


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
