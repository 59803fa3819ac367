"""``rolling-graph install|uninstall claude-code|codex|gemini|copilot``."""

from __future__ import annotations

from pathlib import Path

import click

from rolling_graph.harness import install as inst

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
    """Add the hook entries (idempotent; other settings and hooks are kept; backup written)."""
    path = settings_file or inst.settings_path(scope)
    try:
        changed, backup = inst.install(path, command)
    except ValueError as err:
        raise click.ClickException(f"{path}: {err}") from err
    if not changed:
        click.echo(f"already installed in {path}")
        return
    click.echo(f"installed rolling-graph hooks in {path}")
    if backup:
        click.echo(f"backup: {backup}")


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
    if not changed:
        click.echo(f"no rolling-graph hooks in {path}")
        return
    click.echo(f"removed rolling-graph hooks from {path}")
    if backup:
        click.echo(f"backup: {backup}")


def _report(changed: bool, backups: list[Path], done: str, nothing: str) -> None:
    click.echo(done if changed else nothing)
    for b in backups:
        click.echo(f"backup: {b}")


def _add_harness_commands(name: str) -> None:
    from rolling_graph.harness import installers

    h = installers.get(name)
    scope = click.option("--scope", type=click.Choice(h.scopes), default="user", show_default=True)
    target = click.option(
        "--file",
        "file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Edit this file instead of the scope's.",
    )

    @install_group.command(name, help=f"Add our hooks to {h.label} (idempotent, backed up).")
    @scope
    @target
    @click.option("--executable", default=None, help="rolling-graph program the hooks run.")
    def _install(scope: str, file: Path | None, executable: str | None) -> None:
        path = file or h.path(scope, None, None)
        try:
            changed, backups = h.install(path, executable, None)
        except ValueError as err:
            raise click.ClickException(f"{path}: {err}") from err
        _report(
            changed,
            backups,
            f"installed rolling-graph hooks in {path}",
            f"already installed in {path}",
        )

    @uninstall_group.command(name, help=f"Remove exactly our hooks from {h.label}.")
    @scope
    @target
    def _uninstall(scope: str, file: Path | None) -> None:
        path = file or h.path(scope, None, None)
        try:
            changed, backups = h.uninstall(path, None)
        except ValueError as err:
            raise click.ClickException(f"{path}: {err}") from err
        _report(
            changed,
            backups,
            f"removed rolling-graph hooks from {path}",
            f"no rolling-graph hooks in {path}",
        )


for _name in ("codex", "gemini", "copilot"):
    _add_harness_commands(_name)

COMMANDS = [install_group, uninstall_group]
