"""What the agent can ask of its memory: ``memory_search``, ``memory_expand``,
``memory_history`` and ``memory_sessions`` (the MCP tools of ``rolling-graph mcp``), and what
it can tell it: ``memory_note``.

:func:`answer` runs in the worker (request op ``recall``), so the answers come from the very
graphs the hooks keep, under the same locks: no second copy of the graph.
"""

from __future__ import annotations

from typing import Any

from rolling_graph.mcp.lookup import RecallError

TOOLS = ("memory_search", "memory_expand", "memory_history", "memory_sessions", "memory_note")

__all__ = ["TOOLS", "RecallError", "answer", "handle_request"]


def answer(engine: Any, tool: str, args: Any, cwd: str | None = None) -> dict[str, Any]:
    """``{"text": …, "data": …}`` for one question; raises :class:`RecallError` for a
    question that cannot be answered as asked (unknown node, empty query…)."""
    from rolling_graph.mcp import answers, notes
    from rolling_graph.mcp.lookup import current_session

    handlers = {
        "memory_search": answers.search,
        "memory_expand": answers.expand,
        "memory_history": answers.history,
        "memory_sessions": answers.sessions,
        "memory_block": answers.block,  # the MCP resource rolling-graph://block
        "memory_note": notes.note,  # the agent writes (issue 28)
    }
    handler = handlers.get(tool)
    if handler is None:
        raise RecallError(f"unknown tool {tool!r}; the tools are {', '.join(TOOLS)}")
    if not isinstance(args, dict):
        raise RecallError("arguments must be a JSON object")
    cwd = cwd if isinstance(cwd, str) and cwd else None
    sid = current_session(engine, args.get("session"), cwd)
    return handler(engine, sid, args, cwd)


def handle_request(engine: Any, header: dict[str, Any], body: bytes) -> dict[str, Any]:
    """The worker's ``recall`` op: header ``tool`` and ``cwd``, body the JSON arguments.
    Returns the reply's fields; any failure is a tool error, never a worker crash."""
    import json
    import logging

    try:
        args = json.loads(body) if body else {}
        result = answer(engine, str(header.get("tool")), args, header.get("cwd"))
    except RecallError as err:
        return {"ok": False, "error": str(err), "tool_error": True}
    except ValueError as err:
        return {"ok": False, "error": f"arguments are not JSON: {err}", "tool_error": True}
    except Exception as err:  # noqa: BLE001 - one bad question must not take the worker down
        logging.getLogger("rolling_graph.mcp.recall").exception(
            "recall %s failed", header.get("tool")
        )
        return {"ok": False, "error": f"internal error: {type(err).__name__}: {err}"}
    return {"ok": True, "result": result}
