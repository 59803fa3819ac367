"""A replay's start-up, paid before its first file is timed.

The first event of a process imports the pipeline's modules, builds the language pipeline and
compiles the rules: most of a second, which a small first file would show as its own slowness
(7 events per second for the quick start's six-event sample). :func:`start_up` pays it on a
short invented session, in a throw-away directory with its own SQLite warm store, the offline
probe and no third-party plugin (a paid probe is never called, a team store never written, a
plugin never told of a session that was not), and returns the seconds it took, which the
``replay`` command reports on a line of its own.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rolling_graph.core.hook_event import HookEvent

SESSION = "start-up"


def _events(cwd: str) -> list[HookEvent]:
    """A session that reaches every part a replayed one does: gate, probe, observers, render,
    a flush to the warm store."""
    edit = {"file_path": f"{cwd}/src/cache.py", "old_string": "x = 1", "new_string": "x = 2"}
    return [
        HookEvent("session_start", SESSION, cwd=cwd, source="startup"),
        HookEvent(
            "prompt_submit",
            SESSION,
            cwd=cwd,
            prompt="Let's use SQLite for the cache, not Redis. Add a test for it in tests/.",
        ),
        HookEvent("tool_use", SESSION, cwd=cwd, tool_name="Edit", tool_input=edit),
        HookEvent(
            "tool_use",
            SESSION,
            cwd=cwd,
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            tool_response={"stdout": "1 passed in 0.01s", "exit_code": 0},
        ),
        HookEvent("pre_compact", SESSION, cwd=cwd, trigger="auto"),
        HookEvent("session_start", SESSION, cwd=cwd, source="compact"),
        HookEvent("session_end", SESSION, cwd=cwd, reason="other"),
    ]


def start_up() -> float:
    """Run the invented session once in a throw-away directory; the seconds it took."""
    from rolling_graph.core.hotstore import ReplayStore
    from rolling_graph.eval.replay import Replayer, freeze_start_up, replay_settings
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.pipeline.plugins import get_plugin_manager

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rolling-graph-start-up-") as tmp:
        out = Path(tmp)
        settings = replay_settings(out, probe="offline", warm=f"sqlite:///{out / 'warm.sqlite3'}")
        pm = get_plugin_manager(load_entry_points=False)
        engine = Engine(settings, pm=pm, store=ReplayStore(settings.home), replay=True)
        with Replayer(out, settings=settings, engine=engine, write_outputs=False) as rp:
            for ev in _events(str(out / "project")):
                rp.engine.handle(ev)
    freeze_start_up()
    return time.perf_counter() - started
