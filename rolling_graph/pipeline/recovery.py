"""Recovery of sessions whose final merge into the warm store never happened (DESIGN §6:
"crashed sessions: best-effort reconciliation later, from the leftover hot graph or the
transcript").

- :func:`reconcile_session` — final-flush one session from its hot graph or, when that is
  gone, from a hot graph rebuilt from its transcript (:func:`rebuild_from_transcript`: the
  in-process replay with the offline probe, no network); clears its pending marker.
- :func:`finish_pending` — at session start, the final flushes a killed SessionEnd left
  behind (hot graphs only: a start must stay quick).

It sits above the engine (a rebuild runs the whole pipeline) and drives a
:class:`~rolling_graph.warm.reconcile.Reconciler`, which sits below it.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from rolling_graph.core.model import HotGraph
from rolling_graph.warm.flush import FlushResult
from rolling_graph.warm.reconcile import Reconciler

log = logging.getLogger("rolling_graph.warm")

WARM_PLUGIN = "rolling_graph.pipeline.default_plugins.warm_plugin"


def rebuild_from_transcript(path: Path, session_id: str, settings: Any) -> HotGraph:
    """Rebuild a hot graph from a transcript with the in-process replay and the offline probe
    (no network), without the warm plugin (the caller flushes the result itself)."""
    from rolling_graph.core.hotstore import ReplayStore
    from rolling_graph.eval.replay import Replayer
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.pipeline.plugins import get_plugin_manager

    with tempfile.TemporaryDirectory(prefix="rg-recover.") as tmp:
        out = Path(tmp)
        replay_settings = settings.model_copy(
            update={"home": out / "store", "probe": "offline", "warm": ""}
        )
        pm = get_plugin_manager(load_entry_points=False)
        with contextlib.suppress(ValueError, AssertionError):
            pm.unregister(name=WARM_PLUGIN)
        engine = Engine(replay_settings, pm=pm, store=ReplayStore(out / "store"), replay=True)
        with Replayer(out, settings=replay_settings, engine=engine, write_outputs=False) as r:
            summary = r.replay_file(path)
            graph = r.engine.store.load(summary.session_id).graph
    return graph.model_copy(update={"session_id": session_id})


def _flush_hot_graph(
    rec: Reconciler, session_id: str, lock_timeout: float, now: datetime | None
) -> FlushResult:
    from rolling_graph.core.session import HotSession, SessionParams

    with rec.hot.lock(session_id, timeout=lock_timeout):
        sess = HotSession.open(rec.hot, session_id, SessionParams.from_settings(rec.settings))
        return rec.flush(sess, final=True, now=now, reason="recover")


def _flush_transcript(
    rec: Reconciler, session_id: str, transcript: str, lock_timeout: float, now: datetime | None
) -> FlushResult:
    graph = rebuild_from_transcript(Path(transcript), session_id, rec.settings)
    with rec.hot.lock(session_id, timeout=lock_timeout):
        rec.hot.save(graph)  # a hot graph again: `show` works, recovery is visible
        rec.hot.audit(session_id).append(
            {"type": "recover", "from": "transcript", "path": str(transcript)}
        )
        return rec.flush_graph(graph, final=True, now=now, reason="recover-transcript")


def reconcile_session(
    rec: Reconciler,
    session_id: str,
    *,
    transcript_path: str | None = None,
    lock_timeout: float = 10.0,
    allow_transcript: bool = True,
    now: datetime | None = None,
    session: Any = None,
) -> FlushResult | None:
    """Final-flush one session from its hot graph (``session`` when open already), or from
    its transcript when the hot graph is gone; clears its pending marker. ``None`` when there
    is nothing to use."""
    if session is not None:
        result = rec.flush(session, final=True, now=now, reason="recover")
        rec.clear_pending(session_id)
        return result
    marker = next((m for m in rec.pending() if m.get("session_id") == session_id), {})
    transcript = (
        transcript_path
        or marker.get("transcript_path")
        or rec.state(session_id).get("transcript_path")
    )
    if rec.hot.exists(session_id):
        result = _flush_hot_graph(rec, session_id, lock_timeout, now)
    elif transcript and allow_transcript and Path(transcript).exists():
        result = _flush_transcript(rec, session_id, transcript, lock_timeout, now)
    else:
        return None
    rec.clear_pending(session_id)
    return result


def finish_pending(
    rec: Reconciler,
    *,
    exclude: str | None = None,
    engine: Any = None,
    lock_timeout: float = 0.2,
    allow_transcript: bool = False,
) -> list[FlushResult]:
    """Finish final flushes that a killed SessionEnd left behind (called at session start).

    Skips sessions another thread or process holds (it is finishing them itself).
    """
    done = []
    for marker in rec.pending():
        sid = str(marker["session_id"])
        if sid == exclude:
            continue
        tlock = engine.thread_lock(sid) if engine is not None else None
        if tlock is not None and not tlock.acquire(timeout=lock_timeout):
            continue
        try:
            if not rec.is_pending(sid):
                continue  # finished meanwhile
            result = reconcile_session(
                rec, sid, lock_timeout=lock_timeout, allow_transcript=allow_transcript
            )
            if result is not None:
                done.append(result)
        except Exception as err:  # noqa: BLE001 - timeouts, a broken graph: leave it for `recover`
            log.info("pending final flush of %s left for later: %s", sid, err)
        finally:
            if tlock is not None:
                tlock.release()
    return done
