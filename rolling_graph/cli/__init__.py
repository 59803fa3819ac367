"""The ``rolling-graph`` command line (click). One module per command group, each exporting
``COMMANDS``; plugins add theirs through the ``register_commands`` hook.

May import: anything (the top layer).
"""

from __future__ import annotations

import importlib
import logging

import click

from rolling_graph import __version__

# Command modules, in the order ``--help`` lists nothing special about (click sorts names).
COMMAND_MODULES = (
    "graph_cmds",  # show, render, expand, sessions
    "install_cmds",  # install|uninstall claude-code
    "worker_cmds",  # worker start|stop|status
    "replay_cmds",  # replay, eval
    "stats_cmds",  # stats
    "warm_cmds",  # flush, outbox, recover, review, seed
    "team_cmds",  # warm init-team|forget|export
    "doctor_cmds",  # doctor
    "view_cmds",  # view, graph (/graph in Claude Code)
    "mcp_cmds",  # mcp
    "hook_cmds",  # hook (its --help; a real hook call never reaches click)
)


class _Commands(click.Group):
    """The ``rolling-graph`` group: its commands (and the plugins' ones) are loaded on first
    use, not when the module is imported, so importing the CLI builds no plugin manager."""

    _loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            _register(self)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load()
        return super().list_commands(ctx)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rolling-graph")
def cli() -> None:
    """A live, rolling memory graph of a coding-agent session."""


def _register(group: click.Group) -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"rolling_graph.cli.{name}")
        for command in module.COMMANDS:
            group.add_command(command)
    try:
        from rolling_graph.pipeline.plugins import get_plugin_manager

        get_plugin_manager().hook.register_commands(cli=group)
    except Exception:  # noqa: BLE001 - a broken plugin must not take the CLI down
        logging.getLogger("rolling_graph").exception("register_commands failed")


__all__ = ["cli"]
