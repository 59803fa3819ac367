"""``rolling-graph install|uninstall codex|gemini|copilot`` and doctor's view of them.

The end-to-end tests prove that the real clients run what these write (Codex with the trust
hashes, without any bypass flag); here: idempotence, backups, other people's settings and hooks
kept, exact removal, and the problems doctor must see.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from rolling_graph.cli.doctor_cmds import check_hooks
from rolling_graph.harness.install import codex as install_codex
from rolling_graph.harness.install import copilot as install_copilot
from rolling_graph.harness.install import gemini as install_gemini
from rolling_graph.harness.install import jsonc
from rolling_graph.harness.install import registry as installers
from rolling_graph.transport.client import DEFAULT_START_BUDGET_MS

EXE = "/opt/rg venv/bin/rolling-graph"  # a space in the path: the command quotes it
CONFIG = 'model = "gpt-5"\n\n[model_providers.x]\nbase_url = "http://h"\n'
FOREIGN = {"type": "command", "command": "notify-send hi", "timeout": 3}


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def test_codex_install_trusts_exactly_our_handlers_where_they_sit(codex_home: Path) -> None:
    hooks, config = codex_home / "hooks.json", codex_home / "config.toml"
    config.write_text(CONFIG)
    hooks.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [FOREIGN]}]}}))
    changed, backups = install_codex.install(hooks, config, install_codex.hook_command(EXE))
    assert changed and len(backups) == 2 and all(b.exists() for b in backups)
    data = json.loads(hooks.read_text())
    assert data["hooks"]["SessionStart"][0]["hooks"] == [FOREIGN]  # theirs first, untouched
    states = tomllib.loads(config.read_text())["hooks"]["state"]
    # Ours is group 1 of SessionStart (after theirs): the key says where it sits.
    assert f"{hooks}:session_start:1:0" in states
    assert f"{hooks}:session_start:0:0" not in states  # we never trust someone else's hook
    assert set(states) == {
        f"{hooks}:{label}:{1 if label == 'session_start' else 0}:0"
        for label in (
            "session_start",
            "user_prompt_submit",
            "pre_tool_use",
            "post_tool_use",
            "pre_compact",
        )
    }
    assert tomllib.loads(config.read_text())["model"] == "gpt-5"
    assert install_codex.status(hooks, config) == (sorted(install_codex.EVENTS), [])
    assert install_codex.install(hooks, config, install_codex.hook_command(EXE)) == (False, [])


def test_codex_trust_hash_follows_the_definition() -> None:
    group: dict[str, object] = {}
    h = {"type": "command", "command": "rg hook --harness codex", "timeout": 5}
    base = install_codex.trusted_hash("PostToolUse", group, h)
    assert base.startswith("sha256:") and len(base) == 71
    assert install_codex.trusted_hash("PostToolUse", group, h | {"timeout": 6}) != base
    assert install_codex.trusted_hash("PostToolUse", group, h | {"command": "x"}) != base
    assert install_codex.trusted_hash("PreToolUse", group, h) != base
    assert install_codex.trusted_hash("PostToolUse", {"matcher": "Bash"}, h) != base
    # UserPromptSubmit takes no matcher, so Codex drops it before hashing; SessionEnd clamps.
    ups = install_codex.trusted_hash("UserPromptSubmit", group, h)
    assert install_codex.trusted_hash("UserPromptSubmit", {"matcher": "x"}, h) == ups
    end = install_codex.trusted_hash("SessionEnd", group, h | {"timeout": 3})
    assert install_codex.trusted_hash("SessionEnd", group, h | {"timeout": 30}) == end


def test_codex_uninstall_gives_back_the_files_as_they_were(codex_home: Path) -> None:
    hooks, config = codex_home / "hooks.json", codex_home / "config.toml"
    config.write_text(CONFIG)
    hooks.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [FOREIGN]}]}}))
    before = {p.name: p.read_bytes() for p in codex_home.iterdir()}
    install_codex.install(hooks, config, install_codex.hook_command(EXE))
    changed, backups = install_codex.uninstall(hooks, config)
    assert changed and backups == []  # restored from the backups, which are gone
    assert {p.name: p.read_bytes() for p in codex_home.iterdir()} == before
    assert install_codex.uninstall(hooks, config) == (False, [])


def test_codex_uninstall_removes_the_files_it_created(codex_home: Path, tmp_path: Path) -> None:
    hooks, config = tmp_path / "proj" / ".codex" / "hooks.json", codex_home / "config.toml"
    install_codex.install(hooks, config, install_codex.hook_command(EXE))
    assert (
        install_codex.install(hooks, config, install_codex.hook_command("/x/rolling-graph"))[1]
        == []
    )  # files only rolling-graph wrote get no backup
    install_codex.uninstall(hooks, config)
    assert not config.exists() and not (tmp_path / "proj" / ".codex").exists()


def test_codex_status_sees_untrusted_and_stale_trust(codex_home: Path) -> None:
    hooks, config = codex_home / "hooks.json", codex_home / "config.toml"
    install_codex.install(hooks, config, install_codex.hook_command(EXE))
    config.write_text(config.read_text().replace("sha256:", "sha256:0", 1))
    events, problems = install_codex.status(hooks, config)
    assert events and any("older definition" in p for p in problems)
    config.write_text(CONFIG)
    _, problems = install_codex.status(hooks, config)
    assert len([p for p in problems if "not trusted" in p]) == len(install_codex.EVENTS)


def test_codex_refuses_to_break_a_config_it_cannot_extend(codex_home: Path) -> None:
    hooks, config = codex_home / "hooks.json", codex_home / "config.toml"
    config.write_text("hooks = { state = {} }\n")  # an inline table cannot gain [hooks.state.x]
    with pytest.raises(ValueError, match="breaking"):
        install_codex.install(hooks, config, install_codex.hook_command(EXE))
    assert config.read_text() == "hooks = { state = {} }\n"


def test_gemini_install_writes_milliseconds_and_keeps_other_settings(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps({"model": {"name": "m"}, "hooks": {"BeforeTool": [{"hooks": [FOREIGN]}]}})
    )
    changed, backups = install_gemini.install(path, install_gemini.hook_command(EXE))
    assert changed and backups
    data = json.loads(path.read_text())
    assert data["model"] == {"name": "m"}
    ours = data["hooks"]["BeforeAgent"][0]["hooks"][0]
    assert ours["timeout"] == 5_000 and ours["command"] == f'"{EXE}" hook --harness gemini'
    assert data["hooks"]["BeforeTool"][0]["hooks"] == [FOREIGN]
    assert install_gemini.status(path) == (sorted(install_gemini.EVENTS), [])
    assert install_gemini.install(path, install_gemini.hook_command(EXE)) == (False, [])
    install_gemini.uninstall(path)
    assert json.loads(path.read_text()) == {
        "model": {"name": "m"},
        "hooks": {"BeforeTool": [{"hooks": [FOREIGN]}]},
    }


def test_gemini_status_flags_timeouts_written_in_seconds(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install_gemini.install(path, install_gemini.hook_command(EXE))
    data = json.loads(path.read_text())
    data["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"] = 5
    path.write_text(json.dumps(data))
    _, problems = install_gemini.status(path)
    assert problems == ["BeforeAgent timeout 5 is in seconds; Gemini reads ms"]


def test_copilot_install_owns_one_file_and_uninstall_removes_it(tmp_path: Path) -> None:
    path = tmp_path / "hooks" / install_copilot.FILE_NAME
    other = tmp_path / "hooks" / "theirs.json"
    other.parent.mkdir()
    other.write_text('{"version": 1, "hooks": {}}')
    changed, _ = install_copilot.install(path, EXE)
    assert changed
    data = json.loads(path.read_text())
    assert data["version"] == 1
    cmd = data["hooks"]["sessionStart"][0]["bash"]
    assert cmd == f'"{EXE}" hook --harness copilot --event sessionStart'
    assert install_copilot.status(path) == (sorted(install_copilot.EVENTS), [])
    assert install_copilot.install(path, EXE) == (False, [])
    changed, backups = install_copilot.uninstall(path)
    assert changed and not path.exists() and backups == []
    assert sorted(p.name for p in other.parent.iterdir()) == ["theirs.json"]
    assert other.read_text() == '{"version": 1, "hooks": {}}'


def test_doctor_reports_each_installed_harness_and_what_is_wrong(
    tmp_path: Path, codex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert not check_hooks(project, home=home).ok  # nothing installed anywhere
    exe = tmp_path / "rg venv" / "bin" / "rolling-graph"  # doctor checks that it runs
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    h = installers.get("gemini")
    h.install(h.path("user", project, home), str(exe), home)
    check = check_hooks(project, home=home)
    assert check.ok and "gemini user" in check.detail and "timeouts in ms" in check.detail
    c = installers.get("codex")
    c.install(c.path("project", project, home), str(exe), home)
    assert check_hooks(project, home=home).ok
    (codex_home / "config.toml").write_text("")  # the trust is gone: Codex would skip them
    check = check_hooks(project, home=home)
    assert not check.ok and "codex project" in check.detail and "not trusted" in check.detail
    assert "rolling-graph install codex --scope project" in check.fix
    exe.unlink()  # the program moved: every installed harness says so
    check = check_hooks(project, home=home)
    assert (
        not check.ok
        and f"gemini user: {h.path('user', project, home)} runs a missing program: {exe}"
        in check.detail
    )


def test_start_hooks_outlast_the_cold_worker_wait() -> None:
    # The start event waits up to DEFAULT_START_BUDGET_MS for a cold worker: no client may
    # kill the hook before that wait ends.
    assert install_codex.EVENTS["SessionStart"] * 1000 > DEFAULT_START_BUDGET_MS
    assert install_gemini.EVENTS["SessionStart"] > DEFAULT_START_BUDGET_MS  # milliseconds
    assert install_copilot.EVENTS["sessionStart"] * 1000 > DEFAULT_START_BUDGET_MS


def test_gemini_reads_comments_and_uninstall_gives_them_back(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    text = '{\n  // the model "x" // y\n  "model": {"name": "a//b"}, /* last */\n}\n'
    path.write_text(text)
    changed, backups = install_gemini.install(path, install_gemini.hook_command(EXE))
    assert changed and [b.read_text() for b in backups] == [text]
    installed = path.read_text()
    assert '// the model "x" // y' in installed and "/* last */" in installed  # kept
    assert installed.startswith(text[: text.index('"model"')])
    assert json.loads(jsonc.strip(installed))["model"] == {"name": "a//b"}
    assert install_gemini.status(path)[0] == sorted(install_gemini.EVENTS)
    assert install_gemini.uninstall(path) == (True, [])
    assert path.read_text() == text and sorted(path.parent.iterdir()) == [path]


def test_gemini_parse_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{\n  "model": {"name": "m"}\n  "x": 1\n}\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}: line 3, column 3")):
        install_gemini.install(path, install_gemini.hook_command(EXE))
    assert sorted(tmp_path.iterdir()) == [path]
