"""The observers: the agent's own plan becomes tasks with their status, what it touches while a
task is in progress is linked to it, and the person's answers to its questions are decisions."""

from __future__ import annotations

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.core.slug import normalize_term
from rolling_graph.observe.observers import active_task, observe
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline.plan import known_terms
from rolling_graph.probe.runner import graph_view
from tests.probe.helpers import kinds


def test_todos_become_tasks_and_edits_link_to_the_task_in_progress() -> None:
    sess = HotSession.in_memory("s")
    sess.advance_turn()
    todos = [
        {"content": "Add parser", "status": "completed"},
        {"content": "Wire CLI flag", "status": "in_progress"},
        {"content": "Write docs", "status": "pending"},
    ]
    sess.apply(observe(sess.graph, "TodoWrite", {"todos": todos}, None), PatchSource("observer"))
    tasks = kinds(sess, "task")
    assert {k: v.attrs["status"] for k, v in tasks.items()} == {
        "Add parser": "completed",
        "Wire CLI flag": "in_progress",
        "Write docs": "pending",
    }
    assert active_task(sess.graph).label == "Wire CLI flag"
    edit = {"file_path": "/repo/src/cli.py", "old_string": "x", "new_string": "def add_flag(p):"}
    patch = observe(sess.graph, "Edit", edit, {"ok": True}, cwd="/repo")
    sess.apply(patch, PatchSource("observer"))
    f = sess.graph.nodes["src-cli-py"]
    assert f.attrs["edits"] == "1" and "add_flag" in (f.summary or "")
    assert "wire-cli-flag|uses|src-cli-py" in sess.graph.edges
    assert "add-flag|part-of|src-cli-py" in sess.graph.edges
    out = "===== 2 failed, 10 passed in 1.2s ====="
    sess.apply(
        observe(sess.graph, "Bash", {"command": "pytest -q"}, {"stdout": out}),
        PatchSource("observer"),
    )
    sess.apply(
        observe(sess.graph, "Bash", {"command": "pytest -q"}, {"stdout": "12 passed"}),
        PatchSource("observer"),
    )
    assert kinds(sess, "task")["Wire CLI flag"].attrs["tests"] == "2 failed, then passed"


def test_answers_to_the_agents_questions_are_decisions() -> None:
    sess = HotSession.in_memory("s")
    resp = 'User has answered your questions: "Which store?"="SQLite, local file". You can now continue.'
    patch = observe(sess.graph, "AskUserQuestion", {"questions": []}, resp)
    sess.apply(patch, PatchSource("observer"))
    d = kinds(sess, "decision")["SQLite, local file"]
    assert "Which store?" in (d.summary or "")


def test_an_answer_loses_the_agents_recommendation_mark() -> None:
    # "(Recommended)" says who proposed the option; the decision is the option itself
    sess = HotSession.in_memory("s")
    resp = (
        'User has answered your questions: "Which queue?"="Redis streams (Recommended)", '
        '"Which layout?"="单列（推荐）". You can now continue.'
    )
    sess.apply(observe(sess.graph, "AskUserQuestion", {}, resp), PatchSource("observer"))
    assert set(kinds(sess, "decision")) == {"Redis streams", "单列"}


def test_a_plans_heading_gives_the_work_not_the_document() -> None:
    # "Plan: X", "Rollout Plan: X" → X; a heading without the colon stays as written
    for heading, task in (
        ("## Plan: Move the cron job into the worker", "Move the cron job into the worker"),
        ("# Rollout Plan: webhook retries behind a flag", "Webhook retries behind a flag"),
        ("# Deployment plan", "Deployment plan"),
        ("# Webhook Retries — Implementation Plan", "Implement Webhook Retries"),
        ("# Nightly Export Implementation Plan", "Implement Nightly Export"),
        ("# Plan the export schema", "Plan the export schema"),
    ):
        sess = HotSession.in_memory("s")
        sess.advance_turn()
        plan = f"{heading}\n\n1. Add the table\n2. Wire the endpoint\n"
        sess.apply(observe(sess.graph, "ExitPlanMode", {"plan": plan}, None), PatchSource("o"))
        assert list(kinds(sess, "task")) == [task], heading


def test_a_reworded_plan_heading_stays_the_tasks_alias() -> None:
    # later text names the plan by its heading: the task is found again by it
    sess = HotSession.in_memory("s")
    sess.advance_turn()
    plan = "# Nightly Export Implementation Plan\n\n1. Add the table\n2. Wire the endpoint\n"
    sess.apply(observe(sess.graph, "ExitPlanMode", {"plan": plan}, None), PatchSource("o"))
    task = kinds(sess, "task")["Implement Nightly Export"]
    assert task.aliases == ["Nightly Export Implementation Plan"]
    nodes, edges = graph_view(sess.graph)
    known = known_terms(ProbeRequest("s", 2, [TurnDigest(2, "go on")], nodes, edges))
    assert known[normalize_term("Nightly Export Implementation Plan")] == task.id
    # a heading the task keeps word for word needs no alias
    sess.apply(
        observe(sess.graph, "ExitPlanMode", {"plan": "## Plan: Move the cron job\n1. a"}, None),
        PatchSource("o"),
    )
    assert kinds(sess, "task")["Move the cron job"].aliases == []
