"""Server side of one hook call: raw stdin bytes in, exact stdout text out. Never raises.

Used by the worker for every hook call, and in process when the worker is disabled
(``ROLLING_GRAPH_WORKER=0``: :func:`handle_in_process`). Anything wrong with the input is logged and answered with "".
"""

from __future__ import annotations

import json
import logging
from typing import Any

from rolling_graph.harness.adapters import claude_code
from rolling_graph.harness.adapters import registry as adapters

log = logging.getLogger("rolling_graph.hook")

MAX_PAYLOAD = 32 * 1024 * 1024


def _opted_out(engine: Any, cwd: str | None) -> bool:
    from rolling_graph.privacy.boundary import opted_out

    settings = getattr(engine, "settings", None)
    return opted_out(cwd, getattr(settings, "ignore_paths", ()) or ())


def handle_hook_bytes(
    engine: Any, raw: bytes, harness: str = "claude-code", event: str | None = None
) -> str:
    """Parse ``raw`` as ``harness``'s hook payload, run it through ``engine``, return stdout.

    ``event`` is the event name given on the hook's command line, for harnesses whose payload
    does not carry it (Copilot CLI)."""
    try:
        from rolling_graph.core.logs import setup_logging

        setup_logging(getattr(getattr(engine, "settings", None), "home", None))
    except Exception:  # noqa: BLE001 - no log file is no reason to fail the hook
        pass
    try:
        if not isinstance(raw, (bytes, bytearray)):
            log.warning("hook payload is not bytes (%s); ignored", type(raw).__name__)
            return ""
        if len(raw) > MAX_PAYLOAD:
            log.warning(
                "hook payload of %d bytes is over the %d byte limit; ignored", len(raw), MAX_PAYLOAD
            )
            return ""
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            log.warning("hook payload is not JSON (%s); ignored", type(err).__name__)
            return ""
        try:
            adapter = adapters.get(harness)
        except KeyError as err:
            log.warning("hook for %s", err)
            return ""
        try:
            parsed = adapter.parse_payload(payload, event)
        except claude_code.PayloadError as err:
            log.warning("%s hook payload rejected: %s", harness, err)
            return ""
        name = adapter.event_name(payload, event)
        if parsed is None:
            log.debug("%s hook event %r ignored", harness, name)
            return ""
        if _opted_out(engine, parsed.cwd):
            return ""  # the project opted out: nothing is read, stored or injected
        outcome = engine.handle(parsed)
        return adapter.format_output(name, outcome.injected)
    except Exception:  # noqa: BLE001 - a hook must never break the person's prompt
        log.exception("hook handling failed")
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
