"""``rolling-graph mcp`` (the stdio MCP server) and the doctor's check of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

TOOLS = ("memory_search", "memory_expand", "memory_history", "memory_sessions")


@click.command("mcp")
def mcp_cmd() -> None:
    """Serve the memory tools over MCP on stdin/stdout (clients start this; see install)."""
    from rolling_graph.mcp.server import serve

    raise SystemExit(serve())


def list_server_tools(command: str, args: list[str], timeout_s: float = 30.0) -> list[str]:
    """Start the server as a client would (the SDK's stdio client) and list its tools."""
    import os
    import tempfile

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k.startswith("ROLLING_GRAPH_")}
    params = StdioServerParameters(command=command, args=args, env=env)

    async def main(errlog: Any) -> list[str]:
        with anyio.fail_after(timeout_s):
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                return [t.name for t in (await s.list_tools()).tools]

    # The server's stderr goes to a real file (the SDK needs a file descriptor; the caller's
    # stderr may be a test runner's buffer) and is shown when the server fails to start.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            return anyio.run(main, errlog)
        except BaseException as err:
            errlog.seek(0)
            tail = errlog.read()[-500:].strip()
            raise RuntimeError(f"{err!r}{'; stderr: ' + tail if tail else ''}") from err


def check_mcp(project: Path, home: Path | None = None) -> Any:
    """Where the server is registered, and whether it starts and lists its tools."""
    from rolling_graph.cli.doctor_check import Check
    from rolling_graph.harness.install import mcp as mi

    found = [(scope, mi.registered_entry(scope, cwd=project, home=home)) for scope in mi.SCOPES]
    found = [(scope, entry) for scope, entry in found if entry]
    if not found:
        return Check("mcp", True, "not registered (optional: install claude-code registers it)")
    scope, entry = found[0]
    try:
        tools = list_server_tools(entry["command"], list(entry.get("args") or []))
    except Exception as err:  # noqa: BLE001 - any failure to start is the finding
        return Check(
            "mcp",
            False,
            f"registered ({scope}) but `{entry['command']} mcp` did not start: {err!r}",
            "rolling-graph install claude-code again (the command may have moved)",
        )
    missing = sorted(set(TOOLS) - set(tools))
    if missing:
        return Check("mcp", False, f"server lists no {', '.join(missing)}", "reinstall")
    return Check("mcp", True, f"registered ({scope}); starts; tools: {', '.join(tools)}")


COMMANDS = [mcp_cmd]
