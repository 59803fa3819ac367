"""``rolling-graph replay`` over the sample transcripts: trace, summary, graphs."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.eval.replay import Replayer, hook_events
from rolling_graph.eval.summary import GATE_TRIGGERS
from rolling_graph.transcripts import CompactBoundary, UserPrompt, read_transcript

EVENTS = {"session_start", "user_prompt_submit", "post_tool_use", "pre_compact", "session_end"}
FIELDS: dict[str, Any] = {
    "session_id": str,
    "turn": int,
    "step": int,
    "event": str,
    "triggers": list,
    "probe": bool,
    "ops_applied": int,
    "injected_tokens": int,
    "ms": float,
}


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, samples: list[Path]) -> Path:
    out = tmp_path_factory.mktemp("replay")
    res = CliRunner().invoke(cli, ["replay", *map(str, samples), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "replay summary" in res.output
    return out


def _trace(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]


def _by_session(recs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        out.setdefault(r["session_id"], []).append(r)
    return out


def test_trace_fields_and_types(replayed: Path) -> None:
    recs = _trace(replayed)
    assert recs
    for r in recs:
        for name, typ in FIELDS.items():
            assert isinstance(r[name], typ), (name, r)
        assert r["event"] in EVENTS
        assert r["injected"] is None or isinstance(r["injected"], str)
        assert r["source"] is None or r["event"] == "session_start"
        assert set(r["triggers"]) <= set(r["trigger_words"])
        assert r["ms"] >= 0 and r["ops_applied"] >= 0
        if r["injected"] is None:
            assert r["injected_tokens"] == 0
        else:
            assert r["injected_tokens"] == estimate_tokens(r["injected"])
        if r["ops_applied"]:
            # A probe's patch, or an observer's on a finished tool call.
            assert r["probe"] or r["event"] == "post_tool_use", r


def test_event_order_per_session(replayed: Path, samples: list[Path]) -> None:
    sessions = _by_session(_trace(replayed))
    assert len(sessions) == len(samples)  # successive sessions, one per file
    files = {recs[0]["file"]: recs for recs in sessions.values()}
    for path in samples:
        recs = files[path.name]
        tr = read_transcript(path)
        events = [r["event"] for r in recs]
        assert (events[0], recs[0]["source"]) == ("session_start", "startup")
        assert events[-1] == "session_end"
        assert events.count("user_prompt_submit") == sum(
            isinstance(e, UserPrompt) for e in tr.events
        )
        n_compact = sum(isinstance(e, CompactBoundary) for e in tr.events)
        assert events.count("pre_compact") == n_compact
        for i, e in enumerate(events):
            if e == "pre_compact":
                assert (events[i + 1], recs[i + 1]["source"]) == ("session_start", "compact")
        # turn counts user prompts, step counts tool calls, both never go back
        turns = [r["turn"] for r in recs]
        steps = [r["step"] for r in recs]
        assert turns == sorted(turns) and steps == sorted(steps)
        assert turns[-1] == events.count("user_prompt_submit")
        assert steps[-1] == events.count("post_tool_use")


def test_samples_cover_compaction_decision_change_and_correction(samples: list[Path]) -> None:
    texts = " ".join(e.text for p in samples for e in read_transcript(p).user_prompts)
    assert "Resend" in texts and "Bento instead" in texts
    assert "No, not" in texts or "No, that's not it" in texts
    assert any(read_transcript(p).compactions for p in samples)


def test_summary_matches_trace(replayed: Path) -> None:
    doc = json.loads((replayed / "summary.json").read_text())
    sessions = _by_session(_trace(replayed))
    assert [s["session_id"] for s in doc["sessions"]] == list(sessions)
    for s in doc["sessions"]:
        recs = sessions[s["session_id"]]
        ev = Counter(r["event"] for r in recs)
        injected = [r["injected_tokens"] for r in recs if r["injected"] is not None]
        assert s["user_turns"] == ev["user_prompt_submit"]
        assert s["tool_steps"] == ev["post_tool_use"]
        assert s["compactions"] == ev["pre_compact"]
        assert s["hook_events"] == len(recs)
        assert s["probes"] == sum(r["probe"] for r in recs)
        assert s["ops_applied"] == sum(r["ops_applied"] for r in recs)
        assert s["injections"] == len(injected)
        assert s["injected_tokens_total"] == sum(injected)
        assert s["injected_tokens_max"] == max(injected, default=0)
        trig = Counter(t for r in recs for t in r["triggers"])
        assert {k: v for k, v in s["triggers"].items() if v} == dict(trig)
        assert set(GATE_TRIGGERS) <= set(s["triggers"])
        expected_rate = round(s["probes"] * 60 / s["user_turns"], 2) if s["user_turns"] else 0.0
        assert s["probe_rate_per_60"] == expected_rate
        assert sum(s["nodes_by_domain"].values()) == s["nodes"]
        assert sum(s["edges_by_domain"].values()) == s["edges"]
        assert s["edges_by_domain"]["cross"] == s["cross_domain_edges"]
        assert s["events_per_second"] > 0
    o = doc["overall"]
    for k in ("user_turns", "tool_steps", "probes", "injections", "nodes", "edges"):
        assert o[k] == sum(s[k] for s in doc["sessions"])
    assert o["injected_tokens_max"] == max(s["injected_tokens_max"] for s in doc["sessions"])
    assert doc["settings"]["probe"] == "offline"


def test_graphs_written(replayed: Path) -> None:
    doc = json.loads((replayed / "summary.json").read_text())
    for s in doc["sessions"]:
        graph = json.loads((replayed / "graphs" / f"{s['session_id']}.json").read_text())
        assert graph["session_id"] == s["session_id"]
        assert len(graph["nodes"]) == s["nodes"]
        assert len(graph["edges"]) == s["edges"]
        assert graph["turn"] == s["user_turns"]
        supersedes = sum(e["relationship"] == "supersedes" for e in graph["edges"].values())
        assert supersedes == s["supersedes_edges"]


def test_pipeline_does_work_on_samples(replayed: Path) -> None:
    """The gate fires and the offline probe builds a graph that is injected after compaction."""
    doc = json.loads((replayed / "summary.json").read_text())
    o = doc["overall"]
    assert o["probes"] > 0 and o["ops_applied"] > 0 and o["nodes"] > 0
    assert o["triggers"]["decision"] > 0 and o["triggers"]["correction"] > 0
    compact = [
        r for r in _trace(replayed) if r["event"] == "session_start" and r["source"] == "compact"
    ]
    assert compact and all(r["injected"] for r in compact)


def test_injected_within_budget(replayed: Path, samples: list[Path], tmp_path: Path) -> None:
    assert all(r["injected_tokens"] <= 800 for r in _trace(replayed))
    with Replayer(tmp_path, budget=150) as rp:
        for p in samples:
            rp.replay_file(p)
        doc = rp.finish()
    assert doc["settings"]["budget"] == 150
    recs = _trace(tmp_path)
    assert any(r["injected"] for r in recs)
    assert all(r["injected_tokens"] <= 150 for r in recs)


def test_replay_starts_clean_and_clock_is_the_transcripts(
    samples: list[Path], tmp_path: Path
) -> None:
    for _ in range(2):  # a second replay into the same directory does not continue the first
        with Replayer(tmp_path) as rp:
            summ = rp.replay_file(samples[0])
            rp.finish()
    assert summ.user_turns == _trace(tmp_path)[-1]["turn"]
    tr = read_transcript(samples[0])
    events = list(hook_events(tr, "s"))
    stamps = [e.timestamp for e in events]
    assert all(isinstance(t, float) for t in stamps) and stamps == sorted(stamps)
    first = next(e.timestamp for e in tr.events if e.timestamp is not None)
    assert stamps[0] == first.timestamp()


def test_same_session_twice_gets_distinct_ids(samples: list[Path], tmp_path: Path) -> None:
    with Replayer(tmp_path) as rp:
        a = rp.replay_file(samples[0])
        b = rp.replay_file(samples[0])
        rp.finish()
    assert a.session_id != b.session_id and b.session_id.startswith(a.session_id)
    assert a.user_turns == b.user_turns


def test_trace_works_with_reference_recovery_script(replayed: Path, samples: list[Path]) -> None:
    """../shared/eval/recovery.py --trace reads our trace (skipped where it is absent)."""
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[3] / "shared" / "eval" / "recovery.py"
    if not script.is_file():
        pytest.skip(f"reference script not found at {script}")
    compacted = [p for p in samples if read_transcript(p).compactions]
    res = subprocess.run(
        [
            sys.executable,
            str(script),
            str(compacted[0]),
            "--trace",
            str(replayed / "trace.jsonl"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(res.stdout)
    assert rows and "block_recall" in rows[0] and rows[0]["block_tokens"] > 0


def test_simulated_cuts_are_compactions_that_see_the_last_reply(
    samples: list[Path], tmp_path: Path
) -> None:
    """``cut_every``: PreCompact then SessionStart(compact) before every 10th prompt, carrying
    what the agent said since the last event; the block injected there names it."""
    from rolling_graph.render.in_play import names_in
    from rolling_graph.transcripts import AssistantText

    path = next(p for p in samples if p.name == "flaky-ci.jsonl")
    tr = read_transcript(path)
    events = list(hook_events(tr, "s", cut_every=10))
    kinds = [e.kind for e in events]
    cut = kinds.index("pre_compact")
    assert kinds[cut + 1 : cut + 3] == ["session_start", "prompt_submit"]
    assert kinds[:cut].count("prompt_submit") == 10 and kinds.count("pre_compact") == 1
    said = [c.text for c in events[cut].context_events if isinstance(c, AssistantText)]
    assert said, "the reply before the cut travels with PreCompact"
    with Replayer(tmp_path) as rp:
        blocks: list[str] = []
        rp.replay_file(
            path,
            transcript=tr,
            cut_every=10,
            on_record=lambda r: (
                blocks.append(r["injected"] or "")
                if r["event"] == "session_start" and r["source"] == "compact"
                else None
            ),
        )
    assert len(blocks) == 1
    low = blocks[0].lower()
    last = {n.lower() for _, n in names_in(said[-1])}
    assert last and sum(n in low for n in last) >= min(3, len(last))
    assert "last in play" in low


def test_session_start_compact_comes_before_the_harness_summary_is_read(
    samples: list[Path],
) -> None:
    """Claude Code runs PreCompact, SessionStart(compact), then PostCompact (which carries the
    summary: tests/fixtures/claude_code_payloads); the transcript gets the summary after the
    hooks. So SessionStart(compact) cannot read it; the next event does."""
    from rolling_graph.transcripts import CompactSummary

    tr = read_transcript(next(p for p in samples if p.name == "newsletter-signup.jsonl"))
    events = list(hook_events(tr, "s"))
    kinds = [e.kind for e in events]
    start = kinds.index("pre_compact") + 1
    assert events[start].kind == "session_start" and events[start].source == "compact"
    assert not any(isinstance(c, CompactSummary) for c in events[start].context_events)
    assert any(isinstance(c, CompactSummary) for c in events[start + 1].context_events)


def _scopes(out: Path) -> set[str]:
    with closing(sqlite3.connect(out / "store" / "warm.sqlite3")) as db:
        return {r[0] for r in db.execute("SELECT DISTINCT scope FROM rg_reconciliations")}


def _lines_file(path: Path, stamps: tuple[str, str], cwd: str, flag: str) -> Path:
    """Two user lines with ``flag`` set (``isSidechain``: a subagent file as Claude Code
    writes it; ``isMeta``: harness-authored lines): neither is a hook event."""
    lines = [
        {"type": "user", "timestamp": ts, "sessionId": "sub", "cwd": cwd, flag: True,
         "message": {"role": "user", "content": text}}
        for ts, text in zip(stamps, ("summarize the conversation", "Summary."), strict=True)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_subagent_transcript_is_refused_not_replayed_as_a_session(
    samples: list[Path], tmp_path: Path
) -> None:
    """A subagent's file (sidechain lines only) fired no hook event of its own: replayed as a
    session, it pulled the warm store and wrote a session that never was. It is refused with
    one line, the replay goes on, and a replay of nothing else fails."""
    from rolling_graph.eval.replay import NotASessionError

    stamps = ("2026-03-14T10:00:00Z", "2026-03-14T10:05:00Z")
    sub = _lines_file(tmp_path / "agent-acompact-1.jsonl", stamps, "/w", "isSidechain")
    with Replayer(tmp_path / "a") as rp:
        with pytest.raises(NotASessionError, match="subagent's transcript \\(2 sidechain"):
            rp.replay_file(sub)
        first = next(p for p in samples if p.name == "flaky-ci.jsonl")
        rp.replay_file(first)
        doc = rp.finish()
    assert [s["file"] for s in doc["sessions"]] == ["flaky-ci.jsonl"]
    res = CliRunner().invoke(cli, ["replay", str(sub), str(first), "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert f"skipped {sub}: a subagent's transcript (2 sidechain lines" in res.output
    res = CliRunner().invoke(cli, ["replay", str(sub), "--out", str(tmp_path / "c")])
    assert res.exit_code != 0 and "nothing replayed" in res.output


def test_replay_never_reads_the_wall_clock_for_a_file_without_events(
    samples: list[Path], tmp_path: Path
) -> None:
    """A file of harness lines only takes its time from its lines, not from the time of day. It
    used to start at the wall clock, so the weights it pulled from the warm store were
    decayed to the day of the replay: the same tree replayed later gave other graphs."""
    from rolling_graph.warm import open_store
    from rolling_graph.warm.merge import effective_weight

    first = next(p for p in samples if p.name == "flaky-ci.jsonl")  # ends 2026-03-12
    start, end = "2026-03-14T10:00:00Z", "2026-03-14T10:05:00Z"
    sub = _lines_file(tmp_path / "sub.jsonl", (start, end), "/home/sam/code/ledgerline", "isMeta")
    tr = read_transcript(sub)
    assert tr.events == [] and tr.stats.meta_lines == 2
    events = list(hook_events(tr, "s"))
    assert [e.kind for e in events] == ["session_start", "session_end"]
    when = [datetime.fromisoformat(t) for t in (start, end)]
    assert [e.timestamp for e in events] == [t.timestamp() for t in when]
    out = tmp_path / "out"
    with Replayer(out) as rp:
        rp.replay_file(first)
        summ = rp.replay_file(sub)
        rp.finish()
    graph = json.loads((out / "graphs" / f"{summ.session_id}.json").read_text())
    pulled = {k: v["weight"] for k, v in graph["nodes"].items() if not v.get("anchor")}
    assert pulled, "the second session pulls the first one's nodes"
    with open_store(None, out / "store") as store:
        scopes = _scopes(out)
        warm = {n.id: n for s in scopes for n in store.get_nodes(pulled, scope=s).values()}
    for nid, weight in pulled.items():  # decayed to the transcript's time, not to today's
        assert weight == round(effective_weight(warm[nid], when[0], store.params), 6), nid


def test_a_replay_freezes_what_start_up_built(samples: list[Path], tmp_path: Path) -> None:
    """After a first file, the process's long-lived objects are out of the collector's walks
    (full collections cost ~0.1 s each otherwise); the replay goes on as before."""
    import gc

    with Replayer(tmp_path / "out", probe="offline") as rp:
        first = rp.replay_file(samples[0])
        frozen = gc.get_freeze_count()
        again = rp.replay_file(samples[0])
    assert frozen > 10_000  # spaCy's pipeline and the compiled rules, at least
    assert gc.get_freeze_count() <= frozen  # once per process (frozen objects can still die)
    assert first.nodes and again.nodes and again.user_turns == first.user_turns
