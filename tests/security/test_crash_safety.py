"""Crash safety: SIGKILL a process running the worker's engine (``Engine.handle`` → gate →
probe → patch → audit log → graph save) at random moments, 50+ times on one session, with
the save window widened on half of the rounds. After every kill the session must load, and
every patch the audit log says was applied must be in the loaded graph (records written after
the last save are replayed); orphaned temp files are cleaned.

Why forked children rather than fresh worker processes: a worker start loads spaCy and warms
up (seconds each); a child forked from a warmed-up parent runs the same engine code at once,
so 50+ kills fit in well under a minute. ``tests/transport/test_faults.py`` and
``test_kill_mid_probe.py`` SIGKILL the real worker process itself.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from typing import Any

from rolling_graph.config import load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.hotstore import disk as hotstore_disk
from rolling_graph.core.session import HotSession, rebuild_from_audit
from rolling_graph.pipeline.engine import Engine

SID = "crash-1"
KILLS = 54
PROMPTS = [
    "Actually, no: use Redis{k} for the session cache, not Memcached{k}.",
    "Let's go with Kafka{k} for the event bus; Bob{k} owns it.",
    "Wait, not that: we decided on Postgres{k} with Alice{k} reviewing.",
]


def _child(home: Path, slow_save: bool, start: int) -> None:
    """Handle prompts forever (until killed)."""
    try:
        engine = Engine(load_settings(home=home, probe="offline"), replay=True)
        if slow_save:  # widen the window between an audited change and its save
            real = engine.store.save

            def save(graph: Any) -> Any:
                time.sleep(0.01)
                return real(graph)

            engine.store.save = save  # type: ignore[method-assign]
        k = start
        while True:
            text = PROMPTS[k % len(PROMPTS)].format(k=k)
            engine.handle(HookEvent("prompt_submit", SID, prompt=text, cwd="/repo"))
            k += 1
    finally:
        os._exit(0)


def _applied(records: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """The nodes and edges the applied patches leave, in order: an add puts one in, a remove
    takes it out (the engine removes the older direction of a supersedes cycle, in the same
    patch as the new edge; counting only the adds called that edge lost)."""
    nodes: set[str] = set()
    edges: set[str] = set()
    for rec in records:
        if rec.get("type") == "patch" and rec.get("status") == "applied":
            for op in rec.get("applied") or []:
                parts = str(op.get("path", "")).split("/")
                if len(parts) != 3:
                    continue
                ids = nodes if parts[1] == "nodes" else edges
                if op.get("op") == "add":
                    ids.add(parts[2])
                elif op.get("op") == "remove":
                    ids.discard(parts[2])
    return nodes, edges


def test_sigkill_mid_write_loses_no_applied_patch(tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "home"
    # Warm up here (spaCy, plugins) so that forked children start working at once.
    warm = Engine(load_settings(home=tmp_path / "warm", probe="offline"), replay=True)
    warm.handle(HookEvent("prompt_submit", "w", prompt="Let's go with Redis.", cwd="/repo"))
    rnd = random.Random(int.from_bytes(os.urandom(4), "big"))
    store = HotStore(home)
    unloadable = lost = killed_mid = 0
    for round_ in range(KILLS):
        pid = os.fork()
        if pid == 0:
            _child(home, slow_save=round_ % 2 == 0, start=round_ * 1000)
        time.sleep(rnd.uniform(0.05, 0.35))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        killed_mid += os.WIFSIGNALED(status)
        records = list(store.audit(SID).records())
        try:
            loaded = HotSession.open(store, SID).graph
        except Exception:  # noqa: BLE001 - counted, and asserted below
            unloadable += 1
            continue
        nodes, edges = _applied(records)
        lost += len(nodes - set(loaded.nodes)) + len(edges - set(loaded.edges))
        rebuilt = rebuild_from_audit(SID, records)
        lost += len(set(rebuilt.nodes) ^ set(loaded.nodes))
    monkeypatch.setattr(hotstore_disk, "ORPHAN_AGE_S", 0.0)
    final = HotSession.open(store, SID).graph
    orphans = [p.name for p in store.dir(SID).iterdir() if p.name.endswith(".tmp")]
    applied_nodes, _ = _applied(list(store.audit(SID).records()))
    print(
        f"\n{killed_mid} SIGKILLs, {len(final.nodes)} nodes / {len(final.edges)} edges, "
        f"{len(applied_nodes)} applied node adds: {unloadable} unloadable graphs, "
        f"{lost} lost applied changes, {len(orphans)} orphaned temp files left"
    )
    assert killed_mid == KILLS
    assert len(applied_nodes) > 50  # the children really wrote between kills
    assert unloadable == 0 and lost == 0
    assert orphans == []
