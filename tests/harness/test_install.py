"""install / uninstall claude-code on settings files that already hold other hooks."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.harness.install import claude_code as inst
from rolling_graph.transport.client import DEFAULT_START_BUDGET_MS

CMD = "/opt/venv/bin/rolling-graph hook"
EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "other-tool prompt", "timeout": 3}]}
        ],
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def test_install_keeps_everything_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    write(path, EXISTING)
    changed, backup = inst.install(path, CMD)
    assert changed and backup is not None and json.loads(backup.read_text()) == EXISTING
    data = json.loads(path.read_text())
    for key in ("model", "permissions", "env"):
        assert data[key] == EXISTING[key]
    assert data["hooks"]["Stop"] == EXISTING["hooks"]["Stop"]
    assert data["hooks"]["UserPromptSubmit"][0] == EXISTING["hooks"]["UserPromptSubmit"][0]
    assert data["hooks"]["PostToolUse"][0] == EXISTING["hooks"]["PostToolUse"][0]
    assert inst.installed(path) == sorted(inst.EVENTS)
    for event, timeout in inst.EVENTS.items():
        ours = [h for g in data["hooks"][event] for h in g["hooks"] if h["command"] == CMD]
        assert ours == [{"type": "command", "command": CMD, "timeout": timeout}]
        assert timeout <= (30 if event == "SessionStart" else 10)
    # SessionStart waits for a cold worker: the harness must not kill it before that wait ends.
    assert inst.EVENTS["SessionStart"] * 1000 > DEFAULT_START_BUDGET_MS
    before = path.read_text()
    backups = sorted(path.parent.glob("settings.json.rolling-graph-backup*"))
    assert inst.install(path, CMD) == (False, None)
    assert path.read_text() == before
    assert sorted(path.parent.glob("settings.json.rolling-graph-backup*")) == backups


def test_uninstall_removes_exactly_ours(tmp_path: Path) -> None:
    path = tmp_path / "settings.local.json"
    write(path, EXISTING)
    original = path.read_bytes()
    _, backup = inst.install(path, CMD)
    assert backup is not None and backup.read_bytes() == original
    assert inst.install(path, "/elsewhere/rolling-graph hook")[1] is None  # one backup per file
    changed, kept = inst.uninstall(path)
    # Nothing else changed in the file: it comes back byte for byte, and its backup goes.
    assert changed and kept is None and path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    assert inst.uninstall(path) == (False, None)


def test_uninstall_after_someone_else_changed_the_file_keeps_one_backup(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    write(path, EXISTING)
    inst.install(path, CMD)
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data | {"model": "sonnet"}))
    changed, kept = inst.uninstall(path)
    assert changed and kept is not None and json.loads(kept.read_text()) == EXISTING
    assert json.loads(path.read_text()) == EXISTING | {"model": "sonnet"}


def test_install_on_missing_and_empty_files(tmp_path: Path) -> None:
    path = tmp_path / "new" / "settings.json"
    assert inst.install(path, CMD)[0]
    assert inst.installed(path) == sorted(inst.EVENTS)
    assert inst.install(path, "/elsewhere/rolling-graph hook") == (True, None)  # ours alone
    inst.uninstall(path)
    assert not path.exists()  # install created it: uninstall removes it
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert inst.install(empty, CMD)[0]


def test_reinstall_with_new_path_replaces_old_entry(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    inst.install(path, CMD)
    inst.install(path, "/other/venv/bin/rolling-graph hook")
    data = json.loads(path.read_text())
    cmds = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert cmds == ["/other/venv/bin/rolling-graph hook"]


def test_scopes(tmp_path: Path) -> None:
    assert inst.settings_path("user", home=tmp_path) == tmp_path / ".claude" / "settings.json"
    assert inst.settings_path("project", cwd=tmp_path) == tmp_path / ".claude" / "settings.json"
    assert inst.settings_path("local", cwd=tmp_path) == tmp_path / ".claude" / "settings.local.json"
    assert inst.hook_command().endswith("/rolling_graph/transport/stdlib_hook.py")


def test_cli_install_uninstall(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".claude" / "settings.local.json", EXISTING)
    runner = CliRunner()
    res = runner.invoke(cli, ["install", "claude-code", "--scope", "local"])
    assert res.exit_code == 0, res.output
    assert "installed" in res.output
    res = runner.invoke(cli, ["install", "claude-code", "--scope", "local"])
    assert "already installed" in res.output
    res = runner.invoke(cli, ["uninstall", "claude-code", "--scope", "local"])
    assert res.exit_code == 0 and "removed" in res.output
    assert json.loads((tmp_path / ".claude" / "settings.local.json").read_text()) == EXISTING


def test_cli_rejects_non_object(tmp_path: Path) -> None:
    bad = tmp_path / "s.json"
    bad.write_text("[1, 2]")
    res = CliRunner().invoke(cli, ["install", "claude-code", "--settings-file", str(bad)])
    assert res.exit_code != 0 and "JSON object" in res.output


def test_plugin_layout() -> None:
    root = Path(__file__).resolve().parents[2] / "hooks" / "claude-code"
    manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "rolling-graph"
    hooks = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(inst.EVENTS)
    for event, groups in hooks.items():
        for g in groups:
            for h in g["hooks"]:
                assert "${CLAUDE_PLUGIN_ROOT}" in h["command"]
                assert h["timeout"] == inst.EVENTS[event]
    assert (root / "bin" / "rolling-graph-hook").stat().st_mode & 0o111
    assert "rolling-graph graph --session" in (root / "commands" / "graph.md").read_text()
