"""``rolling-graph install|uninstall claude-code|codex|gemini|copilot``."""

from __future__ import annotations

from pathlib import Path

import click

from rolling_graph.cli.common import settings
from rolling_graph.harness.install import claude_code as inst
from rolling_graph.harness.install import slash_command as slash
from rolling_graph.harness.install.portable import path_note, scope_executable


def _fail(path: Path, err: Exception) -> click.ClickException:
    msg = str(err)
    return click.ClickException(msg if str(path) in msg else f"{path}: {msg}")


def _install_slash(settings_path: Path, scope: str) -> None:
    """Write /graph beside the settings file; say so, or why not."""
    target = slash.command_path(settings_path)
    exe = inst.console_script(scope_executable(scope))
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


_mcp = click.option(
    "--mcp/--no-mcp",
    default=True,
    show_default=True,
    help="Also (un)register the memory tools' MCP server: ~/.claude.json (user, local) or .mcp.json (project).",
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
@_mcp
def install_claude_code(
    scope: str, settings_file: Path | None, command: str | None, mcp: bool
) -> None:
    """Add the hook entries (idempotent; other settings and hooks are kept; backup written),
    the /graph command beside the settings file, and register the memory tools' MCP server in
    the same scope."""
    path = settings_file or inst.settings_path(scope)
    try:
        changed, backup = inst.install(path, command or inst.hook_command(scope_executable(scope)))
    except ValueError as err:
        raise _fail(path, err) from err
    if not changed:
        click.echo(f"already installed in {path}")
    else:
        click.echo(f"installed rolling-graph hooks in {path}")
        if backup:
            click.echo(f"backup: {backup}")
    _install_slash(path, scope)
    if mcp:
        _register_mcp(scope)
    note = None if command else path_note(scope)
    if note:
        click.echo(note, err=True)


def _register_mcp(scope: str) -> None:
    from rolling_graph.harness.install import mcp as mi

    try:
        changed, path, backup = mi.register(
            scope, marker_home=settings().home, executable=scope_executable(scope)
        )
    except ValueError as err:
        raise click.ClickException(f"MCP server not registered: {err}") from err
    if not changed:
        click.echo(f"MCP server already registered in {path}")
        return
    click.echo(f"registered the rolling-graph MCP server ({scope} scope) in {path}")
    if scope == "project":
        click.echo("Claude Code asks once before starting a project's MCP servers: approve it.")
    if backup:
        click.echo(f"backup: {backup}")


@click.group("uninstall")
def uninstall_group() -> None:
    """Remove rolling-graph hooks from a harness."""


@uninstall_group.command("claude-code")
@_scope
@_file
@_mcp
def uninstall_claude_code(scope: str, settings_file: Path | None, mcp: bool) -> None:
    """Remove exactly the hook entries and the MCP server entry that install added."""
    path = settings_file or inst.settings_path(scope)
    try:
        changed, backup = inst.uninstall(path)
    except ValueError as err:
        raise _fail(path, err) from err
    if slash.uninstall_command(slash.command_path(path)):
        click.echo(f"removed /graph command {slash.command_path(path)}")
    if not changed:
        click.echo(f"no rolling-graph hooks in {path}")
    else:
        click.echo(f"removed rolling-graph hooks from {path}")
        if backup:
            click.echo(f"backup kept (the file changed since install): {backup}")
    if mcp:
        from rolling_graph.harness.install import mcp as mi

        try:
            changed, mpath, backup = mi.unregister(scope, marker_home=settings().home)
        except ValueError as err:
            raise click.ClickException(f"{err}") from err
        if changed:
            click.echo(f"removed the rolling-graph MCP server from {mpath}")
            if backup:
                click.echo(f"backup kept (the file changed since install): {backup}")


def _report(changed: bool, backups: list[Path] | list[str], done: str, nothing: str) -> None:
    click.echo(done if changed else nothing)
    for b in backups:
        click.echo(f"backup: {b}")


def _add_harness_commands(name: str) -> None:
    from rolling_graph.harness.install import registry as installers

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
            changed, backups = h.install(path, executable or scope_executable(scope), None)
        except ValueError as err:
            raise _fail(path, err) from err
        _report(
            changed,
            backups,
            f"installed rolling-graph hooks in {path}",
            f"already installed in {path}",
        )
        note = None if executable else path_note(scope)
        if note:
            click.echo(note, err=True)

    @uninstall_group.command(name, help=f"Remove exactly our hooks from {h.label}.")
    @scope
    @target
    def _uninstall(scope: str, file: Path | None) -> None:
        path = file or h.path(scope, None, None)
        try:
            changed, backups = h.uninstall(path, None)
        except ValueError as err:
            raise _fail(path, err) from err
        _report(
            changed,
            [f"{b} (kept: the file changed since install)" for b in backups],
            f"removed rolling-graph hooks from {path}",
            f"no rolling-graph hooks in {path}",
        )


for _name in ("codex", "gemini", "copilot"):
    _add_harness_commands(_name)

COMMANDS = [install_group, uninstall_group]
