"""In-process replay of saved transcripts through the same pipeline the hooks run.

A transcript becomes the hook events the harness would have sent (Claude Code's order):

- ``SessionStart(source=startup)`` first;
- ``UserPromptSubmit`` per prompt a person typed (slash commands, shell escapes, harness
  injections and tool results are not prompts);
- ``PostToolUse`` per tool call, at the point its result arrives, with the result as
  ``tool_response`` (a call that never got a result never fired PostToolUse);
- at each compaction boundary ``PreCompact`` then ``SessionStart(source=compact)``; with
  ``cut_every=N`` also before every N-th prompt (a simulated compaction: the same two events, so a
  simulated cut gets exactly what a real one would, the pre-compaction probe included);
- ``SessionEnd`` last.

A subagent's transcript (Claude Code's ``subagents/agent-*.jsonl``: every line a sidechain
line) is not a session: no hook event is its own (the compaction agent's never fired one; a
task agent's tool calls reach the hooks of the session that started it). It is refused with
:class:`NotASessionError` rather than replayed as a session that never was.

The clock is the transcript's (its events' ``timestamp``), never wall time, so a replay is
deterministic. Several transcripts replay as successive sessions in one :class:`Engine`
(same hot store, same warm store), so whatever the warm graph carries between sessions
carries here too. Outputs go to one directory: ``trace.jsonl`` (one record per hook event),
``summary.json`` (per session and overall) and ``graphs/<session>.json`` (final hot graphs).
"""

from __future__ import annotations

import gc
import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from rolling_graph.config import Settings, load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import ReplayStore
from rolling_graph.eval.clock import event_time, replay_clocks
from rolling_graph.eval.summary import SessionSummary
from rolling_graph.harness.adapters.common import transcript_tool
from rolling_graph.paths import safe_session_id
from rolling_graph.pipeline.engine import Engine, Outcome
from rolling_graph.transcripts import (
    TEXT_FORMATS,
    AssistantText,
    CompactBoundary,
    CompactSummary,
    ToolResult,
    ToolUse,
    Transcript,
    UserPrompt,
    read_transcript,
)

#: engine event kind (tool_use phases folded in) -> trace ``event`` (the hook's name, snake case)
TRACE_EVENT = {
    "session_start": "session_start",
    "prompt_submit": "user_prompt_submit",
    "post_tool_use": "post_tool_use",
    "pre_tool_use": "pre_tool_use",
    "pre_compact": "pre_compact",
    "session_end": "session_end",
}
#: the hot store lives here inside the output directory; wiped at the start of each replay
HOT_DIR = "store"


class NotASessionError(ValueError):
    """The transcript holds no session of its own (a subagent's: sidechain lines only)."""

    def __init__(self, path: Path, sidechain_lines: int) -> None:
        super().__init__(
            f"{path.name}: a subagent's transcript ({sidechain_lines} sidechain lines, no "
            "prompt or tool call of a session of its own); not replayed as a session"
        )
        self.path = path


def subagent_only(tr: Transcript) -> bool:
    """Whether ``tr`` is a subagent's transcript: sidechain lines and no event of its own."""
    return not tr.events and tr.stats.sidechain_lines > 0


#: progress: (transcript path, hook events done, hook events in this transcript)
Progress = Callable[[Path, int, int], None]


def replay_settings(
    out: Path, *, probe: str | None = "offline", budget: int | None = None, warm: str | None = None
) -> Settings:
    """Settings for a replay: the person's config and environment, with the replay's own hot
    store (inside ``out``, so a replay never touches real sessions) and the CLI's overrides."""
    return load_settings(home=out / HOT_DIR, probe=probe, budget=budget, warm=warm or None)


def hook_events(
    transcript: Transcript,
    session_id: str,
    *,
    cwd: str | None = None,
    cut_every: int = 0,
    clock: float | None = None,
) -> Iterator[HookEvent]:
    """The hook events a harness would have sent while this transcript was written; with
    ``cut_every`` > 0, a simulated compaction before every ``cut_every``-th prompt; times
    are the transcript's (``clock`` where it has none, see :mod:`.clock`)."""
    path = str(transcript.path)
    clock, unstamped_end = replay_clocks(transcript, clock)

    # assistant text since the previous hook event (and the harness's compaction summary)
    said: list[AssistantText | CompactSummary | ToolUse] = []

    def mk(kind: Any, **kw: Any) -> HookEvent:
        context = list(said)
        said.clear()
        return HookEvent(
            kind=kind,
            session_id=session_id,
            cwd=cwd,
            transcript_path=path,
            timestamp=clock,
            harness=transcript.format,
            context_events=context,
            **kw,
        )

    yield mk("session_start", source="startup")
    pending: dict[str, ToolUse] = {}
    prompts = 0
    compacted = False  # SessionStart(compact) comes after the summary the harness writes
    for ev in transcript.events:
        clock = event_time(ev) or clock  # lines without a stamp keep the last known time
        if compacted:
            compacted = False
            # Claude Code runs SessionStart(compact) before the summary can be read (the
            # transcript gets it after the hooks; PostCompact carries it): the next event reads it.
            yield mk("session_start", source="compact")
            if isinstance(ev, CompactSummary):
                said.append(ev)
        if isinstance(ev, UserPrompt):
            if ev.text.strip():
                if cut_every > 0 and prompts and prompts % cut_every == 0:
                    yield mk("pre_compact", trigger="simulated")
                    yield mk("session_start", source="compact")
                prompts += 1
                yield mk("prompt_submit", prompt=ev.text)
        elif isinstance(ev, AssistantText):
            said.append(ev)
        elif isinstance(ev, ToolUse):
            pending[ev.tool_use_id] = ev
            if ev.name == "AskUserQuestion":  # what the agent asked: live, the feed has it too
                said.append(ev)
        elif isinstance(ev, ToolResult):
            use = pending.pop(ev.tool_use_id, None)
            if use is not None:  # a result without its call (history cut) is not a hook event
                name, args = transcript_tool(transcript.format, use.name, use.input)
                yield mk(
                    "tool_use",
                    tool_name=name,
                    tool_input=args,
                    tool_response=ev.content,
                    phase="post",
                )
        elif isinstance(ev, CompactBoundary):
            yield mk("pre_compact", trigger=ev.trigger or "auto")
            compacted = True
    if compacted:
        yield mk("session_start", source="compact")
    clock = unstamped_end or clock
    yield mk("session_end", reason="other")


def trace_record(outcome: Outcome, ev: HookEvent, file: str) -> dict[str, Any]:
    """One trace line. Field names and meanings are the replay's contract (see module doc)."""
    return {
        "session_id": outcome.session_id,
        "file": file,
        "turn": outcome.turn,
        "step": outcome.step,
        "event": TRACE_EVENT.get(outcome.event, outcome.event),
        "source": outcome.source,
        "triggers": [t["name"] for t in outcome.triggers],
        "trigger_words": {t["name"]: t.get("words", []) for t in outcome.triggers},
        "probe": bool(outcome.probe),
        "ops_applied": int(outcome.ops_applied),
        "injected": outcome.injected,
        "injected_tokens": int(outcome.injected_tokens if outcome.injected else 0),
        "ms": outcome.ms,
        "ts": ev.timestamp,
        "tool": ev.tool_name if ev.kind == "tool_use" else None,
    }


def unread_prompts(tr: Transcript) -> int:
    """The transcript's prompts that the language rules could not read."""
    from rolling_graph.probe.offline.unread import readable

    return sum(1 for e in tr.events if isinstance(e, UserPrompt) and not readable(e.text))


def transcript_meta(path: Path) -> tuple[str | None, str | None]:
    """The harness's session id and working directory from the first lines (Claude Code
    ``sessionId``/``cwd``, Codex ``session_meta``, pi's ``session`` header), so replayed sessions are named and scoped
    (the warm store keys projects by cwd) as the live ones were."""
    sid: str | None = None
    cwd: str | None = None
    try:
        with path.open("rb") as fh:
            for _, raw in zip(range(50), fh, strict=False):
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(obj, dict):
                    continue
                payload = obj.get("payload")
                if obj.get("type") == "session_meta" and isinstance(payload, dict):
                    obj = {"sessionId": payload.get("id"), "cwd": payload.get("cwd")}
                if obj.get("type") == "session" and "version" in obj:  # pi's header
                    obj = {"sessionId": obj.get("id"), "cwd": obj.get("cwd")}
                data = obj.get("data")
                if obj.get("type") == "session.start" and isinstance(data, dict):  # Copilot CLI
                    obj = {"sessionId": data.get("sessionId"), **(data.get("context") or {})}
                got = obj.get("sessionId") or obj.get("session_id")
                if sid is None and isinstance(got, str) and got.strip():
                    sid = got
                if cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
                    cwd = obj["cwd"]
                if sid and cwd:
                    break
    except OSError:
        pass
    return sid, cwd


_frozen = False


def freeze_start_up() -> None:
    """Once per process, after its first replayed file: what start-up built (the spaCy
    pipeline and vocabulary, compiled rules, the lexicons: ~120k objects) lives as long as the
    process, and every full garbage collection walked it (~0.1 s each, a small file's whole
    budget). Frozen, a full collection walks only what replaying makes."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


class Replayer:
    """Replays transcripts one after another into ``out`` through one :class:`Engine`.

    Use as a context manager, or call :meth:`close`; :meth:`finish` writes ``summary.json``.
    """

    def __init__(
        self,
        out: Path,
        *,
        probe: str | None = "offline",
        budget: int | None = None,
        warm: str | None = None,
        settings: Settings | None = None,
        engine: Engine | None = None,
        write_outputs: bool = True,
    ) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.settings = settings or replay_settings(self.out, probe=probe, budget=budget, warm=warm)
        # A replay starts from nothing: leftovers of an earlier replay into the same directory
        # would continue its sessions (turn counters, graphs, the default warm store).
        hot = Path(self.settings.home)
        if hot.resolve() == (self.out / HOT_DIR).resolve() and hot.exists():
            shutil.rmtree(hot)
        self.engine = engine or Engine(self.settings, store=ReplayStore(hot), replay=True)
        self.write_outputs = write_outputs
        self.sessions: list[SessionSummary] = []
        self.trace_path = self.out / "trace.jsonl"
        self._trace: IO[str] | None = (
            self.trace_path.open("w", encoding="utf-8") if write_outputs else None
        )
        if write_outputs:
            (self.out / "graphs").mkdir(exist_ok=True)
        self._used_ids: set[str] = set()
        self._clock: float | None = None  # the last time replayed: for a file with none
        # Seconds of start-up paid before the first file (rolling_graph.eval.start_up), if any
        self.start_up_seconds: float | None = None

    def __enter__(self) -> Replayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _new_session_id(self, path: Path, harness_id: str | None) -> str:
        base = safe_session_id(harness_id or path.stem)
        sid, n = base, 1
        while sid in self._used_ids:  # same file twice, or a subagent file sharing its parent's id
            n += 1
            sid = f"{base}-{n}"
        self._used_ids.add(sid)
        return sid

    def replay_file(
        self,
        path: Path | str,
        *,
        transcript: Transcript | None = None,
        cut_every: int = 0,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        progress: Progress | None = None,
    ) -> SessionSummary:
        path = Path(path)
        started = time.perf_counter()
        tr = transcript or read_transcript(path)
        if subagent_only(tr):
            raise NotASessionError(path, tr.stats.sidechain_lines)
        # Text formats (Claude Code export, aider) name no session or directory; a JSON line
        # quoted in one must not pass for its header.
        json_lines = tr.format not in TEXT_FORMATS
        harness_id, cwd = transcript_meta(path) if json_lines else (None, None)
        sid = self._new_session_id(path, harness_id)
        summ = SessionSummary(sid, path.name, format=tr.format)
        summ.invalid_lines = tr.stats.invalid_lines
        summ.unread_prompts = unread_prompts(tr)
        events = list(hook_events(tr, sid, cwd=cwd, cut_every=cut_every, clock=self._clock))
        self._clock = next(
            (e.timestamp for e in reversed(events) if e.timestamp is not None), self._clock
        )
        for i, ev in enumerate(events):
            outcome = self.engine.handle(ev)
            rec = trace_record(outcome, ev, path.name)
            summ.add(rec)
            if self._trace is not None:
                self._trace.write(json.dumps(rec, ensure_ascii=False) + "\n")
            if on_record is not None:
                on_record(rec)
            if progress is not None and (i % 25 == 0 or i == len(events) - 1):
                progress(path, i + 1, len(events))
        store = self.engine.store
        graph = store.load(sid).graph
        if isinstance(store, ReplayStore):
            store.flush(sid)
        summ.add_graph(graph)
        summ.rejected_patches = sum(
            1
            for r in self.engine.store.audit(sid).records(holding="rejected")
            if r.get("type") == "patch" and r.get("status") == "rejected"
        )
        if self.write_outputs:
            gpath = self.out / "graphs" / f"{sid}.json"
            gpath.write_text(json.dumps(graph.to_json_dict(), indent=1, ensure_ascii=False))
        summ.seconds = time.perf_counter() - started
        self.sessions.append(summ)
        freeze_start_up()
        return summ

    def overall(self) -> SessionSummary:
        total = SessionSummary("(all)", f"{len(self.sessions)} files")
        for s in self.sessions:
            total.merge(s)
        return total

    def finish(self) -> dict[str, Any]:
        """Close the trace and write ``summary.json``; returns what was written."""
        if self._trace is not None:
            self._trace.close()
            self._trace = None
        doc = {
            "settings": {
                "probe": self.settings.probe,
                "budget": self.settings.budget,
                "warm": self.settings.warm or f"(default, under {self.settings.home})",
            },
            "sessions": [s.as_dict() for s in self.sessions],
            "overall": self.overall().as_dict(),
        }
        if self.start_up_seconds is not None:
            doc["start_up_seconds"] = round(self.start_up_seconds, 3)
        if self.write_outputs:
            (self.out / "summary.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False))
        return doc

    def close(self) -> None:
        if self._trace is not None:
            self._trace.close()
            self._trace = None
        self.engine.close()


def replay(
    paths: list[Path | str],
    out: Path | str,
    *,
    probe: str | None = "offline",
    budget: int | None = None,
    warm: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Replay ``paths`` as successive sessions into ``out``; returns the summary document."""
    with Replayer(Path(out), probe=probe, budget=budget, warm=warm) as rp:
        for p in paths:
            rp.replay_file(p, progress=progress)
        return rp.finish()
