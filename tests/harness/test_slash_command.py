"""``install claude-code`` writes the /graph command beside the scope's settings, ``uninstall``
removes it, a file of the same name that is not ours is left alone, and the plugin layout ships
the same command."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.harness.install import slash_command as slash

REPO = Path(__file__).resolve().parents[2]


def test_install_and_uninstall_write_and_remove_graph_md(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    runner = CliRunner()
    res = runner.invoke(cli, ["install", "claude-code", "--settings-file", str(settings)])
    assert res.exit_code == 0, res.output
    command = tmp_path / ".claude" / "commands" / "graph.md"
    text = command.read_text()
    assert f"/graph command: {command}" in res.output
    assert 'graph --session "${CLAUDE_SESSION_ID}" $ARGUMENTS`' in text
    # The command runs this environment's console script, like the hooks do.
    assert "!`/" in text and "rolling-graph graph" in text
    again = runner.invoke(cli, ["install", "claude-code", "--settings-file", str(settings)])
    assert "already installed" in again.output and command.read_text() == text
    res = runner.invoke(cli, ["uninstall", "claude-code", "--settings-file", str(settings)])
    assert res.exit_code == 0 and not command.exists()


def test_someone_elses_graph_md_is_kept(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    command = slash.command_path(settings)
    command.parent.mkdir(parents=True)
    command.write_text("my own /graph\n")
    runner = CliRunner()
    res = runner.invoke(cli, ["install", "claude-code", "--settings-file", str(settings)])
    assert res.exit_code == 0 and "is not ours" in res.output
    runner.invoke(cli, ["uninstall", "claude-code", "--settings-file", str(settings)])
    assert command.read_text() == "my own /graph\n"


def test_plugin_ships_the_same_command() -> None:
    shipped = (REPO / "hooks" / "claude-code" / "commands" / "graph.md").read_text()
    assert shipped == slash.command_text("rolling-graph")
    assert "Bash(rolling-graph:*)" in shipped
    assert slash.command_text("/opt/my env/bin/rolling-graph").count('"/opt/my env/bin/') == 2
