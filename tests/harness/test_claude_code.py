"""The Claude Code adapter: real payload shapes in, exact stdout out; never raises."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolling_graph.config import Settings
from rolling_graph.harness.adapters import claude_code
from rolling_graph.pipeline.engine import Engine, Outcome
from rolling_graph.transport.hook_handler import handle_hook_bytes

PAYLOADS = Path(__file__).resolve().parents[1] / "fixtures" / "claude_code_payloads"
EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "SessionEnd",
]


def payload(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / name).read_text())


class FakeEngine:
    """Returns a fixed injected block; records the events it got."""

    def __init__(self, inject: str | None = "graph block") -> None:
        self.inject = inject
        self.events: list[Any] = []
        self.settings = None

    def handle(self, event: Any) -> Outcome:
        self.events.append(event)
        return Outcome(event.session_id, event.kind, 1, 0, injected=self.inject)


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    from rolling_graph.pipeline.plugins import get_plugin_manager

    eng = Engine(
        Settings(home=tmp_path / "home", probe="offline"),
        pm=get_plugin_manager(load_entry_points=False),
        replay=True,
    )
    yield eng
    eng.close()


@pytest.mark.parametrize(
    "name,expect_context",
    [
        ("SessionStart_startup.json", True),
        ("SessionStart_resume.json", True),
        ("SessionStart_compact.json", True),
        ("UserPromptSubmit.json", True),
        ("PreToolUse_Bash.json", True),
        ("PostToolUse_Edit.json", True),
        ("PostToolUse_Bash.json", True),
        ("PreCompact_manual.json", False),
        ("SessionEnd.json", False),
        ("Stop.json", False),
        ("PostCompact_manual.json", False),
    ],
)
def test_real_payloads_exact_output(name: str, expect_context: bool) -> None:
    raw = (PAYLOADS / name).read_bytes()
    fake = FakeEngine("the block")
    out = handle_hook_bytes(fake, raw)
    event_name = json.loads(raw)["hook_event_name"]
    if expect_context:
        assert out == json.dumps(
            {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": "the block"}},
            ensure_ascii=False,
        )
    else:
        assert out == ""


def test_parse_payload_fields() -> None:
    ev = claude_code.parse_payload(payload("UserPromptSubmit.json"))
    assert ev is not None and ev.kind == "prompt_submit"
    assert ev.prompt == "Please create the notes file and then edit it."
    assert ev.transcript_path and ev.cwd
    pre = claude_code.parse_payload(payload("PreToolUse_Bash.json"))
    post = claude_code.parse_payload(payload("PostToolUse_Edit.json"))
    assert pre is not None and pre.phase == "pre" and pre.tool_name == "Bash"
    assert post is not None and post.phase == "post" and post.tool_response is not None
    start = claude_code.parse_payload(payload("SessionStart_compact.json"))
    assert start is not None and start.source == "compact"
    comp = claude_code.parse_payload(payload("PreCompact_manual.json"))
    assert comp is not None and comp.trigger == "manual"
    end = claude_code.parse_payload(payload("SessionEnd.json"))
    assert end is not None and end.kind == "session_end" and end.reason
    assert claude_code.parse_payload(payload("Stop.json")) is None


def test_format_output() -> None:
    assert claude_code.format_output("PreCompact", "x") == ""
    assert claude_code.format_output("SessionEnd", "x") == ""
    assert claude_code.format_output("UserPromptSubmit", "") == ""
    assert claude_code.format_output("UserPromptSubmit", None) == ""
    long = claude_code.format_output("SessionStart", "y" * 50_000)
    ctx = json.loads(long)["hookSpecificOutput"]["additionalContext"]
    assert len(ctx) <= 10_000


def test_full_pipeline_each_event(engine: Engine) -> None:
    """The real engine (gate, probe offline, render) over every event: valid output shapes."""
    for name in [
        "SessionStart_startup.json",
        "UserPromptSubmit.json",
        "PreToolUse_Bash.json",
        "PostToolUse_Bash.json",
        "PostToolUse_Edit.json",
        "PreCompact_manual.json",
        "SessionStart_compact.json",
        "SessionEnd.json",
    ]:
        raw = (PAYLOADS / name).read_bytes()
        out = handle_hook_bytes(engine, raw)
        event_name = json.loads(raw)["hook_event_name"]
        if out:
            doc = json.loads(out)
            assert set(doc) == {"hookSpecificOutput"}
            assert doc["hookSpecificOutput"]["hookEventName"] == event_name
            assert isinstance(doc["hookSpecificOutput"]["additionalContext"], str)
            assert event_name in claude_code.CONTEXT_EVENTS


def test_gate_decision_logged(engine: Engine) -> None:
    body = {
        **payload("UserPromptSubmit.json"),
        "prompt": "Let's go with Bento instead of Resend for email.",
        "session_id": "gate-log",
    }
    handle_hook_bytes(engine, json.dumps(body).encode())
    audit = (engine.store.dir("gate-log") / "audit.jsonl").read_text()
    gates = [json.loads(line) for line in audit.splitlines() if '"gate"' in line]
    assert gates and gates[-1]["fired"]
    names = {t["name"] for t in gates[-1]["triggers"]}
    assert {"decision", "new_entity"} <= names


BAD_INPUTS: list[bytes] = [
    b"",
    b"not json",
    b"\x00\xff\xfe\x80" * 100,
    b"[]",
    b"null",
    b"42",
    b'"string"',
    b"{}",
    b'{"hook_event_name": 5}',
    b'{"hook_event_name": "UserPromptSubmit"}',
    b'{"hook_event_name": "UserPromptSubmit", "session_id": ""}',
    b'{"hook_event_name": "UserPromptSubmit", "session_id": 7, "prompt": "x"}',
    b'{"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": ["x"]}',
    b'{"hook_event_name": "PostToolUse", "session_id": "s", "tool_input": "str", "tool_response": 5}',
    b'{"hook_event_name": "Notification", "session_id": "s"}',
    b'{"hook_event_name": "UserPromptSubmit", "session_id": "../../etc", "prompt": "hi"}',
    b'{"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "\\ud800"}',
]


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_inputs_give_empty_or_json(engine: Engine, raw: bytes) -> None:
    out = handle_hook_bytes(engine, raw)
    assert out == "" or "hookSpecificOutput" in json.loads(out)


def test_twenty_megabyte_payload(engine: Engine) -> None:
    big = json.dumps(
        {**payload("UserPromptSubmit.json"), "session_id": "big", "prompt": "word " * 4_000_000}
    ).encode()
    assert len(big) >= 20_000_000
    out = handle_hook_bytes(engine, big)
    assert out == "" or json.loads(out)
    assert handle_hook_bytes(engine, b"\x8f" * 20_000_000) == ""


def test_not_bytes() -> None:
    assert handle_hook_bytes(FakeEngine(), "text") == ""  # type: ignore[arg-type]


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300).map(str.encode),
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats(allow_nan=True)
            | st.text(max_size=40),
            lambda kids: (
                st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4)
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {
                "hook_event_name": st.sampled_from([*EVENTS, "Stop", "Other", ""]) | st.integers(),
                "session_id": st.text(max_size=20) | st.none() | st.integers(),
            },
            optional={
                "prompt": st.text(max_size=200) | st.integers() | st.none(),
                "tool_name": st.text(max_size=10) | st.lists(st.integers()),
                "tool_input": st.dictionaries(st.text(max_size=5), st.text(max_size=20))
                | st.text(),
                "tool_response": st.text(max_size=50)
                | st.dictionaries(st.text(max_size=5), st.text(max_size=20)),
                "source": st.text(max_size=10) | st.integers(),
                "transcript_path": st.text(max_size=30) | st.integers(),
            },
        ).map(lambda d: json.dumps(d).encode()),
    )
)
def test_fuzz_never_raises(engine: Engine, raw: bytes) -> None:
    out = handle_hook_bytes(engine, raw)
    assert isinstance(out, str)
    if out:
        doc = json.loads(out)
        assert doc["hookSpecificOutput"]["hookEventName"] in claude_code.CONTEXT_EVENTS


def test_fuzz_corpus_1000(engine: Engine) -> None:
    """A fixed generated corpus of 1,000+ inputs (deterministic, complements hypothesis)."""
    import random

    rng = random.Random(7)
    base = [
        payload(n)
        for n in ("UserPromptSubmit.json", "PostToolUse_Bash.json", "SessionStart_startup.json")
    ]
    values: list[Any] = [None, 1, -1, 2.5, "", "x", [], {}, [1, "a"], {"a": None}, True, "\x00"]
    count = 0
    for i in range(1100):
        kind = i % 4
        if kind == 0:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif kind == 1:
            doc = dict(rng.choice(base))
            for key in rng.sample(list(doc), k=rng.randrange(1, len(doc))):
                doc[key] = rng.choice(values)
            raw = json.dumps(doc).encode()
        elif kind == 2:
            doc = dict(rng.choice(base))
            doc["session_id"] = f"fuzz-{i % 7}"
            raw = json.dumps(doc).encode()[: rng.randrange(1, 400)]  # truncated JSON
        else:
            doc = dict(rng.choice(base))
            doc["session_id"] = f"fuzz-{i % 5}"
            doc["hook_event_name"] = rng.choice([*EVENTS, "Unknown", "SubagentStop"])
            raw = json.dumps(doc).encode()
        out = handle_hook_bytes(engine, raw)
        assert out == "" or json.loads(out)["hookSpecificOutput"]
        count += 1
    assert count >= 1000


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_data_dir_logs_and_prints_nothing(tmp_path: Path) -> None:
    home = tmp_path / "ro"
    home.mkdir()
    log_dir = tmp_path / "logs"
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        eng = Engine(Settings(home=home, probe="offline"), replay=True)
        out = handle_hook_bytes(eng, (PAYLOADS / "UserPromptSubmit.json").read_bytes())
        assert out == ""
    finally:
        home.chmod(stat.S_IRWXU)
    del log_dir


def test_unwritable_data_dir_as_root_safe(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A data 'directory' that is a file: nothing can be created under it, even as root."""
    home = tmp_path / "a-file"
    home.write_text("not a directory")
    eng = Engine(Settings(home=home, probe="offline"), replay=True)
    logger = logging.getLogger("rolling_graph")
    logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.WARNING, logger="rolling_graph"):
            out = handle_hook_bytes(eng, (PAYLOADS / "UserPromptSubmit.json").read_bytes())
    finally:
        logger.removeHandler(caplog.handler)
    assert out == ""
    assert any("hook handling failed" in r.getMessage() for r in caplog.records)
