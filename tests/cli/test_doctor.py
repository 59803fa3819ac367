"""``rolling-graph doctor`` against real files: settings with and without our hooks, a data
directory that cannot be written, bad warm-store URLs, probe backends that cannot run, and a
real worker. Nothing of ours is mocked; the environment is the suite's isolated one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rolling_graph.cli import cli
from rolling_graph.harness.install import claude_code as inst


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project dir and a HOME of its own (the user scope), offline probe, worker not started."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    monkeypatch.delenv("ROLLING_GRAPH_WARM", raising=False)
    proj = tmp_path / "project"
    proj.mkdir()
    return proj


def doctor(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["doctor", "--project", str(project), "--no-start", *args])


def install(project: Path, scope: str = "project", *extra: str) -> None:
    # Why via the CLI with cwd: the project and local scopes are relative to the cwd.
    old = Path.cwd()
    os.chdir(project)
    try:
        res = CliRunner().invoke(cli, ["install", "claude-code", "--scope", scope, *extra])
    finally:
        os.chdir(old)
    assert res.exit_code == 0, res.output


def line(result: Result, name: str) -> str:
    for ln in result.output.splitlines():
        if ln[6:].startswith(name):
            return ln
    raise AssertionError(f"no {name!r} line in:\n{result.output}")


def fix_after(result: Result, name: str) -> str:
    lines = result.output.splitlines()
    i = lines.index(line(result, name))
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    return nxt if "fix:" in nxt else ""


# ---------------------------------------------------------------------------------------------
# hooks
# ---------------------------------------------------------------------------------------------


def test_all_checks_pass_with_project_hooks(project: Path) -> None:
    install(project)
    res = doctor(project)
    assert res.exit_code == 0, res.output
    assert line(res, "hooks").startswith("ok")
    assert "project" in line(res, "hooks")
    for name in ("config", "data dir", "warm store", "probe", "worker"):
        assert line(res, name).startswith("ok"), res.output
    assert "all checks passed" in res.output


@pytest.mark.parametrize("scope", ["user", "local"])
def test_hooks_found_in_user_and_local_settings(project: Path, scope: str) -> None:
    install(project, scope)
    res = doctor(project)
    assert res.exit_code == 0, res.output
    assert f"installed in {scope}" in line(res, "hooks")


def test_no_settings_file_fails_and_says_how_to_install(project: Path) -> None:
    res = doctor(project)
    assert res.exit_code == 1, res.output
    assert line(res, "hooks").startswith("FAIL")
    assert "rolling-graph install claude-code" in fix_after(res, "hooks")
    assert "1 problem(s): hooks" in res.output


def test_settings_with_only_other_hooks_fail(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    other = {"type": "command", "command": "echo hi"}
    settings.write_text(
        json.dumps({"model": "x", "hooks": {"UserPromptSubmit": [{"hooks": [other]}]}})
    )
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "hooks").startswith("FAIL")


def test_partial_install_names_the_missing_events(project: Path) -> None:
    install(project)
    settings = inst.settings_path("project", cwd=project)
    data = json.loads(settings.read_text())
    del data["hooks"]["PreCompact"], data["hooks"]["SessionEnd"]
    settings.write_text(json.dumps(data))
    res = doctor(project)
    assert res.exit_code == 1
    assert "lacks PreCompact, SessionEnd" in line(res, "hooks")
    assert "--scope project" in fix_after(res, "hooks")


def test_hook_command_pointing_at_a_missing_program_fails(project: Path, tmp_path: Path) -> None:
    gone = tmp_path / "old-venv" / "bin" / "rolling-graph"
    install(project, "project", "--command", f"{gone} hook")
    res = doctor(project)
    assert res.exit_code == 1
    assert "missing program" in line(res, "hooks") and str(gone) in line(res, "hooks")
    assert "reinstall" in fix_after(res, "hooks")


def test_floor_hook_command_whose_script_is_gone_fails(project: Path, tmp_path: Path) -> None:
    import sys

    gone = tmp_path / "old-venv" / "rolling_graph" / "transport" / "stdlib_hook.py"
    install(project, "project", "--command", f"{sys.executable} -I -S {gone}")
    res = doctor(project)
    assert res.exit_code == 1
    assert "missing program" in line(res, "hooks") and str(gone) in line(res, "hooks")


def test_unreadable_settings_json_fails(project: Path) -> None:
    install(project)
    (project / ".claude" / "settings.local.json").write_text("{not json")
    res = doctor(project)
    assert res.exit_code == 1
    assert "settings.local.json is unreadable" in line(res, "hooks")
    assert "repair the JSON" in fix_after(res, "hooks")


# ---------------------------------------------------------------------------------------------
# config, data dir, warm store
# ---------------------------------------------------------------------------------------------


def test_broken_config_file_fails(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    bad = tmp_path / "config.toml"
    bad.write_text("budget = [unterminated\n")
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(bad))
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "config").startswith("FAIL")
    assert str(bad) in fix_after(res, "config")


def test_data_dir_that_cannot_be_written_fails(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    # A regular file where the data directory should be: unwritable even for root.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(blocker / "rolling-graph"))
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "data dir").startswith("FAIL")
    assert "ROLLING_GRAPH_HOME" in fix_after(res, "data dir")


def test_read_only_data_dir_fails_for_ordinary_users(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    ro = tmp_path / "ro-data"
    ro.mkdir()
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(ro))
    ro.chmod(0o500)
    try:
        res = doctor(project)
    finally:
        ro.chmod(0o700)
    # Root writes through mode bits, so only an ordinary user sees the failure.
    expected_ok = os.geteuid() == 0
    assert line(res, "data dir").startswith("ok" if expected_ok else "FAIL"), res.output
    assert res.exit_code == (0 if expected_ok else 1)


@pytest.mark.parametrize(
    "url, why",
    [
        ("mysql://localhost/memory", "unsupported warm store URL scheme"),
        ("postgresql://rg@127.0.0.1:1/rg?connect_timeout=2", "cannot connect"),
    ],
)
def test_bad_warm_url_fails(
    project: Path, monkeypatch: pytest.MonkeyPatch, url: str, why: str
) -> None:
    install(project)
    monkeypatch.setenv("ROLLING_GRAPH_WARM", url)
    res = doctor(project)
    assert res.exit_code == 1, res.output
    assert line(res, "warm store").startswith("FAIL")
    assert why in line(res, "warm store")
    assert "ROLLING_GRAPH_WARM" in fix_after(res, "warm store")


def test_warm_sqlite_file_in_an_impossible_place_fails(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("ROLLING_GRAPH_WARM", f"sqlite:///{blocker}/warm.db")
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "warm store").startswith("FAIL")


def test_warm_password_is_not_printed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROLLING_GRAPH_WARM", "postgresql://rg:hunter2@127.0.0.1:1/rg")
    res = doctor(project)
    assert "hunter2" not in line(res, "warm store")


# ---------------------------------------------------------------------------------------------
# probe backends
# ---------------------------------------------------------------------------------------------


def test_anthropic_probe_without_key_fails(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(project)
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "anthropic")
    res = doctor(project)
    assert res.exit_code == 1
    assert "ANTHROPIC_API_KEY is not set" in line(res, "probe")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-doctor-test")
    res = doctor(project)
    assert line(res, "probe").startswith("ok"), res.output


def test_claude_cli_probe_needs_claude_on_path(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "claude-cli")
    monkeypatch.setenv("ROLLING_GRAPH_CLAUDE_BIN", str(tmp_path / "no-such-claude"))
    res = doctor(project)
    assert res.exit_code == 1
    assert "is not on PATH" in line(res, "probe")
    monkeypatch.setenv("ROLLING_GRAPH_CLAUDE_BIN", sys.executable)  # any real executable
    res = doctor(project)
    assert line(res, "probe").startswith("ok"), res.output


def test_offline_probe_with_a_missing_spacy_model_fails(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    monkeypatch.setenv("ROLLING_GRAPH_SPACY_MODEL", "xx_no_such_pipeline_sm")
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "probe").startswith("FAIL")
    assert "spacy_model" in fix_after(res, "probe")


# ---------------------------------------------------------------------------------------------
# worker
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def stop_worker() -> Iterator[None]:
    yield
    # Same environment as the test (monkeypatch is still in force): stop what doctor started.
    subprocess.run(
        [sys.executable, "-m", "rolling_graph", "worker", "stop"],
        capture_output=True,
        timeout=60,
        check=False,
    )


def _doctor_process(project: Path) -> subprocess.CompletedProcess[str]:
    # Why a separate process: the worker doctor starts must be orphaned (reaped by init) as
    # it is for a person; started from pytest itself it would linger as our zombie child.
    return subprocess.run(
        [sys.executable, "-m", "rolling_graph", "doctor", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _worker_line(output: str) -> str:
    return next(ln for ln in output.splitlines() if ln[6:].startswith("worker"))


def test_worker_is_started_and_reached(project: Path, stop_worker: None) -> None:
    install(project)
    first = _doctor_process(project)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "started by doctor" in _worker_line(first.stdout), first.stdout
    again = _doctor_process(project)
    assert again.returncode == 0, again.stdout + again.stderr
    worker = _worker_line(again.stdout)
    assert worker.startswith("ok") and "started by" not in worker, again.stdout


def test_unsafe_socket_dir_fails(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(project)
    open_dir = tmp_path / "sockets"
    open_dir.mkdir(mode=0o777)
    open_dir.chmod(0o777)  # others may enter: the worker refuses it, so doctor must say so
    monkeypatch.setenv("ROLLING_GRAPH_SOCKET_DIR", str(open_dir))
    res = doctor(project)
    assert res.exit_code == 1
    assert line(res, "worker").startswith("FAIL")
    assert "ROLLING_GRAPH_SOCKET_DIR" in fix_after(res, "worker")
