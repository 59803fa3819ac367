"""A newcomer's first hour, scripted (issue 29): a scratch HOME, the quick start on the sample
transcripts, `render --why`, piped `replay` and `eval` at 80 columns with every number whole,
install/uninstall for the four clients in user and project scope leaving the scratch folder
byte-identical, MCP search → expand on the replayed store (the SDK's stdio client, outside a
live session), and each bad input with its exit code and message.

Runs the console script of the environment that runs the tests (no fresh venv here)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import mcp_errlog
from tests.transport.conftest import RG, WorkerEnv, wenv  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "transcripts").glob("*.jsonl"))
CLIENTS = ("claude-code", "codex", "gemini", "copilot")


def run(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [RG, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def base_env(tmp: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROLLING_GRAPH_", "CODEX_"))}
    env.pop("COPILOT_HOME", None)
    env.update(
        HOME=str(home),
        COLUMNS="80",
        ROLLING_GRAPH_HOME=str(tmp / "data"),
        ROLLING_GRAPH_CONFIG=str(tmp / "no-config.toml"),
        ROLLING_GRAPH_LOAD_PLUGINS="0",
        ROLLING_GRAPH_PROBE="offline",
        ROLLING_GRAPH_WORKER="0",
    )
    return env


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The README's quick start, piped: `rolling-graph replay transcripts/*.jsonl --out out`."""
    tmp = tmp_path_factory.mktemp("newcomer")
    home = tmp / "home"
    home.mkdir()
    env = base_env(tmp, home)
    res = run(env, "replay", *map(str, SAMPLES), "--out", "out", cwd=tmp)
    assert res.returncode == 0, res.stderr
    return {"tmp": tmp, "env": env, "res": res, "out": tmp / "out"}


def _cell(v: Any, fmt: str = "") -> str:
    if v is None:
        return "—"
    return format(v, fmt) if fmt and isinstance(v, float) else str(v)


def test_quick_start_prints_every_number_whole_at_80_columns(quick: dict[str, Any]) -> None:
    doc = json.loads((quick["out"] / "summary.json").read_text())
    lines = quick["res"].stdout.splitlines()
    assert lines[0] == "replay summary" and lines[1].split()[:3] == ["file", "user", "turns"]
    for s in doc["sessions"]:
        row = next(line for line in lines if line.startswith(s["file"] + " ")).split()
        want = [s["user_turns"], s["tool_steps"], s["probes"], f"{s['probe_rate_per_60']:.1f}"]
        want += [s["injections"], s["injected_tokens_max"], s["nodes"], s["edges"]]
        want += [s["rejected_patches"], s["unread_prompts"], f"{s['events_per_second']:.0f}"]
        assert row[1:] == [str(v) for v in want], row
    # Piped, progress is one plain line per file on stderr (no bar, no control characters).
    progress = [x for x in quick["res"].stderr.splitlines() if x.startswith("replaying ")]
    assert len(progress) == len(SAMPLES) and "\x1b" not in quick["res"].stderr


def test_render_why_and_sessions_on_the_replayed_store(quick: dict[str, Any]) -> None:
    env = {**quick["env"], "ROLLING_GRAPH_HOME": str(quick["out"] / "store")}
    res = run(env, "render", "--why")
    assert res.returncode == 0 and "(why: " in res.stdout, res.stderr
    # The sample sessions ran in a project that is not on this machine: no file of theirs is
    # called removed because the current directory lacks it.
    assert "(removed since)" not in res.stdout, res.stdout
    assert "(why: Not checked against a work tree: the session ran in /" in res.stdout, res.stdout
    listed = json.loads(run(env, "sessions", "--json").stdout)
    assert len(listed) == len(SAMPLES)
    assert {Path(r["source"]).name for r in listed} == {p.name for p in SAMPLES}
    assert any(r["project"].startswith("path:") for r in listed)
    table = run(env, "sessions").stdout.splitlines()
    assert table[0].split() == [
        "modified",
        "session",
        "turn",
        "nodes",
        "edges",
        "project",
        "source",
    ]
    for r in listed:  # whole keys and ids: a project key can be copied from here
        assert any(r["session_id"] in line and r["project"] in line for line in table[1:])
    for fmt, first in (("tsv", "modified\tsession\t"), ("markdown", "| modified | session |")):
        assert run(env, "sessions", "--format", fmt).stdout.startswith(first)
    by_project = run(env, "stats", "--by-project").stdout.splitlines()
    keys = {r["project"] for r in listed} - {"(none)"}
    assert keys and max(map(len, keys)) > 24  # longer than the old cut
    for key in keys:  # whole, so that it can be copied into `view --project KEY`
        assert any(line.split()[0] == key for line in by_project[1:]), key


def test_piped_eval_prints_every_number_whole(quick: dict[str, Any]) -> None:
    sample = ROOT / "transcripts" / "flaky-ci.jsonl"
    res = run(quick["env"], "eval", str(sample), "--out", "ev", cwd=quick["tmp"])
    assert res.returncode == 0, res.stderr
    doc = json.loads((quick["tmp"] / "ev" / "eval.json").read_text())
    assert doc["cuts"], "the sample has simulated cuts"
    keys = ["after_turn", "target", "block_tokens", "block_recall", "recent_equal_recall"]
    keys.append("recent_budget_recall")
    lines = res.stdout.splitlines()
    for r in doc["cuts"]:
        row = next(
            x for x in lines if x.startswith(r["file"] + " ") and f" {r['after_turn']} " in x
        )
        assert row.split()[1:] == [_cell(r.get(k), ".2f") for k in keys], row
    tsv = run(
        quick["env"], "eval", str(sample), "--out", "ev2", "--format", "json", cwd=quick["tmp"]
    )
    tables = json.loads(tsv.stdout)
    assert len(tables) == 2 and all(isinstance(rows, list) for rows in tables.values())


# ------------------------------------------------------------------------------- installs


def snapshot(root: Path) -> dict[str, str]:
    """Every file (its hash) and every folder under ``root``."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


def scratch(tmp: Path) -> tuple[Path, Path]:
    """A HOME with settings a person already has (indented their way, with comments where the
    client allows them) and an empty project repository."""
    home, project = tmp / "scratch" / "home", tmp / "scratch" / "project"
    (project / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{\n    "model": "opus",\n    "env": {}\n}')
    (home / ".gemini").mkdir()
    gemini = '{\n  // my theme\n  "theme": "dark", /* trailing comma next */\n}\n'
    (home / ".gemini" / "settings.json").write_text(gemini)
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "o3"  # mine\n')
    return home, project


def test_install_uninstall_every_client_and_scope_leaves_no_trace(tmp_path: Path) -> None:
    home, project = scratch(tmp_path)
    env = base_env(tmp_path, home)
    venv_bin = str(Path(RG).parent)
    env["PATH"] = os.pathsep.join([venv_bin, env.get("PATH", "")])  # the venv is activated
    before = snapshot(tmp_path / "scratch")
    for client in CLIENTS:
        for scope in ("user", "project"):
            res = run(env, "install", client, "--scope", scope, cwd=project)
            assert res.returncode == 0, (client, scope, res.stderr)
            assert "installed" in res.stdout
            backups = [x for x in res.stdout.splitlines() if x.startswith("backup")]
            assert len(backups) <= 2, res.stdout  # at most one per file, each named
            shared = [p for p in project.rglob("*") if p.is_file() and ".git" not in p.parts]
            assert shared or scope == "user"
            for p in shared:  # files a team commits never name one person's venv
                assert venv_bin not in p.read_text(), p
            res = run(env, "uninstall", client, "--scope", scope, cwd=project)
            assert res.returncode == 0 and "removed" in res.stdout, (client, scope, res.stderr)
            assert snapshot(tmp_path / "scratch") == before, (client, scope)


def test_project_scope_command_resolves_through_path_and_doctor_checks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolling_graph.cli.doctor_cmds import check_hooks

    home, project = scratch(tmp_path)
    env = base_env(tmp_path, home)
    env["PATH"] = os.pathsep.join([str(Path(RG).parent), env.get("PATH", "")])
    assert run(env, "install", "claude-code", "--scope", "project", cwd=project).returncode == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    commands = {h["command"] for g in settings["hooks"].values() for x in g for h in x["hooks"]}
    assert commands == {"rolling-graph hook"}
    assert (
        json.loads((project / ".mcp.json").read_text())["mcpServers"]["rolling-graph"]["command"]
        == "rolling-graph"
    )
    monkeypatch.setenv("PATH", env["PATH"])
    assert check_hooks(project, home).ok
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    check = check_hooks(project, home)
    assert not check.ok and "runs a missing program: rolling-graph" in check.detail
    # Without this program on PATH the project's files name this machine's hook client (the
    # -I -S client by path), and the install says so.
    other = tmp_path / "other"
    other.mkdir()
    res = run({**env, "PATH": "/usr/bin:/bin"}, "install", "codex", "--scope", "project", cwd=other)
    assert res.returncode == 0 and "note: the project's files name" in res.stderr
    written = json.dumps(json.loads((other / ".codex" / "hooks.json").read_text()))
    assert "-I -S" in written and "stdlib_hook.py" in written


def test_a_json_error_names_the_file_and_line_and_doctor_does_not_say_rerun(
    tmp_path: Path,
) -> None:
    from rolling_graph.cli.doctor_cmds import check_hooks

    home, project = scratch(tmp_path)
    env = base_env(tmp_path, home)
    bad = home / ".gemini" / "settings.json"
    bad.write_text('{\n  "theme": "dark"\n  "x": 1\n}\n')
    before = snapshot(tmp_path / "scratch")
    res = run(env, "install", "gemini", cwd=project)
    assert res.returncode == 1
    assert f"{bad}: line 3, column 3" in res.stderr and "Traceback" not in res.stderr
    assert snapshot(tmp_path / "scratch") == before
    # doctor reads the same file: its fix says to repair it, not to run the failing install.
    bad.write_text('{"hooks": {"BeforeAgent": [{"hooks": [{"command": "rolling-graph hook"}]}]}')
    bad.write_text(bad.read_text()[:-1])
    check = check_hooks(project, home)
    assert not check.ok and "repair" in check.fix and "install gemini" not in check.fix


# ------------------------------------------------------------------------------- MCP


def test_mcp_search_then_expand_on_the_replayed_store_outside_a_session(
    quick: dict[str, Any],
    wenv: WorkerEnv,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    store = quick["out"] / "store"
    wenv.env["ROLLING_GRAPH_HOME"] = str(store)
    graph = json.loads(next((quick["out"] / "graphs").glob("*.json")).read_text())
    label = max(graph["nodes"].values(), key=lambda n: n["weight"])["label"]
    word = max(label.split(), key=len)
    elsewhere = tmp_path / "not-a-replayed-project"
    (elsewhere / ".git").mkdir(parents=True)  # a project of its own: no session ran here
    params = StdioServerParameters(command=RG, args=["mcp"], env=wenv.env, cwd=str(elsewhere))

    async def main() -> Any:
        with anyio.fail_after(120):
            async with (
                stdio_client(params, errlog=mcp_errlog()) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                found = await s.call_tool("memory_search", {"query": word, "scope": "all"})
                ids = [m["id"] for m in (found.structured_content or {}).get("results", [])]
                ids = ids or _ids(found)
                expanded = await s.call_tool("memory_expand", {"node": ids[0]})
                unknown = await s.call_tool("memory_expand", {"node": "no-such-node-anywhere"})
                history = await s.call_tool("memory_history", {"subject": "Use Bento"})
                block = await s.read_resource("rolling-graph://block")
                return found, ids, expanded, unknown, block, history

    found, ids, expanded, unknown, block, history = anyio.run(main)
    assert not found.is_error and ids, _text(found)
    assert not expanded.is_error, _text(expanded)
    assert f"id {ids[0]}" in _text(expanded) and "no live session" in _text(expanded)
    assert unknown.is_error and "ROLLING_GRAPH_MCP_SESSION" in _text(unknown)
    assert "the latest session" in block.contents[0].text
    # No session here: the decision comes from the warm store (the person's or any scope).
    assert not history.is_error and "Bento" in _text(history), _text(history)
    assert "decision" in _text(history) and "earlier sessions" in _text(history)


def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def _ids(result: Any) -> list[str]:
    import re

    return re.findall(r"\[id ([^;\]]+)", _text(result))


# ------------------------------------------------------------------------------- bad input


def test_bad_input_gets_one_clear_line_and_the_right_exit_code(tmp_path: Path) -> None:
    env = base_env(tmp_path, tmp_path)
    data = Path(env["ROLLING_GRAPH_HOME"])
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\xff\xfe binary")
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "u16.md").write_bytes("- always use uv, never pip\n".encode("utf-16"))
    cases = [
        (["seed", "bin.dat"], 1, "bin.dat is not a text file"),
        (["replay", "empty.jsonl", "bin.dat", "--out", "o1"], 1, "nothing replayed"),
        (["replay", "--warm", "bogus://x", str(SAMPLES[0]), "--out", "o2"], 1, "'bogus'"),
        (["hook", "--help"], 0, "Usage: rolling-graph hook"),
    ]
    for args, code, words in cases:
        res = run(env, *args, cwd=tmp_path)
        assert res.returncode == code and words in res.stdout + res.stderr, (args, res.stderr)
        assert "Traceback" not in res.stderr, args
    assert not data.exists() and not (tmp_path / "o2").exists()  # refused before any work
    res = run(env, "replay", "empty.jsonl", "bin.dat", "--out", "o1", cwd=tmp_path)
    assert "skipped empty.jsonl: the file is empty" in res.stderr
    assert "skipped bin.dat: binary data" in res.stderr
    res = run({**env, "ROLLING_GRAPH_BUDGET": "abc"}, "sessions")
    assert res.returncode == 1 and len(res.stderr.strip().splitlines()) == 1
    assert "ROLLING_GRAPH_BUDGET='abc' expects an integer" in res.stderr
    assert "pydantic" not in res.stderr
    res = run({**env, "ROLLING_GRAPH_BUDGET": "abc"}, "mcp")  # the server the client starts
    assert res.returncode == 1 and res.stderr.strip().splitlines() == [
        "rolling-graph mcp: bad configuration: ROLLING_GRAPH_BUDGET='abc' expects an integer"
    ]
    res = run(env, "seed", "u16.md", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("1 memories"), res.stderr
    res = run(env, "warm", "forgotten")
    assert res.returncode == 0 and "nothing forgotten yet" in res.stderr and not res.stdout


def test_view_out_in_a_missing_folder_and_sessions_after_a_rebuild(
    quick: dict[str, Any], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(quick["out"] / "store", store)
    env = {**quick["env"], "ROLLING_GRAPH_HOME": str(store)}
    missing = tmp_path / "nonexistent" / "dir" / "x.html"
    res = run(env, "view", "--out", str(missing))
    assert res.returncode == 1 and "does not exist" in res.stderr
    assert not (tmp_path / "nonexistent").exists()
    sid = json.loads(run(env, "sessions", "--json").stdout)[0]["session_id"]
    (store / "sessions" / sid / "graph.json").write_text("{not json")
    listed = {r["session_id"]: r for r in json.loads(run(env, "sessions", "--json").stdout)}
    assert listed[sid]["note"].startswith("graph unreadable")
    assert run(env, "render", "--session", sid).returncode == 0  # loading rebuilds it
    listed = {r["session_id"]: r for r in json.loads(run(env, "sessions", "--json").stdout)}
    assert listed[sid]["note"].startswith("rebuilt from its audit log") and listed[sid]["nodes"]
