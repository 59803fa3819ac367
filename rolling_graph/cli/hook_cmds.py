"""``rolling-graph hook``: listed here for ``--help`` only. The console script hands a real
hook call (no ``--help``) to the standard-library hook client before click is imported
(:mod:`rolling_graph.entry`), so this command costs the hook path nothing."""

from __future__ import annotations

import sys

import click


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.option(
    "--harness",
    default="claude-code",
    show_default=True,
    help="The client that calls: claude-code, codex, gemini or copilot.",
)
@click.option("--event", default=None, help="The hook event, for clients whose payload lacks it.")
def hook_cmd(harness: str, event: str | None) -> None:
    """Answer one hook call: read the client's JSON payload on stdin, print what the client
    injects. Installed by `rolling-graph install …`; never fails the prompt (always exits 0,
    within the client's timeout)."""
    from rolling_graph.transport.client import main

    args = ["--harness", harness] + (["--event", event] if event else [])
    sys.exit(main(args))


COMMANDS = [hook_cmd]
