"""Live hooks at a compaction: PreCompact reads the transcript (the agent's last reply) before
the pre-compaction probe, and SessionStart(compact) names what the last turns used."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rolling_graph.config import Settings
from rolling_graph.engine import Engine
from rolling_graph.hook_event import HookEvent
from rolling_graph.plugins import get_plugin_manager
from rolling_graph.probe.runner import get_runner

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


def _compact(tmp_path: Path, summary: str | None) -> str:
    """A live session whose last reply names 170 jobs, compacted; its block (400 tokens: more
    names than fit)."""
    tmp_path.mkdir()
    eng = Engine(
        Settings(home=tmp_path / "home", probe="offline", budget=400),
        pm=get_plugin_manager(load_entry_points=False),
    )
    transcript = tmp_path / "t.jsonl"
    prompt = "list the queue jobs"
    transcript.write_text(_line("user", prompt, 1) + "\n")
    reply = "The queue runs " + ", ".join(f"job_{i:03d}" for i in range(170)) + "."

    def ev(kind: str, **kw: object) -> HookEvent:
        return HookEvent(
            kind=kind, session_id="live-2", cwd=str(tmp_path), transcript_path=str(transcript), **kw
        )  # type: ignore[arg-type]

    try:
        eng.handle(ev("session_start", source="startup"))
        eng.handle(ev("prompt_submit", prompt=prompt))
        with transcript.open("a") as fh:
            fh.write(_line("assistant", [{"type": "text", "text": reply}], 2) + "\n")
        eng.handle(ev("pre_compact", trigger="auto"))
        get_runner(eng).wait("live-2", timeout=30)
        if summary is not None:  # Claude Code writes the boundary and its summary, then hooks
            with transcript.open("a") as fh:
                fh.write(json.dumps({"type": "system", "subtype": "compact_boundary"}) + "\n")
                rec = json.loads(_line("user", summary, 3))
                rec["isCompactSummary"] = True
                fh.write(json.dumps(rec) + "\n")
        return eng.handle(ev("session_start", source="compact")).injected or ""
    finally:
        eng.close()


def test_after_a_compaction_the_block_says_what_the_summary_lacks(tmp_path: Path) -> None:
    # The harness's summary names the even jobs; the block, read after it, lists the odd ones
    # past its newest names.
    summary = "Summary: the queue runs " + ", ".join(f"job_{i:03d}" for i in range(0, 170, 2))
    plain = _compact(tmp_path / "a", None)
    aware = _compact(tmp_path / "b", summary)

    def listed(block: str) -> set[int]:
        line = next(x for x in block.splitlines() if x.startswith("Last in play"))
        return {int(m) for m in re.findall(r"job_(\d{3})", line)}

    got, before = listed(aware), listed(plain)
    assert 169 in got and 168 in got  # the newest names stay
    assert {n for n in before if n % 2 == 0} - got  # older ones the summary holds are left out
    odd = lambda s: {n for n in s if n % 2}  # noqa: E731
    assert len(odd(got)) > len(odd(before))  # and the room goes to older ones it lacks


def test_the_harness_summary_is_read_whole_and_other_text_is_cut() -> None:
    from rolling_graph.harness.transcript_feed import MAX_TEXT, _summary, compact_summary
    from rolling_graph.transcripts.events import AssistantText, CompactSummary

    long = "x" * (MAX_TEXT * 5)
    events = [_summary(CompactSummary(text=long)), _summary(AssistantText(text=long))]
    assert compact_summary(events) == long
    assert len(events[1]["text"]) == MAX_TEXT
    assert compact_summary([_summary(AssistantText(text="hi"))]) == ""
