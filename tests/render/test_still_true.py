"""Still true when read (issue 30): a resume on a real git work tree, where between two sessions
a function was deleted, a file renamed (``git mv``) and another removed. The next session's
"where we left off" block, and the compaction block, do not present them as current; what is
unchanged still shows; ``render --why`` reports the check."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.pipeline.engine import Engine
from rolling_graph.render.freshness import check
from tests.transport.conftest import RG

APP = """import os


def load_settings_file(path):
    return open(path).read()


def parse_cli_args(argv):
    return list(argv)
"""
UTIL = "def slugify_title(text):\n    return text.lower()\n"
OLD = "RETRY_LIMIT_VALUE = 3\n"


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    r = tmp_path / "repo"
    (r / "src").mkdir(parents=True)
    _git(r, "init", "-q")
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("ROLLING_GRAPH_FRESHNESS_BUDGET_MS", "2000")  # a loaded CI machine
    return r


def _write(engine: Engine, sid: str, repo: Path, rel: str, content: str) -> None:
    (repo / rel).write_text(content)
    inp = {"file_path": str(repo / rel), "content": content}
    engine.handle(HookEvent("tool_use", sid, cwd=str(repo), tool_name="Write", tool_input=inp))


def _first_session(repo: Path) -> None:
    engine = Engine(load_settings())
    try:
        engine.handle(HookEvent("session_start", "one", cwd=str(repo), source="startup"))
        engine.handle(HookEvent("prompt_submit", "one", cwd=str(repo), prompt="Set up the CLI."))
        for rel, content in (("src/app.py", APP), ("src/util.py", UTIL), ("src/old.py", OLD)):
            _write(engine, "one", repo, rel, content)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "first")
        engine.handle(HookEvent("session_end", "one", cwd=str(repo), reason="other"))
    finally:
        engine.close()


def _start(repo: Path, sid: str) -> str:
    engine = Engine(load_settings())
    try:
        out = engine.handle(HookEvent("session_start", sid, cwd=str(repo), source="startup"))
        return out.injected or ""
    finally:
        engine.close()


def _named(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(word)}(?![\w])", text) is not None


def test_resume_leaves_out_what_is_gone_and_follows_a_rename(repo: Path) -> None:
    _first_session(repo)
    before = _start(repo, "two")  # nothing changed yet: everything is presented
    for name in ("load_settings_file", "parse_cli_args", "src/util.py", "src/old.py"):
        assert _named(before, name), (name, before)
    assert "(removed since)" not in before and "renamed since" not in before

    (repo / "src/app.py").write_text(APP.split("\n\ndef parse_cli_args")[0] + "\n")
    _git(repo, "mv", "src/util.py", "src/helpers.py")
    _git(repo, "rm", "-q", "src/old.py")
    _git(repo, "commit", "-qam", "tidy up")

    after = _start(repo, "three")
    assert after.startswith("Rolling memory from earlier sessions"), after
    assert not _named(after, "parse_cli_args"), after  # deleted: left out
    assert _named(after, "load_settings_file"), after  # still defined: still shown
    assert "src/helpers.py (renamed since from util.py)" in after, after
    # The old path is not presented as current: only as what was renamed.
    rest = after.replace("src/util.py → src/helpers.py", "")
    assert not _named(rest, "src/util.py") and "src/util.py → src/helpers.py" in after, after
    assert "src/old.py (removed since)" in after, after
    assert _named(after, "src/app.py") and "src/app.py (" not in after, after


def test_compaction_block_and_render_why(repo: Path) -> None:
    engine = Engine(load_settings())
    try:
        engine.handle(HookEvent("session_start", "c1", cwd=str(repo), source="startup"))
        engine.handle(HookEvent("prompt_submit", "c1", cwd=str(repo), prompt="Set up the CLI."))
        for rel, content in (("src/app.py", APP), ("src/util.py", UTIL)):
            _write(engine, "c1", repo, rel, content)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "first")
        (repo / "src/app.py").write_text(APP.split("\n\ndef parse_cli_args")[0] + "\n")
        _git(repo, "mv", "src/util.py", "src/helpers.py")
        engine.handle(HookEvent("pre_compact", "c1", cwd=str(repo), trigger="auto"))
        out = engine.handle(HookEvent("session_start", "c1", cwd=str(repo), source="compact"))
        block = out.injected or ""
        graph = engine.sessions["c1"].graph
    finally:
        engine.close()
    assert _named(block, "load_settings_file"), block
    assert not _named(block, "parse_cli_args"), block
    assert "src/helpers.py (renamed since from util.py)" in block, block
    assert not _named(block, "src/util.py"), block
    assert "parse-cli-args" in graph.nodes  # the session's own graph is left as it was

    # Run in the project or anywhere else: the session's own work tree is what is checked.
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    for where in (repo, elsewhere):
        res = subprocess.run(
            [RG, "render", "--session", "c1", "--why"], cwd=where, capture_output=True, text=True
        )
        assert res.returncode == 0, res.stderr
        assert "src/helpers.py (renamed since from util.py)" in res.stdout, res.stdout
        pattern = r"1 renamed, 1 symbols no longer defined, 0 unchecked"
        assert re.search(pattern, res.stdout), res.stdout


def test_the_check_is_bounded_and_never_raises(repo: Path) -> None:
    class N:
        def __init__(self, i: int) -> None:
            self.id, self.label, self.kind, self.summary = f"f{i}", f"src/f{i}.py", "file", None

    nodes: list[Any] = [N(i) for i in range(50)]
    out = check(nodes, [], str(repo), budget_ms=0)
    assert out.checked == 0 and out.unchecked == 50 and not out.stale
    out = check(nodes, [], "relative/path", budget_ms=100)
    assert out.checked == 0 and not out.stale
    out = check(nodes, [], str(repo), budget_ms=1000)
    assert out.checked == 50 and len(out.removed) == 50  # none of them exists
    # A path that never was in this tree (shortened, from outside the project): left as is.
    elsewhere: list[Any] = [N(0)]
    elsewhere[0].label = "lib/python3.11/json.py"
    out = check(elsewhere, [], str(repo), budget_ms=1000)
    assert out.checked == 0 and not out.stale
