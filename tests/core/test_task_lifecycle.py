"""Task lifecycle on invented sessions: at most one task in progress; a task is done when the
agent reports it done, when its tests pass after its edits, or when a later request replaces
it after work on it (or after the answer it asked for); an idle task is open, not in progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource, apply_normalized
from rolling_graph.core.session import HotSession, SessionParams, default_params, rebuild_from_audit
from rolling_graph.observe.observers import active_task, observe
from rolling_graph.render.lod import render

PROBE = PatchSource("test")
OBSERVER = PatchSource("observer", "observer.v1")


def task(nid: str, status: str = "in_progress", source: str = "prompt") -> dict[str, Any]:
    value = {
        "label": nid.replace("-", " ").capitalize(),
        "domain": "project",
        "kind": "task",
        "attrs": {"status": status, "source": source},
    }
    return {"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": "asked"}


def statuses(sess: HotSession) -> dict[str, str]:
    return {
        n.id: (n.attrs or {}).get("status", "")
        for n in sess.graph.nodes.values()
        if n.kind == "task"
    }


def session(idle: int = 6) -> HotSession:
    d = default_params()
    return HotSession.in_memory("s", SessionParams(d.decay, d.limits, task_idle_turns=idle))


def ask(sess: HotSession, *ops: dict[str, Any]) -> None:
    sess.advance_turn()
    assert sess.apply(list(ops), PROBE).applied


def tool(sess: HotSession, name: str, inp: dict[str, Any], response: Any = "") -> None:
    patch = observe(sess.graph, name, inp, response, cwd="/repo")
    if patch is not None:
        assert sess.apply(patch, OBSERVER).applied


def edit(sess: HotSession, path: str) -> None:
    tool(sess, "Edit", {"file_path": f"/repo/{path}", "old_string": "a", "new_string": "b"})


def pytest_run(sess: HotSession, out: str) -> None:
    tool(sess, "Bash", {"command": "pytest -q"}, {"stdout": out})


def test_a_later_request_closes_the_task_the_agent_worked_on() -> None:
    sess = session()
    ask(sess, task("add-the-signup-form"))
    edit(sess, "app/form.py")
    ask(sess, task("write-the-handoff-note"))
    assert statuses(sess) == {
        "add-the-signup-form": "completed",
        "write-the-handoff-note": "in_progress",
    }
    assert active_task(sess.graph).id == "write-the-handoff-note"


def test_a_replaced_request_nobody_worked_on_waits_open() -> None:
    sess = session()
    ask(sess, task("look-at-the-logs"))
    ask(sess, task("fix-the-flaky-test"))
    assert statuses(sess) == {"look-at-the-logs": "pending", "fix-the-flaky-test": "in_progress"}
    text = render(sess.graph, budget=800).text
    assert "Task in progress: Fix the flaky test" in text
    assert "Look at the logs (pending)" in text and "(in progress" not in text


def test_a_replaced_request_for_an_answer_is_done() -> None:
    sess = session()
    asked = task("give-a-json-example")
    asked["value"]["attrs"]["asks"] = "answer"  # the probe marks a request for an answer
    ask(sess, asked)
    ask(sess, task("store-the-totals"))
    assert statuses(sess) == {"give-a-json-example": "completed", "store-the-totals": "in_progress"}
    assert "Done: Give a json example" in render(sess.graph, budget=800).text


def test_an_answer_that_stepped_back_to_open_is_done_when_a_request_comes() -> None:
    # the agent's todo item took its place, then the person moved on: it was answered
    sess = session()
    asked = task("explain-the-retry-loop")
    asked["value"]["attrs"]["asks"] = "answer"
    ask(sess, asked)
    tool(sess, "TodoWrite", {"todos": [{"content": "Trace the retries", "status": "in_progress"}]})
    assert statuses(sess)["explain-the-retry-loop"] == "pending"
    ask(sess, task("cap-the-retries"))
    assert statuses(sess)["explain-the-retry-loop"] == "completed"
    # a request for work that nobody did stays open
    assert statuses(sess)["cap-the-retries"] == "in_progress"
    ask(sess, task("rename-the-module"))
    assert statuses(sess)["cap-the-retries"] == "pending"


def test_the_probe_marks_a_request_for_an_answer() -> None:
    from rolling_graph.eval.dialogue import replay_dialogue

    graph = replay_dialogue([("", "can you give a full json example for the totals?")]).graph
    (asked,) = [n for n in graph.nodes.values() if n.kind == "task"]
    assert (asked.attrs or {}).get("asks") == "answer"
    graph = replay_dialogue([("", "can you add a json export for the totals?")]).graph
    (work,) = [n for n in graph.nodes.values() if n.kind == "task"]
    assert "asks" not in (work.attrs or {})


def test_a_request_to_look_and_report_is_done_once_a_later_request_replaces_it() -> None:
    from rolling_graph.eval.dialogue import replay_dialogue

    graph = replay_dialogue(
        [
            ("", "look at the latest commit and the metadata"),
            ("The commit touches 3 files; the metadata lists all three.", "now bump the version"),
        ]
    ).graph
    tasks = {n.label: (n.attrs or {}) for n in graph.nodes.values() if n.kind == "task"}
    assert tasks["Look at the latest commit and the metadata"]["status"] == "completed"
    assert tasks["Bump the version"]["status"] == "in_progress"
    for said in ("check if the export skips empty rows", "can you review the migration plan?"):
        (asked,) = [
            n for n in replay_dialogue([("", said)]).graph.nodes.values() if n.kind == "task"
        ]
        assert (asked.attrs or {}).get("asks") == "answer", said


def test_one_prompt_with_two_requests_starts_the_first() -> None:
    sess = session()
    ask(sess, task("add-a-migration"), task("run-the-tests"))
    assert statuses(sess) == {"add-a-migration": "in_progress", "run-the-tests": "pending"}


def test_a_step_of_the_agents_todo_list_does_not_close_the_request() -> None:
    sess = session()
    ask(sess, task("port-the-exporter"))
    edit(sess, "export.py")
    tool(
        sess,
        "TodoWrite",
        {"todos": [{"content": "Write the CSV writer", "status": "in_progress"}]},
    )
    assert statuses(sess) == {"port-the-exporter": "pending", "write-the-csv-writer": "in_progress"}
    # The agent's own word closes its step.
    tool(sess, "TodoWrite", {"todos": [{"content": "Write the CSV writer", "status": "completed"}]})
    assert statuses(sess)["write-the-csv-writer"] == "completed"
    assert active_task(sess.graph) is None


def test_tests_passing_after_its_edits_close_the_task() -> None:
    sess = session()
    ask(sess, task("fix-the-rounding-bug"))
    pytest_run(sess, "1 failed, 12 passed in 0.4s")
    assert statuses(sess)["fix-the-rounding-bug"] == "in_progress"
    edit(sess, "app/money.py")
    pytest_run(sess, "13 passed in 0.4s")
    assert statuses(sess)["fix-the-rounding-bug"] == "completed"
    # No task in progress: the block says which one was finished last, with its files.
    text = render(sess.graph, budget=800).text
    assert "Task in progress" not in text
    line = next(ln for ln in text.splitlines() if ln.startswith("Last task (done): "))
    assert "Fix the rounding bug" in line and "money.py" in line


def test_tests_passing_before_any_edit_do_not_close_the_task() -> None:
    sess = session()
    ask(sess, task("speed-up-the-import"))
    pytest_run(sess, "13 passed in 0.4s")
    assert statuses(sess)["speed-up-the-import"] == "in_progress"
    edit(sess, "app/importer.py")  # then the same result again, after the edits: done
    pytest_run(sess, "13 passed in 0.4s")
    assert statuses(sess)["speed-up-the-import"] == "completed"


def test_an_idle_task_is_open_not_in_progress() -> None:
    sess = session(idle=3)
    ask(sess, task("rename-the-cli-flags"))
    other = {"label": "Dana", "domain": "relationship", "kind": "person"}
    for _ in range(2):
        ask(sess, {"op": "add", "path": "/nodes/dana", "value": other, "reason": "named"})
    assert statuses(sess)["rename-the-cli-flags"] == "in_progress"
    ask(sess, {"op": "add", "path": "/nodes/dana", "value": other, "reason": "named"})
    assert statuses(sess)["rename-the-cli-flags"] == "pending"
    assert active_task(sess.graph) is None
    assert "Task in progress" not in render(sess.graph, budget=800).text


def test_work_on_a_task_keeps_it_from_idling() -> None:
    sess = session(idle=2)
    ask(sess, task("migrate-the-schema"))
    sess.advance_turn()
    edit(sess, "db/schema.sql")  # the file edited for it counts as a touch of the task
    sess.advance_turn()
    assert statuses(sess)["migrate-the-schema"] == "in_progress"
    sess.advance_turn()
    sess.advance_turn()
    assert statuses(sess)["migrate-the-schema"] == "pending"


def test_several_tasks_in_progress_from_elsewhere_keep_the_latest(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    with store.lock("w"):
        sess = HotSession.open(store, "w")
        # What a warm pull writes (normalized ops, no patch engine): two tasks in progress.
        pulled = []
        for nid in ("old-one", "new-one"):
            value = {
                **task(nid, source="todo")["value"],
                "id": nid,
                "weight": 0.5,
                "last_activated": 0,
            }
            pulled.append({"op": "add", "path": f"/nodes/{nid}", "value": value})
        apply_normalized(sess.graph, pulled)
        sess.advance_turn()
        assert statuses(sess) == {"old-one": "pending", "new-one": "in_progress"}
        sess.save()
        graph = sess.graph
    records = list(store.audit("w").records())
    assert any(r.get("source", {}).get("probe") == "lifecycle" for r in records)
    rebuilt = rebuild_from_audit(
        "w", [{"type": "patch", "status": "applied", "applied": pulled}, *records]
    )
    assert {k: v.attrs for k, v in rebuilt.nodes.items()} == {
        k: v.attrs for k, v in graph.nodes.items()
    }


def test_a_task_number_is_a_reference_to_the_task_not_a_constraint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.pipeline.engine import Engine

    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    monkeypatch.setenv("ROLLING_GRAPH_WARM", "")
    cwd = str(tmp_path)
    engine = Engine(load_settings())
    try:
        engine.handle(HookEvent("session_start", "n", cwd=cwd, source="startup"))
        engine.handle(HookEvent("prompt_submit", "n", cwd=cwd, prompt="Plan the CSV export."))
        for subject, number in (("Write the CSV writer", 11), ("Add the export command", 12)):
            engine.handle(
                HookEvent(
                    "tool_use",
                    "n",
                    cwd=cwd,
                    tool_name="TaskCreate",
                    tool_input={"subject": subject},
                    tool_response=f"Task #{number} created successfully: {subject}",
                )
            )
        before = engine.sessions["n"].graph.turn
        engine.handle(
            HookEvent("prompt_submit", "n", cwd=cwd, prompt="Let's do #12 first, only #12 today.")
        )
        graph = engine.sessions["n"].graph
    finally:
        engine.close()
    attrs = [n.attrs or {} for n in graph.nodes.values()]
    assert not [a for a in attrs if any(k.startswith("constraint") for k in a)]
    assert graph.nodes["add-the-export-command"].last_activated > before
    assert graph.nodes["write-the-csv-writer"].last_activated <= before
