"""``rolling-graph install claude-code`` / ``uninstall claude-code``."""

from __future__ import annotations

from pathlib import Path

import click

from rolling_graph.harness import install as inst
from rolling_graph.harness import slash_command as slash


def _install_slash(settings_path: Path) -> None:
    """Write /graph beside the settings file; say so, or why not."""
    target = slash.command_path(settings_path)
    exe = inst.hook_command().removesuffix(" hook").strip('"')
    if slash.install_command(target, exe):
        click.echo(f"/graph command: {target}")
    else:
        click.echo(f"/graph not written: {target} exists and is not ours", err=True)


_scope = click.option(
    "--scope",
    type=click.Choice(inst.SCOPES),
    default="user",
    show_default=True,
    help="user: ~/.claude/settings.json; project: .claude/settings.json; local: .claude/settings.local.json",
)
_file = click.option(
    "--settings-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Edit this settings file instead of the scope's.",
)


@click.group("install")
def install_group() -> None:
    """Install rolling-graph hooks into a harness."""


@install_group.command("claude-code")
@_scope
@_file
@click.option(
    "--command",
    "command",
    default=None,
    help="Hook command (default: this env's rolling-graph hook).",
)
def install_claude_code(scope: str, settings_file: Path | None, command: str | None) -> None:
    """Add the hook entries (idempotent; other settings and hooks are kept; backup written) and
    the /graph command beside the settings file."""
    path = settings_file or inst.settings_path(scope)
    try:
        changed, backup = inst.install(path, command)
    except ValueError as err:
        raise click.ClickException(f"{path}: {err}") from err
    if not changed:
        click.echo(f"already installed in {path}")
    else:
        click.echo(f"installed rolling-graph hooks in {path}")
        if backup:
            click.echo(f"backup: {backup}")
    _install_slash(path)


@click.group("uninstall")
def uninstall_group() -> None:
    """Remove rolling-graph hooks from a harness."""


@uninstall_group.command("claude-code")
@_scope
@_file
def uninstall_claude_code(scope: str, settings_file: Path | None) -> None:
    """Remove exactly the hook entries that install added."""
    path = settings_file or inst.settings_path(scope)
    try:
        changed, backup = inst.uninstall(path)
    except ValueError as err:
        raise click.ClickException(f"{path}: {err}") from err
    if slash.uninstall_command(slash.command_path(path)):
        click.echo(f"removed /graph command {slash.command_path(path)}")
    if not changed:
        click.echo(f"no rolling-graph hooks in {path}")
        return
    click.echo(f"removed rolling-graph hooks from {path}")
    if backup:
        click.echo(f"backup: {backup}")


COMMANDS = [install_group, uninstall_group]
