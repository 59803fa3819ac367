"""Server side of one hook call: raw stdin bytes in, exact stdout text out. Never raises.

Used by the worker for every hook call, and in process when the worker is disabled
(``ROLLING_GRAPH_WORKER=0``: :func:`handle_in_process`). Anything wrong with the input is logged and answered with "".
In two steps for the worker, which may answer between them (:mod:`.reply_first`):
:func:`parse_hook` (the payload as a :class:`HookCall`) and :func:`run_hook` (the engine).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.harness.adapters import claude_code
from rolling_graph.harness.adapters import registry as adapters

log = logging.getLogger("rolling_graph.hook")

MAX_PAYLOAD = 32 * 1024 * 1024


def _opted_out(engine: Any, cwd: str | None) -> bool:
    from rolling_graph.privacy.boundary import opted_out

    settings = getattr(engine, "settings", None)
    return opted_out(cwd, getattr(settings, "ignore_paths", ()) or ())


@dataclass
class HookCall:
    """One parsed hook call: the event for the engine and how to print what it injects."""

    adapter: Any
    name: str
    event: HookEvent

    @property
    def session_id(self) -> str:
        return self.event.session_id

    def output(self, injected: str | None) -> str:
        """The exact stdout for ``injected`` ("" when this event cannot carry context)."""
        return str(self.adapter.format_output(self.name, injected))

    def carries_context(self) -> bool:
        return bool(self.output("x"))

    def opted_out(self, engine: Any) -> bool:
        """The project opted out: nothing is read, stored or injected."""
        return _opted_out(engine, self.event.cwd)


def _setup_logging(engine: Any) -> None:
    try:
        from rolling_graph.core.logs import setup_logging

        setup_logging(getattr(getattr(engine, "settings", None), "home", None))
    except Exception:  # noqa: BLE001 - no log file is no reason to fail the hook
        pass


def parse_hook(
    engine: Any, raw: bytes, harness: str = "claude-code", event: str | None = None
) -> HookCall | None:
    """``raw`` as ``harness``'s hook payload; None (logged) for anything not to be handled:
    bad input, an ignored event. Never raises."""
    _setup_logging(engine)
    try:
        if not isinstance(raw, (bytes, bytearray)):
            log.warning("hook payload is not bytes (%s); ignored", type(raw).__name__)
            return None
        if len(raw) > MAX_PAYLOAD:
            log.warning(
                "hook payload of %d bytes is over the %d byte limit; ignored", len(raw), MAX_PAYLOAD
            )
            return None
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            log.warning("hook payload is not JSON (%s); ignored", type(err).__name__)
            return None
        try:
            adapter = adapters.get(harness)
        except KeyError as err:
            log.warning("hook for %s", err)
            return None
        try:
            parsed = adapter.parse_payload(payload, event)
        except claude_code.PayloadError as err:
            log.warning("%s hook payload rejected: %s", harness, err)
            return None
        name = adapter.event_name(payload, event)
        if parsed is None:
            log.debug("%s hook event %r ignored", harness, name)
            return None
        # Whether the project opted out is asked where the event would be read or a block
        # injected (run_hook, and the worker's pending block): not for every reply.
        return HookCall(adapter, name, parsed)
    except Exception:  # noqa: BLE001 - a hook must never break the person's prompt
        log.exception("hook parsing failed")
        return None


def run_hook(engine: Any, call: HookCall) -> Any:
    """The event through ``engine``: its :class:`~rolling_graph.pipeline.engine.Outcome`
    (None: it failed, logged)."""
    try:
        if call.opted_out(engine):
            return None
        return engine.handle(call.event)
    except Exception:  # noqa: BLE001 - a hook must never break the person's prompt
        log.exception("hook handling failed")
        return None


def handle_hook_bytes(
    engine: Any, raw: bytes, harness: str = "claude-code", event: str | None = None
) -> str:
    """Parse ``raw`` as ``harness``'s hook payload, run it through ``engine``, return stdout.

    ``event`` is the event name given on the hook's command line, for harnesses whose payload
    does not carry it (Copilot CLI)."""
    call = parse_hook(engine, raw, harness, event)
    if call is None:
        return ""
    try:
        outcome = run_hook(engine, call)
        return call.output(outcome.injected if outcome is not None else None)
    except Exception:  # noqa: BLE001 - a hook must never break the person's prompt
        log.exception("hook output failed")
        return ""


def handle_in_process(raw: bytes, harness: str = "claude-code", event: str | None = None) -> str:
    """One hook call with an engine of its own, in the hook's process (``ROLLING_GRAPH_WORKER=0``:
    slow, it loads the engine; for tests and debugging)."""
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.transport.logsetup import configure_logging

    configure_logging()
    engine = Engine()
    try:
        return handle_hook_bytes(engine, raw, harness, event)
    finally:
        engine.close()
