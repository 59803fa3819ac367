"""Hot store: atomic writes, corrupt files moved aside and rebuilt, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession

SRC = PatchSource(probe="test")


def _populate(store: HotStore, sid: str = "s1") -> HotSession:
    sess = HotSession.open(store, sid)
    for i in range(6):
        sess.advance_turn()
        sess.decay()
        r = sess.apply(
            [
                {
                    "op": "add",
                    "path": f"/nodes/topic-{i}",
                    "value": {"label": f"Topic {i}", "domain": "technical"},
                    "reason": "r",
                }
            ],
            SRC,
        )
        assert r.applied
        if i:
            sess.apply(
                [
                    {
                        "op": "add",
                        "path": f"/edges/topic-{i}|relates-to|topic-{i - 1}",
                        "value": {
                            "source": f"topic-{i}",
                            "target": f"topic-{i - 1}",
                            "relationship": "relates-to",
                        },
                        "reason": "r",
                    }
                ],
                SRC,
            )
        sess.apply(
            [{"op": "add", "path": "/nodes/Bad", "value": {}, "reason": "r"}], SRC
        )  # rejected, audited
        sess.save()
    return sess


def test_round_trip_and_layout(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    sess = _populate(store)
    d = tmp_path / "sessions" / "s1"
    assert sorted(p.name for p in d.iterdir() if not p.name.startswith(".")) == [
        "audit.jsonl",
        "graph.json",
    ]
    again = HotSession.open(store, "s1")
    assert again.graph.to_json_dict() == sess.graph.to_json_dict() and again.notices == []


def test_corrupt_graph_is_moved_aside_and_rebuilt_from_audit(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    sess = _populate(store)
    gfile = tmp_path / "sessions" / "s1" / "graph.json"
    gfile.write_bytes(gfile.read_bytes()[: len(gfile.read_bytes()) // 2])  # truncated
    again = HotSession.open(store, "s1")
    assert again.graph.to_json_dict() == sess.graph.to_json_dict()
    assert (
        len(again.notices) == 2
        and "moved it to" in again.notices[0]
        and "rebuilt" in again.notices[1]
    )
    aside = list(gfile.parent.glob("graph.json.corrupt-*"))
    assert len(aside) == 1  # nothing silently dropped: the bad file is kept for inspection
    assert json.loads(gfile.read_bytes())["nodes"]  # and a good file is back in place


def test_invalid_but_parseable_graph_is_also_recovered(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    sess = _populate(store)
    gfile = tmp_path / "sessions" / "s1" / "graph.json"
    doc = json.loads(gfile.read_bytes())
    doc["nodes"]["topic-1"]["weight"] = 7
    gfile.write_text(json.dumps(doc))
    assert HotSession.open(store, "s1").graph.to_json_dict() == sess.graph.to_json_dict()


def test_lost_graph_file_is_rebuilt(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    sess = _populate(store)
    (tmp_path / "sessions" / "s1" / "graph.json").unlink()
    again = HotSession.open(store, "s1")
    assert again.graph.to_json_dict() == sess.graph.to_json_dict()


WRITER = r"""
import sys
from pathlib import Path
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
store = HotStore(Path(sys.argv[1]))
sess = HotSession.open(store, "crash")
i = 0
while True:
    sess.advance_turn()
    sess.decay()
    sess.apply([{"op": "add", "path": f"/nodes/n-{i}", "value": {"label": "N %d " % i + "x" * 60, "domain": "project", "summary": "s" * 150}, "reason": "r"}], PatchSource("t"))
    with store.lock("crash"):
        sess.save()
    if i == 0:
        print("ready", flush=True)  # the first complete graph is on disk
    i += 1
"""


def test_sigkill_mid_write_never_leaves_an_unloadable_graph(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    for round_ in range(8):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(0.15 + 0.05 * round_)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        gfile = tmp_path / "sessions" / "crash" / "graph.json"
        # The file on disk must load as it is, with no rebuild needed.
        loaded = store.load("crash")
        assert loaded.notices == [], loaded.notices
        assert gfile.exists()
        assert len(loaded.graph.nodes) > 0
    leftovers = [p for p in (tmp_path / "sessions" / "crash").iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) <= 8  # a killed writer may leave a temp file, never a torn graph


def test_session_ids_are_sanitized(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    d = store.ensure_dir("../../etc/passwd")
    assert d.parent == tmp_path / "sessions"


def test_engine_reloads_a_session_another_process_changed(tmp_path: Path) -> None:
    """A long-lived worker must not overwrite what the CLI (expand, recover) wrote meanwhile."""
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.pipeline.engine import Engine

    engine = Engine(load_settings(home=tmp_path, probe="offline"))
    engine.handle(HookEvent("session_start", "s9", source="startup"))
    other = HotSession.open(HotStore(tmp_path), "s9")
    other.advance_turn()
    other.apply(
        [
            {
                "op": "add",
                "path": "/nodes/from-cli",
                "value": {"label": "From CLI", "domain": "project"},
                "reason": "r",
            }
        ],
        SRC,
    )
    other.save()
    engine.handle(HookEvent("prompt_submit", "s9", prompt="ok"))
    assert "from-cli" in HotSession.open(HotStore(tmp_path), "s9").graph.nodes
    engine.close()
