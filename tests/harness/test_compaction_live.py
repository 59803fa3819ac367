"""Live hooks at a compaction: PreCompact reads the transcript (the agent's last reply) before
the pre-compaction probe, and SessionStart(compact) names what the last turns used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import Settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.pipeline.engine import Engine
from rolling_graph.pipeline.plugins import get_plugin_manager
from rolling_graph.probe.runner import get_runner
from rolling_graph.render.addendum import HEAD

REPLY = (
    "The retry loop now lives in `net/backoff.py`: fetch_with_jitter waits on the Tokio "
    "runtime and the CircuitBreaker opens after max_failures."
)


def _line(kind: str, content: object, n: int) -> str:
    msg = {"role": kind, "content": content}
    if kind == "assistant":
        msg.update(model="claude-opus-4-6", id=f"msg_{n}", type="message")
    return json.dumps(
        {
            "type": kind,
            "uuid": f"u{n}",
            "sessionId": "live-1",
            "timestamp": f"2026-03-12T14:0{n}:00.000Z",
            "message": msg,
        }
    )


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    eng = Engine(
        Settings(home=tmp_path / "home", probe="offline"),
        pm=get_plugin_manager(load_entry_points=False),
    )
    yield eng
    eng.close()


def test_compact_block_names_the_last_reply_read_at_precompact(
    engine: Engine, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    prompt = "make the HTTP client retry with backoff"
    transcript.write_text(_line("user", prompt, 1) + "\n")

    def ev(kind: str, **kw: object) -> HookEvent:
        return HookEvent(
            kind=kind, session_id="live-1", cwd=str(tmp_path), transcript_path=str(transcript), **kw
        )  # type: ignore[arg-type]

    engine.handle(ev("session_start", source="startup"))
    engine.handle(ev("prompt_submit", prompt=prompt))
    # The agent answers; no hook event between its reply and the compaction.
    with transcript.open("a") as fh:
        fh.write(_line("assistant", [{"type": "text", "text": REPLY}], 2) + "\n")
    engine.handle(ev("pre_compact", trigger="auto"))
    get_runner(engine).wait("live-1", timeout=30)
    out = engine.handle(ev("session_start", source="compact"))
    block = out.injected or ""
    line = next((x for x in block.splitlines() if x.startswith("Last in play")), "")
    shown = block.lower()
    for name in ("net/backoff.py", "fetch_with_jitter", "CircuitBreaker", "max_failures"):
        assert name.lower() in shown, (name, block)
    assert line, block


def _compaction_lines(summary: str, n: int) -> str:
    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": f"u{n}",
        "sessionId": "live-1",
        "timestamp": "2026-03-12T14:20:00.000Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 120000},
    }
    said = {
        "type": "user",
        "isCompactSummary": True,
        "uuid": f"u{n + 1}",
        "sessionId": "live-1",
        "timestamp": "2026-03-12T14:20:01.000Z",
        "message": {"role": "user", "content": summary},
    }
    return json.dumps(boundary) + "\n" + json.dumps(said) + "\n"


class _Compacted:
    """A live session (small budget) whose agent named forty fields, compacted: the block after
    the compaction, and Claude Code's summary written to the transcript after the hooks, as it
    does. The compaction block cannot name all forty fields."""

    def __init__(self, tmp_path: Path, stem: str) -> None:
        self.eng = Engine(
            Settings(home=tmp_path / "home", probe="offline", budget=150),
            pm=get_plugin_manager(load_entry_points=False),
        )
        self.transcript = tmp_path / "t.jsonl"
        self.cwd = tmp_path
        self.fields = [f"{stem}_{i:02d}" for i in range(40)]
        prompt = f"map every {stem} field of the reservoir model"
        self.transcript.write_text(_line("user", prompt, 1) + "\n")
        self.handle("session_start", source="startup")
        self.handle("prompt_submit", prompt=prompt)
        reply = "Mapped the fields: " + ", ".join(f"`{f}`" for f in self.fields) + "."
        with self.transcript.open("a") as fh:
            fh.write(_line("assistant", [{"type": "text", "text": reply}], 2) + "\n")
        self.handle("pre_compact", trigger="auto")
        get_runner(self.eng).wait("live-1", timeout=30)
        self.block = self.handle("session_start", source="compact").injected or ""
        self.summary = "Summary: the person maps the reservoir; " + ", ".join(self.fields[:10])
        with self.transcript.open("a") as fh:
            fh.write(_compaction_lines(self.summary + " done.", 3))

    def handle(self, kind: str, **kw: object) -> Any:
        return self.eng.handle(
            HookEvent(
                kind=kind,  # type: ignore[arg-type]
                session_id="live-1",
                cwd=str(self.cwd),
                transcript_path=str(self.transcript),
                **kw,  # type: ignore[arg-type]
            )
        )

    def addendum(self, out: Any) -> list[str]:
        line = next((x for x in (out.injected or "").splitlines() if x.startswith(HEAD)), "")
        return line[len(HEAD) : -1].split(", ") if line else []


def test_first_prompt_after_the_summary_adds_what_neither_it_nor_the_block_says(
    tmp_path: Path,
) -> None:
    s = _Compacted(tmp_path, "sluice_gate")
    try:
        listed = s.addendum(s.handle("prompt_submit", prompt="carry on with the next fields"))
        assert listed
        said = (s.summary + s.block).lower()
        assert all(f.lower() not in said for f in listed), (listed, s.block)
        assert set(listed) <= set(s.fields[10:]), listed
        # Only once: the next prompt does not repeat it.
        again = s.handle("prompt_submit", prompt="and the rest")
        assert HEAD not in (again.injected or "")
    finally:
        s.eng.close()


def test_a_session_end_between_the_summary_and_the_next_prompt_takes_nothing_from_it(
    tmp_path: Path,
) -> None:
    """``claude -p --resume`` ends the session after each run: SessionEnd reads the transcript
    only to look (a summary that is its last entry is harvested), so the resumed session's
    first prompt still gets the addendum, and the summary is harvested once."""
    s = _Compacted(tmp_path, "weir_crest")
    try:
        s.handle("session_end", reason="other")
        s.handle("session_start", source="resume")
        listed = s.addendum(s.handle("prompt_submit", prompt="carry on with the next fields"))
        assert listed and set(listed) <= set(s.fields[10:]), listed
        audit = (tmp_path / "home" / "sessions" / "live-1" / "audit.jsonl").read_text()
        kinds = [json.loads(x).get("type") for x in audit.splitlines() if x.strip()]
        assert kinds.count("harvest") == 1, kinds
    finally:
        s.eng.close()
