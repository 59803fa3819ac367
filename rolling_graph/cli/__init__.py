"""The ``rolling-graph`` command line (click). One module per command group."""

from __future__ import annotations

import click

from rolling_graph import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rolling-graph")
def cli() -> None:
    """A live, rolling memory graph of a coding-agent session."""


def _register() -> None:
    from rolling_graph.cli import graph_cmds

    for command in graph_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import replay_cmds  # replay, eval

    for command in replay_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import worker_cmds  # worker start|stop|status

    for command in worker_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import install_cmds  # install|uninstall claude-code

    for command in install_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import stats_cmds  # stats

    for command in stats_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import warm_cmds  # flush, outbox, recover, review, seed

    for command in warm_cmds.COMMANDS:
        cli.add_command(command)

    from rolling_graph.cli import doctor_cmds  # doctor

    cli.add_command(doctor_cmds.doctor)


_register()

__all__ = ["cli"]
