"""The offline probe on tool activity and assistant text: nodes from what the agent did (files,
identifiers, programs, error types), strengthened by repetition, linked, always engine-valid;
and the tool digest lines it reads (key identifiers, error types, redaction, bounds)."""

from __future__ import annotations

from typing import Any

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.patch import PatchSource, validate_patch
from rolling_graph.core.session import HotSession
from rolling_graph.observe.digest import key_identifiers, tool_digest
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import build_patch
from rolling_graph.probe.runner import get_runner, graph_view
from tests.probe.test_runner import SID, engine

SECRET = "sk-ant-api03-" + "A" * 40


def probe(
    sess: HotSession, tools: list[str], user: str = "", assistant: str = ""
) -> dict[str, Any]:
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    req = ProbeRequest(
        "s", turn, [TurnDigest(turn, user, assistant=assistant, tools=tools)], nodes, edges
    )
    patch = build_patch(req)
    res = sess.apply(patch, PatchSource("offline", "offline.v1"))
    assert res.applied, res.error
    return patch


def test_tool_lines_become_linked_nodes_with_summaries() -> None:
    sess = HotSession.in_memory("s")
    probe(
        sess,
        [
            "Read src/app/config.py",
            "Edit src/app/config.py | ids: load_config, Settings, DEFAULT_PATH",
            "Bash: cd src && pytest -q tests/test_config.py (error: KeyError)",
        ],
        user="make the config loader strict",
    )
    g = sess.graph
    f = g.nodes["src-app-config-py"]
    assert f.kind == "file" and "config.py" in f.aliases
    assert f.summary == "edited 1×, read 1× in turn 1"
    assert g.nodes["load-config"].kind == "entity" and g.nodes["load-config"].domain == "technical"
    assert "load-config|part-of|src-app-config-py" in g.edges  # identifier → file it is in
    assert "src-app-config-py|part-of|src-app" in g.edges  # file → its directory
    pytest_node = g.nodes["pytest"]
    assert pytest_node.kind == "tool" and "pytest -q tests/test_config.py" in (
        pytest_node.summary or ""
    )
    assert "cd" not in g.nodes  # shell utilities are not topics
    assert "tests-test-config-py" in g.nodes  # a file a command used
    err = g.nodes["keyerror"]
    assert err.label == "KeyError" and "error reported 1×" in (err.summary or "")
    assert any(
        e.relationship == "relates-to" and "keyerror" in (e.source, e.target)
        for e in g.edges.values()
    )  # co-occurrence in one tool call


def test_repetition_strengthens() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, ["Edit lib/a.ex | ids: handle_event", "Edit lib/b.ex | ids: render_row"])
    g = sess.graph
    once = g.nodes["lib-b-ex"].weight
    # Seen again in a later window: strengthened (the engine decides by how much).
    patch = probe(sess, ["Edit lib/a.ex | ids: handle_event"])
    assert g.nodes["lib-a-ex"].weight > once
    assert g.nodes["handle-event"].weight > g.nodes["render-row"].weight
    assert not any(op["op"] == "add" and op["path"] == "/nodes/lib-a-ex" for op in patch["ops"])
    assert g.nodes["lib-a-ex"].summary == "edited 1× in turn 2"  # refreshed, per window
    # Many calls in one window count too: five edits weigh more than one.
    sess2 = HotSession.in_memory("s2")
    probe(sess2, ["Edit x/many.py | ids: f_one"] * 5 + ["Edit x/once.py | ids: g_two"])
    g2 = sess2.graph
    assert g2.nodes["x-many-py"].weight > g2.nodes["x-once-py"].weight


def test_big_window_stays_valid_and_within_limits() -> None:
    tools = [
        f"Edit pkg/mod_{i}.py | ids: "
        + ", ".join(f"func_{i}_{k}" for k in range(12))
        + (" (error: ValueError)" if i % 7 == 0 else "")
        for i in range(40)
    ]
    tools += [f"Bash: make build_{i} && cargo test -p crate_{i}" for i in range(10)]
    text = " ".join(f"Module{i} talks to Service{i} via api_{i}." for i in range(30))
    req = ProbeRequest("s", 3, [TurnDigest(3, text, tools=tools)], max_ops=64)
    a, b = build_patch(req), build_patch(req)
    assert a == b and 0 < len(a["ops"]) <= 64
    validate_patch(HotSession.in_memory("s").graph, a)
    assert any(op["path"].startswith("/edges/") for op in a["ops"])  # room is kept for edges


def test_malformed_and_redacted_tool_lines_are_skipped() -> None:
    sess = HotSession.in_memory("s")
    patch = probe(
        sess, ["", "   ", "Edit", "Read [REDACTED:aws-key]/x.py", "Bash: ", "WebSearch: x"]
    )
    assert all("REDACTED" not in str(op.get("value")) for op in patch["ops"])


def test_assistant_text_strengthens_and_adds_code_names() -> None:
    sess = HotSession.in_memory("s")
    probe(sess, ["Edit src/store.py | ids: HotStore"])
    w = sess.graph.nodes["hotstore"].weight
    probe(
        sess,
        [],
        assistant="HotStore now locks. I also changed save_graph; save_graph is atomic. Great!",
    )
    g = sess.graph
    assert g.nodes["hotstore"].weight > w
    assert "save-graph" in g.nodes  # named twice
    assert "great" not in g.nodes  # prose is not mined


def test_tool_digest_carries_key_identifiers() -> None:
    code = (
        "def load_config(path):\n    return Settings(path)\n\n"
        "class ConfigError(Exception):\n    pass\n" + "x = load_config(p)\n" * 3
    )
    line = tool_digest(
        "Edit",
        {"file_path": "/repo/src/config.py", "old_string": "", "new_string": code},
        {"ok": True},
        "/repo",
    )
    assert line.startswith("Edit src/config.py | ids: load_config, ConfigError")
    assert len(line) <= 200 + 8 + 240
    assert key_identifiers("just some words") == []


def test_tool_digest_redacts_and_reports_error_types() -> None:
    line = tool_digest(
        "Write",
        {"file_path": "/repo/.env.py", "content": f"API_KEY = '{SECRET}'\nDB_URL = 1\n"},
        None,
        "/repo",
    )
    assert SECRET not in line and "API_KEY" in line
    bash = tool_digest(
        "Bash",
        {"command": f"cd /repo/app && curl -H 'x-api-key: {SECRET}' https://x.io"},
        {"is_error": True, "stderr": "Traceback…\nKeyError: 'user'"},
        "/repo",
    )
    assert SECRET not in bash and bash.endswith("(error: KeyError)")
    assert "/repo/" not in bash  # project paths relative, as for file tools


def test_pre_compact_probes_what_is_buffered(settings: Any) -> None:
    eng = engine(settings, replay=True, word="NEVER")
    eng.handle(HookEvent("prompt_submit", SID, prompt="fix the parser", cwd="/repo"))
    eng.handle(
        HookEvent(
            "tool_use",
            SID,
            cwd="/repo",
            tool_name="Edit",
            tool_input={"file_path": "/repo/src/parser.py", "new_string": "def parse_line(s): ..."},
            tool_response={"ok": True},
        )
    )
    # No probe yet (no trigger fired), but the observer recorded the edit at once.
    graph = eng.sessions[SID].graph
    assert graph.nodes["src-parser-py"].attrs == {
        "edits": "1",
        "reads": "0",
        "first": "1",
        "last": "1",
        "added": "parse_line",
    }
    out = eng.handle(HookEvent("pre_compact", SID, trigger="auto", cwd="/repo"))
    assert out.probe
    assert {"src-parser-py", "parse-line"} <= set(eng.sessions[SID].graph.nodes)
    start = eng.handle(HookEvent("session_start", SID, source="compact", cwd="/repo"))
    assert start.injected and "parse_line" in start.injected
    get_runner(eng).wait(SID, 5)
    eng.close()


def test_windows_paths_are_made_relative_to_the_project() -> None:
    from rolling_graph.observe.tool_events import short_path as _rel

    cwd = r"c:\Users\dev\proj"
    assert _rel(r"C:\Users\dev\proj\src\discord.ts", cwd) == "src/discord.ts"
    assert _rel("/home/u/p/src/a.py", "/home/u/p") == "src/a.py"
    assert _rel("/elsewhere/a.py", "/home/u/p") == "/elsewhere/a.py"
