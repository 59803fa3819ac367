"""The replay's start-up (rolling_graph.eval.start_up): paid on an invented session in a
throw-away directory, never in the person's stores, and reported apart by ``replay``."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from rolling_graph.eval import start_up as start_up_mod
from rolling_graph.pipeline.engine import Engine
from tests.transport.conftest import RG

ROOT = Path(__file__).resolve().parents[2]


def test_start_up_writes_nothing_of_the_persons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, team = tmp_path / "home", tmp_path / "team.sqlite3"
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(home))
    monkeypatch.setenv("ROLLING_GRAPH_WARM", f"sqlite:///{team}")  # the person's own store
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "anthropic")  # a paid probe: never called here
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    handled: list[str] = []
    real = Engine.handle

    def spy(self: Engine, ev: object) -> object:
        out = real(self, ev)  # type: ignore[arg-type]
        handled.append(f"{self.settings.probe}:{out.event}:{out.ops_applied}")
        return out

    monkeypatch.setattr(Engine, "handle", spy)
    scratch = tmp_path / "tmp"  # its own temporary root: no other process's directories in it
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    seconds = start_up_mod.start_up()
    assert seconds > 0
    # Every part ran: the offline probe applied the prompt's patch, the session ended.
    assert handled[0].startswith("offline:session_start") and handled[-1].endswith(":0")
    assert any(h.startswith("offline:prompt_submit:") and not h.endswith(":0") for h in handled)
    assert all(h.startswith("offline:") for h in handled)
    assert not home.exists() and not team.exists()
    assert not list(scratch.iterdir())  # its directory is gone


def test_replay_reports_start_up_apart(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ROLLING_GRAPH_CONFIG": str(tmp_path / "none.toml"),
        "ROLLING_GRAPH_LOAD_PLUGINS": "0",
        "ROLLING_GRAPH_WORKER": "0",
    }
    sample = ROOT / "transcripts" / "copilot-db.jsonl"
    res = subprocess.run(
        [RG, "replay", str(sample), "--out", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    assert "start-up " in res.stderr and "in no row's ev/s" in res.stderr, res.stderr
    doc = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert doc["start_up_seconds"] > 0
    # The replayed session is the only one: the invented one left nothing in the outputs.
    assert [s["file"] for s in doc["sessions"]] == ["copilot-db.jsonl"]
    assert sorted(p.name for p in (tmp_path / "out" / "graphs").iterdir()) == [
        f"{doc['sessions'][0]['session_id']}.json"
    ]
