"""Console-script entry point.

``rolling-graph hook`` runs on every prompt, so it must not pay for click, pydantic or spaCy:
it dispatches to the standard-library-only hook client before anything else is imported.
"""

from __future__ import annotations

import sys


def _asks_help(args: list[str]) -> bool:
    return "--help" in args or "-h" in args


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook" and not _asks_help(sys.argv[2:]):
        from rolling_graph.transport.client import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    if sys.argv[1:] == ["mcp"]:
        # Clients start the MCP server on every session: skip loading the whole CLI.
        from rolling_graph.mcp.server import serve

        sys.exit(serve())
    from rolling_graph.cli import cli

    cli()
