"""Replay a real transcript and stop at each harness summary: the graph just after the event
that read it, what the summary lists, and what the harvest recorded. Shared by
``tests/eval/test_summary_harvest_shared.py`` and ``bench/harvest.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolling_graph.core.model import HotGraph


@dataclass
class Boundary:
    """One summary of one replayed transcript, seen right after the event that read it."""

    file: str
    index: int
    summary: str
    graph: HotGraph
    record: dict[str, Any]  # the session's "harvest" event record
    pending: list[str] = field(default_factory=list)  # the summary's pending items
    current: str = ""


def _last_harvest(engine: Any, sid: str) -> dict[str, Any]:
    recs = [r for r in engine.store.audit(sid).records() if r.get("type") == "harvest"]
    return recs[-1] if recs else {}


def boundaries(
    path: Path, out: Path, *, probe: str = "offline", settings: dict[str, Any] | None = None
) -> Iterator[Boundary]:
    """Replay ``path`` into ``out`` and yield each summary's :class:`Boundary`."""
    from rolling_graph.config import load_settings
    from rolling_graph.eval.replay import HOT_DIR, ReplayStore, hook_events, transcript_meta
    from rolling_graph.paths import safe_session_id
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.probe.summary_harvest import current_work
    from rolling_graph.probe.summary_sections import parse
    from rolling_graph.transcripts import read_transcript
    from rolling_graph.transcripts.events import CompactSummary

    tr = read_transcript(path)
    sid, cwd = transcript_meta(path)
    sid = safe_session_id(sid or path.stem)
    home = out / HOT_DIR
    cfg = load_settings(home=home, probe=probe, warm=f"sqlite:///{out / 'warm.db'}")
    cfg = cfg.model_copy(update=settings or {})
    engine = Engine(cfg, store=ReplayStore(home), replay=True)
    n = 0
    try:
        for ev in hook_events(tr, sid, cwd=cwd):
            engine.handle(ev)
            summaries = [e for e in ev.context_events if isinstance(e, CompactSummary)]
            if not summaries or not summaries[0].text.strip():
                continue
            text = summaries[0].text
            s = parse(text)
            yield Boundary(
                file=path.name,
                index=n,
                summary=text,
                graph=engine.store.load(ev.session_id).graph.model_copy(deep=True),
                record=_last_harvest(engine, ev.session_id),
                pending=s.get("pending"),
                current=current_work(s),
            )
            n += 1
    finally:
        engine.close()


def source_counts(engine_home: Path) -> Counter[str]:
    """New nodes by the source of the patch that added them, over every session's audit."""
    import json

    counts: Counter[str] = Counter()
    for audit in engine_home.rglob("audit.jsonl"):
        for line in audit.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("type") != "patch" or rec.get("status") != "applied":
                continue
            src = str((rec.get("source") or {}).get("probe", "?"))
            for op in rec.get("applied") or []:
                path = str(op.get("path", ""))
                if op.get("op") == "add" and path.count("/") == 2 and path.startswith("/nodes/"):
                    counts[src] += 1
    return counts


def _words(node: Any) -> str:
    return " ".join([node.label, *node.aliases, node.summary or ""])


def held(b: Boundary) -> tuple[int, bool]:
    """How many of the summary's pending items the graph holds as open task nodes, and
    whether the task in progress is its current work (by meaning words, not by ids)."""
    from rolling_graph.observe.observers import active_task
    from rolling_graph.privacy.injection import supported
    from rolling_graph.probe.offline.plan import clip
    from rolling_graph.probe.summary_harvest import task_text

    tasks = [
        _words(n)
        for n in b.graph.nodes.values()
        if n.kind == "task" and (n.attrs or {}).get("status") != "completed"
    ]
    # A label holds at most 80 characters: the item is compared as far as a label can say it.
    got = sum(1 for item in b.pending if supported(clip(task_text(item), 80), tasks, 0.5))
    active = active_task(b.graph)
    said = clip(task_text(b.current), 80)
    cur = bool(b.current) and active is not None and supported(said, [_words(active)], 0.5)
    return got, cur
