"""The asynchronous runner and the probe plugin, through the real engine and hot store."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.core.hook_event import HookEvent, Trigger
from rolling_graph.core.hotstore import HotStore
from rolling_graph.pipeline.engine import Engine
from rolling_graph.pipeline.hookspecs import EventContext, hookimpl
from rolling_graph.pipeline.plugins import get_plugin_manager
from rolling_graph.probe.base import ProbeBackend, ProbeError, ProbeReply, ProbeRequest
from rolling_graph.probe.buffer import BUFFER_STATE, buffer_prompt
from rolling_graph.probe.runner import ProbeRunner, get_runner
from tests.probe.conftest import VALID_PATCH

SID = "sess-1"
SECRET = "sk-ant-api03-" + "Zx9" * 30  # fake, shaped like an Anthropic key


class FireOn:
    """A stand-in gate: fires on prompts containing a marker word."""

    def __init__(self, word: str = "") -> None:
        self.word = word

    @hookimpl(tryfirst=True)
    def prompt_submit(self, ctx: EventContext, prompt: str) -> None:
        if self.word in prompt:
            ctx.triggers.append(Trigger("decision", (self.word or "all",)))
            ctx.probe_due = True


class Scripted(ProbeBackend):
    """Answers from a script of outcomes; can block until released."""

    name = "scripted"

    def __init__(self, *outcomes: Any, block: bool = False) -> None:
        self.outcomes = list(outcomes)
        self.requests: list[ProbeRequest] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        if not block:
            self.release.set()

    def run(self, request: ProbeRequest) -> ProbeReply:
        self.requests.append(request)
        self.entered.set()
        assert self.release.wait(10)
        out = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(out, Exception):
            raise out
        return ProbeReply(
            raw=out,
            backend=self.name,
            prompt_id="probe.v1",
            prompt_hash="h" * 64,
            tokens_in=100,
            tokens_out=20,
        )


def engine(
    settings: Any, backend: ProbeBackend | None = None, *, replay: bool = False, word: str = ""
) -> Engine:
    pm = get_plugin_manager(load_entry_points=False, extra=[FireOn(word)])
    # The real gate is tested on its own; here a stand-in decides when to fire, exactly.
    for name, plugin in list(pm.list_name_plugin()):
        if name.endswith("gate_plugin"):
            pm.unregister(plugin)
    eng = Engine(settings, pm=pm, store=HotStore(settings.home), replay=replay)
    if backend is not None:
        eng.components["probe_runner"] = ProbeRunner(eng, backend)
    return eng


def prompt(eng: Engine, text: str) -> Any:
    return eng.handle(HookEvent("prompt_submit", SID, prompt=text, cwd="/repo"))


def audit(eng: Engine, kind: str) -> list[dict[str, Any]]:
    return [r for r in eng.store.audit(SID).records() if r.get("type") == kind]


def graph_bytes(eng: Engine) -> bytes:
    return (eng.store.dir(SID) / "graph.json").read_bytes()


def test_prompt_is_not_held_up_and_one_in_flight(settings: Any) -> None:
    backend = Scripted(VALID_PATCH, block=True)
    eng = engine(settings, backend)
    started = time.perf_counter()
    out = prompt(eng, "let's use Resend for email")
    assert time.perf_counter() - started < 2 and out.probe
    assert backend.entered.wait(5)
    runner = get_runner(eng)
    assert runner.in_flight(SID)
    # Two more triggers while the probe runs: coalesced, not run in parallel.
    out2 = prompt(eng, "and the email goes out weekly")
    out3 = prompt(eng, "with a digest")
    assert out2.notes["probe"] == out3.notes["probe"] == "coalesced"
    assert len(backend.requests) == 1
    backend.release.set()
    assert runner.wait(SID, 10)
    assert len(backend.requests) == 2  # exactly one follow-up run for both coalesced triggers
    follow = backend.requests[1]
    assert [t.user for t in follow.turns] == ["and the email goes out weekly", "with a digest"]
    assert len(follow.triggers) == 2
    probes = audit(eng, "probe")
    assert len(probes) == 2 and probes[1]["coalesced"] == 2
    assert probes[0]["prompt_id"] == "probe.v1" and probes[0]["tokens_in"] == 100
    # Results of the run show from the next hook event on.
    out4 = prompt(eng, "what about Use Resend?")
    assert out4.injected and "Use Resend" in out4.injected
    eng.close()


def test_failure_leaves_graph_and_is_audited_then_retried(settings: Any) -> None:
    backend = Scripted(ProbeError("anthropic: HTTP 500 after retries"), VALID_PATCH)
    eng = engine(settings, backend)
    prompt(eng, "first turn, nothing to probe yet: skip")  # FireOn("") fires on everything
    get_runner(eng).wait(SID, 10)
    before = graph_bytes(eng)
    nodes_before = dict(eng.sessions[SID].graph.nodes)
    failures = audit(eng, "probe_failure")
    assert (
        len(failures) == 1
        and "HTTP 500" in failures[0]["error"]
        and failures[0]["stage"] == "backend"
    )
    assert graph_bytes(eng) == before and eng.sessions[SID].graph.nodes == nodes_before
    buf = eng.store.read_state(SID, BUFFER_STATE)
    assert len(buf["turns"]) == 1  # kept for the retry
    prompt(eng, "let's use Resend for email")
    get_runner(eng).wait(SID, 10)
    assert [t.user for t in backend.requests[1].turns] == [
        "first turn, nothing to probe yet: skip",
        "let's use Resend for email",
    ]
    assert "use-resend" in eng.sessions[SID].graph.nodes
    assert eng.store.read_state(SID, BUFFER_STATE)["turns"] == []
    eng.close()


def test_rejected_patch_is_a_failure_and_graph_unchanged(settings: Any) -> None:
    bad = {
        "rationale": "r",
        "ops": [
            *VALID_PATCH["ops"],
            {"op": "add", "path": "/nodes/Bad Id", "value": {}, "reason": "x"},
        ],
    }
    backend = Scripted(bad)
    eng = engine(settings, backend)
    prompt(eng, "hello")
    get_runner(eng).wait(SID, 10)
    assert eng.sessions[SID].graph.nodes == {}
    fail = audit(eng, "probe_failure")
    assert fail and fail[0]["stage"] == "patch" and "not a slug" in fail[0]["error"]
    patches = [r for r in audit(eng, "patch") if r.get("status") == "rejected"]
    assert patches and patches[0]["source"]["probe"] == "scripted"
    eng.close()


def test_backend_crash_is_contained(settings: Any) -> None:
    backend = Scripted(RuntimeError("bug in a plugin backend"))
    eng = engine(settings, backend)
    prompt(eng, "hello")
    assert get_runner(eng).wait(SID, 10)
    assert "RuntimeError" in audit(eng, "probe_failure")[0]["error"]
    eng.close()


def test_replay_runs_inline_with_offline_backend(settings: Any) -> None:
    eng = engine(settings, replay=True, word="use")
    out = prompt(eng, "For the newsletter, let's use Resend for email.")
    assert out.probe and out.notes["probe"] == "inline" and out.ops_applied > 0
    assert "use-resend-for-email" in eng.sessions[SID].graph.nodes
    out = prompt(eng, "Actually, let's use Bento instead.")
    assert out.ops_applied > 0
    assert "use-bento|supersedes|use-resend-for-email" in eng.sessions[SID].graph.edges
    probe = audit(eng, "probe")[0]
    assert probe["backend"] == "offline" and probe["prompt_id"] == "offline.v1"
    # The offline probe is free: it reads every prompt, trigger or not (paid ones wait for one).
    out = prompt(eng, "no trigger here")
    assert out.probe and out.notes["probe"] == "inline"
    eng.close()


def test_redacted_before_buffer_and_probe(settings: Any) -> None:
    backend = Scripted(VALID_PATCH)
    eng = engine(settings, backend)
    prompt(eng, f"my key is {SECRET}, use it for Resend")
    eng.handle(
        HookEvent(
            "tool_use",
            SID,
            cwd="/repo",
            tool_name="Bash",
            tool_input={"command": f"curl -H 'x-api-key: {SECRET}' https://api.example.com"},
            tool_response={"stdout": "ok"},
        )
    )
    get_runner(eng).wait(SID, 10)
    disk = b"".join(p.read_bytes() for p in eng.store.dir(SID).iterdir() if p.is_file())
    assert SECRET.encode() not in disk
    sent = json.dumps([t.as_dict() for r in backend.requests for t in r.turns])
    assert SECRET not in sent and "[REDACTED:anthropic-key]" in sent
    eng.close()


def test_tool_digest_and_transcript_text(settings: Any) -> None:
    backend = Scripted(VALID_PATCH)
    eng = engine(settings, backend, word="PROBE")
    prompt(eng, "fix the login page")
    eng.handle(
        HookEvent(
            "tool_use",
            SID,
            cwd="/repo",
            tool_name="Edit",
            tool_input={"file_path": "/repo/src/login.tsx"},
            tool_response={"ok": True},
        )
    )

    class Adapter:
        @hookimpl(tryfirst=True)
        def prompt_submit(self, ctx: EventContext, prompt: str) -> None:
            from rolling_graph.transcripts import AssistantText

            ctx.transcript_events = [AssistantText("I fixed the redirect in login.tsx.")]

    eng.pm.register(Adapter())
    prompt(eng, "PROBE now")
    get_runner(eng).wait(SID, 10)
    turns = backend.requests[0].turns
    assert turns[0].user == "fix the login page" and turns[0].tools == ["Edit src/login.tsx"]
    assert turns[0].assistant == "I fixed the redirect in login.tsx."
    assert turns[1].user == "PROBE now"
    eng.close()


def test_stats_command(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    backend = Scripted(ProbeError("timeout"), VALID_PATCH)
    eng = engine(settings, backend)
    prompt(eng, "one")
    get_runner(eng).wait(SID, 10)
    prompt(eng, "two")
    get_runner(eng).wait(SID, 10)
    eng.close()
    from rolling_graph.cli import cli

    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(settings.home))
    res = CliRunner().invoke(cli, ["stats", "--session", SID, "--json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)[0]
    # The failed paid call fell back to the offline probe for that turn: three runs, two paid.
    assert row["triggers"] == 2 and row["probes"] == 3 and row["failures"] == 1
    assert row["paid_calls"] == 2 and row["fallbacks"] == 1
    assert row["tokens_in"] == 100 and row["tokens_out"] == 20  # the failure carried no usage
    res = CliRunner().invoke(cli, ["stats"])
    assert res.exit_code == 0 and SID in res.output


def test_select_auto(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rolling_graph.probe.select import make_backend, resolve_name

    assert resolve_name("auto", settings, {"ANTHROPIC_API_KEY": "x", "PATH": ""}) == "anthropic"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "claude").write_text("#!/bin/sh\n")
    (bindir / "claude").chmod(0o755)
    assert resolve_name("auto", settings, {"PATH": str(bindir)}) == "claude-cli"
    assert resolve_name("auto", settings, {"PATH": str(tmp_path / "none")}) == "offline"
    assert make_backend(settings, name="offline").name == "offline"

    class Plugin:
        @hookimpl
        def register_probe_backends(self, register: Any) -> None:
            register("mine", lambda s: Scripted(VALID_PATCH))
            register("offline", lambda s: Scripted(VALID_PATCH))  # may not shadow a built-in

    pm = get_plugin_manager(load_entry_points=False, extra=[Plugin()])
    assert make_backend(settings, pm, name="mine").name == "scripted"
    assert make_backend(settings, pm, name="offline").name == "offline"
    with pytest.raises(ProbeError, match="unknown probe backend"):
        make_backend(settings, pm, name="nope")


def test_buffer_is_bounded(settings: Any) -> None:
    st = HotStore(settings.home)
    for turn in range(1, 40):
        buffer_prompt(st, SID, turn, f"turn {turn}")
    buf = st.read_state(SID, BUFFER_STATE)
    assert len(buf["turns"]) == 16 and buf["turns"][-1]["user"] == "turn 39"
