"""Registering the MCP server in Claude Code's files, and the block's hint that follows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.harness.install import mcp as mi


def test_entry_is_this_environments_console_script(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "rolling-graph"
    entry = mi.mcp_server_entry(str(exe))
    assert entry == {"command": str(exe), "args": ["mcp"]}
    spaced = tmp_path / "my bin" / "rolling-graph"
    assert mi.mcp_server_entry(str(spaced))["command"] == str(spaced)  # not shell-quoted


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_register_is_idempotent_and_unregister_restores_the_file(
    tmp_path: Path, scope: str
) -> None:
    home, cwd, data = tmp_path / "home", tmp_path / "proj", tmp_path / "data"
    home.mkdir()
    cwd.mkdir()
    path = mi.config_path(scope, cwd, home)
    other = {
        "theme": "dark",
        "mcpServers": {"github": {"command": "npx", "args": ["gh"]}},
        "projects": {str(cwd): {"allowedTools": [], "mcpServers": {"db": {"command": "db"}}}},
    }
    path.write_text(json.dumps(other))
    kw = {"cwd": cwd, "home": home, "marker_home": data}
    changed, where, backup = mi.register(scope, executable="/opt/rg/bin/rolling-graph", **kw)
    assert changed and where == path and backup is not None and backup.exists()
    assert mi.registered(scope, cwd=cwd, home=home) == path
    assert mi.hint_enabled("auto", data) and not mi.hint_enabled("off", data)
    assert not mi.hint_enabled("auto", data, "codex")  # Claude Code's registration only
    again = mi.register(scope, executable="/opt/rg/bin/rolling-graph", **kw)
    assert again[0] is False
    changed, _, _ = mi.unregister(scope, **kw)
    assert changed and json.loads(path.read_text()) == other
    assert mi.registered(scope, cwd=cwd, home=home) is None
    assert not mi.hint_enabled("auto", data) and mi.hint_enabled("on", data)
    assert mi.unregister(scope, **kw)[0] is False  # nothing left to remove


def test_a_foreign_server_of_the_same_name_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    theirs = {"mcpServers": {"rolling-graph": {"command": "/usr/bin/something-else"}}}
    path.write_text(json.dumps(theirs))
    with pytest.raises(ValueError, match="not ours"):
        mi.register("project", cwd=tmp_path, marker_home=tmp_path / "d")
    assert mi.unregister("project", cwd=tmp_path, marker_home=tmp_path / "d")[0] is False
    assert json.loads(path.read_text()) == theirs


def test_a_project_file_holding_only_our_entry_is_removed(tmp_path: Path) -> None:
    mi.register("project", cwd=tmp_path, marker_home=tmp_path / "d")
    assert (tmp_path / ".mcp.json").exists()
    mi.unregister("project", cwd=tmp_path, marker_home=tmp_path / "d")
    assert not (tmp_path / ".mcp.json").exists()


def test_the_blocks_first_line_names_the_tools_only_while_registered(tmp_path: Path) -> None:
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.pipeline.engine import Engine

    settings = load_settings(home=tmp_path / "data", probe="offline", mcp_hint="auto")
    engine = Engine(settings)
    try:
        with engine.locked_session("s") as sess:
            op = {"op": "add", "path": "/nodes/bento", "reason": "t",
                  "value": {"id": "bento", "label": "Bento", "domain": "project"}}  # fmt: skip
            assert sess.apply([op], PatchSource("test")).applied
            sess.save()

        def first_line() -> str:
            out = engine.handle(HookEvent(kind="session_start", session_id="s", source="resume"))
            assert out.injected, out
            return out.injected.splitlines()[0]

        assert "memory_search" not in first_line()
        mi.register("project", cwd=tmp_path, marker_home=settings.home)
        line = first_line()  # once: a resume never re-injects a block it already has
        assert "memory_search" in line and "memory_expand" in line
        mi.unregister("project", cwd=tmp_path, marker_home=settings.home)
        assert "memory_search" not in first_line()
    finally:
        engine.close()
