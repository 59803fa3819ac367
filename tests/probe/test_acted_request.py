"""A request the agent acted on: a prompt no rule placed, followed by the agent's work, becomes
a task in the person's words; invented exchanges, through the real engine and offline probe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import Settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.model import HotGraph
from rolling_graph.core.task_lifecycle import ACTED
from rolling_graph.pipeline.engine import Engine
from rolling_graph.probe.acted_request import UnplacedPrompts, request_label, task_patch
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.runner import get_runner
from tests.probe.test_runner import Scripted, engine

SID = "s1"
SECRET = "sk-ant-api03-" + "Qw7" * 30  # fake, shaped like an Anthropic key


@pytest.mark.parametrize(
    ("prompt", "label"),
    [
        ("perform remediation of the open findings", "Perform remediation of the open findings"),
        (
            "Please look into why the nightly export is slow.",
            "Look into why the nightly export is slow",
        ),
        # A question the agent works on stays a question in "Done:" and "Open tasks:".
        ("what do I need to test manually?", "What do I need to test manually?"),
        # the person's words, not the pasted traceback
        (
            "```\nTraceback (most recent call last):\n  File 'x.py'\n```\nwhat is this?",
            "What is this?",
        ),
        # two questions joined by a dash: the first; a long one: its first words
        (
            "How's the deploy doing — did job 512 finish before the restart?",
            "How's the deploy doing?",
        ),
        (
            "Where are all the places in the parser that still call the old tokenizer?",
            "Where are all the places in the parser…?",
        ),
        (
            "Is Grafana still scraping the staging box?",
            "Is Grafana still scraping the staging box?",
        ),
        # a request asked as a question is work, not a question
        ("can we add a retry to the upload?", "Add a retry to the upload"),
        # its first words do not end inside a parenthesis they open
        (
            "ssh into the gateway and remove the vendor services(acme, telemetry, updates)",
            "Ssh into the gateway and remove the vendor services",
        ),
        (
            "Where are the handlers that still call fetch(url, retries, timeout) on each request?",
            "Where are the handlers that still call fetch…?",
        ),
        ("请修复登录页面的错误", "请修复登录页面的错误"),
        # a greeting, and the name it greets, lead in to the request
        ("Hi Claude, can you please rerun the nightly export?", "Rerun the nightly export"),
        ("hey! welcome back - please bump the base image", "Bump the base image"),
        ("Hello there, please revert the release.", "Revert the release"),
    ],
)
def test_a_request_is_labelled_in_the_persons_words(prompt: str, label: str) -> None:
    assert request_label(prompt) == label


@pytest.mark.parametrize(
    "prompt",
    [
        "yes",
        "2",
        "option B",
        "1, 3",
        "ok go ahead",
        "continue",
        "nope, not that",
        "/compact",
        "hmm",
    ],
)
def test_going_on_asks_for_no_task_of_its_own(prompt: str) -> None:
    assert request_label(prompt) is None


def test_asking_for_talk_is_no_task() -> None:
    assert request_label("can you explain how the cache works?") is None


def test_a_task_id_without_ascii_letters_is_a_stable_hash() -> None:
    graph = HotGraph(session_id=SID)
    patch = task_patch(graph, "请修复登录页面的错误", "Read")
    assert patch is not None
    (op,) = patch["ops"]
    assert op["path"].startswith("/nodes/task-") and op["value"]["attrs"]["via"] == ACTED
    assert task_patch(graph, "请修复登录页面的错误", "Read") == patch  # same prompt, same id


def request(turn: int, user: str) -> ProbeRequest:
    return ProbeRequest(SID, turn, [TurnDigest(turn, user)])


def test_unplaced_prompt_is_taken_once_and_only_on_its_turn() -> None:
    graph = HotGraph(session_id=SID)
    unplaced = UnplacedPrompts()
    unplaced.note(graph, request(3, "troubleshoot the network"), set())
    assert unplaced.take(SID, 4) is None  # another turn's tool call: not this prompt's work
    assert unplaced.take(SID, 3) == "troubleshoot the network"
    assert unplaced.take(SID, 3) is None


def test_a_probe_that_placed_the_prompt_clears_it() -> None:
    graph = HotGraph(session_id=SID)
    (op,) = task_patch(graph, "troubleshoot the network", "Bash")["ops"]  # type: ignore[index]
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.core.session import HotSession

    sess = HotSession.in_memory(SID)
    sess.apply({"rationale": "t", "ops": [op]}, PatchSource("offline"))
    unplaced = UnplacedPrompts()
    unplaced.note(sess.graph, request(1, "fix it"), set())
    unplaced.note(sess.graph, request(1, "fix it"), {op["path"].split("/")[-1]})
    assert unplaced.take(SID, 1) is None


class Session:
    """One session through the real engine in replay mode (probes run inline)."""

    def __init__(self, settings: Settings) -> None:
        self.eng = Engine(settings, store=HotStore(settings.home), replay=True)
        self.event("session_start", source="startup")

    def event(self, kind: str, **kw: Any) -> Any:
        return self.eng.handle(HookEvent(kind, SID, cwd="/repo", **kw))

    def turn(self, prompt: str, *tools: str) -> None:
        self.event("prompt_submit", prompt=prompt)
        for tool in tools:
            self.tool(tool)

    def tool(self, name: str) -> None:
        args = {"command": "ping -c1 10.0.0.1"} if name == "Bash" else {"file_path": "/repo/a.py"}
        self.event("tool_use", tool_name=name, tool_input=args, tool_response="ok", phase="post")

    def tasks(self) -> dict[str, dict[str, Any]]:
        g = self.eng.sessions[SID].graph
        return {n.label: dict(n.attrs or {}) for n in g.nodes.values() if n.kind == "task"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", probe="offline")


def test_work_on_an_unplaced_request_makes_one_task_in_progress(settings: Settings) -> None:
    s = Session(settings)
    s.turn("troubleshoot the flaky network in the staging cluster", "Bash", "Bash", "Read")
    tasks = s.tasks()
    assert list(tasks) == ["Troubleshoot the flaky network in the staging cluster"]
    (attrs,) = tasks.values()
    assert attrs["status"] == "in_progress" and attrs["via"] == ACTED
    s.turn("perform remediation of the open findings", "Read")
    tasks = s.tasks()
    assert tasks["Perform remediation of the open findings"]["status"] == "in_progress"
    # at most one task in progress: the later request replaced the earlier one
    assert sum(a["status"] == "in_progress" for a in tasks.values()) == 1
    s.eng.close()


def test_assent_bookkeeping_and_repeats_make_no_task(settings: Settings) -> None:
    s = Session(settings)
    s.turn("yes", "Bash")
    s.turn("2", "Read")
    assert s.tasks() == {}
    s.turn(
        "perform remediation of the open findings",
        "TodoWrite",
        "AskUserQuestion",
        "update_plan",
        "mcp__rolling-graph__memory_note",
    )
    assert s.tasks() == {}  # only bookkeeping so far: no work on the request
    s.tool("Read")
    assert list(s.tasks()) == ["Perform remediation of the open findings"]
    s.turn("perform remediation of the open findings", "Read")
    assert len(s.tasks()) == 1  # the same request again: no second task
    s.eng.close()


def test_the_setting_turns_it_off(tmp_path: Path) -> None:
    s = Session(Settings(home=tmp_path / "home", probe="offline", acted_requests=False))
    s.turn("troubleshoot the flaky network in the staging cluster", "Bash")
    assert s.tasks() == {}
    s.eng.close()


def test_a_secret_in_the_request_never_reaches_the_task(settings: Settings) -> None:
    s = Session(settings)
    s.turn(f"Troubleshoot the login on the staging cluster.\nThe key it uses is {SECRET}", "Bash")
    (task,) = s.eng.sessions[SID].graph.nodes.values()
    assert task.label == "Troubleshoot the login on the staging cluster"
    assert "[REDACTED" in task.summary
    s.eng.close()
    stored = (settings.home / "sessions" / SID / "graph.json").read_text()
    assert "Qw7Qw7" not in stored and "staging cluster" in stored


def test_a_probe_in_flight_defers_to_a_later_tool_call(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", probe="offline", paid_probes="always", backoff_s=0)
    backend = Scripted(json.dumps({"rationale": "nothing to record", "ops": []}), block=True)
    s = Session.__new__(Session)
    s.eng = engine(settings, backend)  # a stand-in gate that fires on every prompt
    runner = get_runner(s.eng)
    s.event("prompt_submit", prompt="troubleshoot the flaky network in the staging cluster")
    if not backend.entered.wait(5):
        pytest.fail("the prompt's probe did not start")
    s.tool("Bash")
    assert runner.in_flight(SID) and s.tasks() == {}  # its probe may still place the prompt
    backend.release.set()
    assert runner.wait(SID, 10)
    s.tool("Bash")
    assert list(s.tasks()) == ["Troubleshoot the flaky network in the staging cluster"]
    s.eng.close()


@pytest.mark.parametrize(
    ("prompt", "work", "label"),
    [
        # the person's sentence before says what "them" is
        (
            "The new tickets for the billing epic are in. Tackle them",
            "Bash: bd ready",
            "Tackle them — The new tickets for the billing epic are in",
        ),
        # else the agent's first work on it does
        ("commit this", 'Bash: git commit -m "Fix the login redirect"', "Commit this — "
         'git commit -m "Fix the login redirect"'),
        ("check again", "Bash: curl -s localhost:8080/health (error: Exit)",
         "Check again — curl -s localhost:8080/health"),
        ("could you retry?", "Edit src/sync.py | ids: Backoff", "Could you retry — Edit src/sync.py"),
        # a long absolute path names its file by the last parts
        ("check again", "Bash: tail -20 /tmp/claude-1000/-home-ann-projects-shop/tasks/b1.output",
         "Check again — tail -20 …/tasks/b1.output"),
        # a label with an object of its own keeps to the person's words
        ("fix the flaky login test", "Read tests/test_login.py", "Fix the flaky login test"),
        ("请修复登录页面的错误", "Read web/login.tsx", "请修复登录页面的错误"),
    ],
)  # fmt: skip
def test_a_label_that_names_nothing_says_what_it_is_about(
    prompt: str, work: str, label: str
) -> None:
    assert request_label(prompt, work) == label


def test_a_request_that_names_nothing_is_labelled_by_the_work_through_the_engine(
    settings: Settings,
) -> None:
    s = Session(settings)
    s.turn("do it again", "Bash")
    assert list(s.tasks()) == ["Do it again — ping -c1 10.0.0.1"]
