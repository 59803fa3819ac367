"""Task lifecycle: at most one task in progress, and a task leaves that state for a reason.

Probes and observers set a task's ``status`` as they see it; this module keeps the statuses
honest across them, after every applied patch and every new turn (``HotSession``):

- **one in progress**: the task a patch just put in progress (the first, when one prompt asks
  for several) is the one; any other task in progress steps back;
- **a later request replaces it**: when that new task is the person's request (not a step of
  the agent's own todo list or plan), a task it replaces that the agent worked on (edited files
  for it, or ran its tests) is done; one nobody worked on is open (``pending``), waiting;
- **done when its tests pass after its edits**: recorded by the observer of the test run
  (``observers``), and **when the agent reports it done**: its todo list or task tools;
- **an answer asked for** ("give a json example", "explain how X happens", "look at the latest
  commit": ``attrs["asks"]``) is done when a later request replaces it, in progress or back
  to open by then: the agent answered in between;
- **idle**: a task in progress that nothing touched for ``task_idle_turns`` user turns is open,
  not in progress.

The agent's own todo items keep their word: they step back to ``pending``, never to done.
Changes are normalized ops, audited like any patch, so a rebuild reproduces them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rolling_graph.core.model import HotGraph, Node

IN_PROGRESS = "in_progress"
PENDING = "pending"
COMPLETED = "completed"
#: task sources that are the agent's own plan: a new one is a step, not a new request
AGENT_SOURCES = frozenset({"todo", "plan"})
SOURCE = "lifecycle"
#: "#12", "task 3", "task #4": the number of a task (the agent's task tools keep it as ``ref``)
_TASK_REF = re.compile(r"(?<![\w#])(?:#|\btask\s+#?)(\d{1,5})\b", re.I)


def task_reference(text: str) -> str | None:
    """The task a phrase refers to by number ("#12", "task 3"), as its ``ref`` ("#12")."""
    m = _TASK_REF.search(text)
    return f"#{m.group(1)}" if m else None


def referred_task(nodes: Iterable[Any], ref: str) -> str | None:
    """The id of the task whose ``ref`` is ``ref`` (nodes or the probe's views of them)."""
    return next(
        (n.id for n in nodes if n.kind == "task" and (n.attrs or {}).get("ref") == ref), None
    )


def status(node: Node) -> str:
    return (node.attrs or {}).get("status", "")


def task_states(graph: HotGraph) -> dict[str, str]:
    """Each task's status now (to compare with after a patch)."""
    return {n.id: status(n) for n in graph.nodes.values() if n.kind == "task"}


def started(graph: HotGraph, before: dict[str, str]) -> list[str]:
    """Tasks in progress now that were not before, in the order the patch touched them."""
    return [
        n.id
        for n in graph.nodes.values()
        if n.kind == "task" and status(n) == IN_PROGRESS and before.get(n.id) != IN_PROGRESS
    ]


def _superseded(graph: HotGraph) -> set[str]:
    return {e.target for e in graph.edges.values() if e.relationship == "supersedes"}


def edited_for(graph: HotGraph, task_id: str) -> bool:
    """Whether a file was edited while the task was in progress (the observers link it)."""
    for e in graph.edges.values():
        if e.source == task_id and e.relationship == "uses":
            target = graph.nodes.get(e.target)
            if target is not None and target.kind == "file" and _edits(target) > 0:
                return True
    return False


def _edits(node: Node) -> int:
    try:
        return int((node.attrs or {}).get("edits", "0") or 0)
    except ValueError:
        return 0


#: ``attrs["via"]`` of a task made because the agent went to work on the request
#: (:mod:`rolling_graph.probe.acted_request`): it was worked on from its first moment
ACTED = "acted"


#: ``attrs["asks"]`` of a task that asks the agent for an answer, not for a change
#: (:mod:`rolling_graph.probe.offline.intent`): the agent's reply does it
ANSWER = "answer"


def answered(node: Node) -> bool:
    """Whether the task asked for an answer (replaced by a later request, it was answered)."""
    return (node.attrs or {}).get("asks") == ANSWER


def worked_on(graph: HotGraph, node: Node) -> bool:
    """Whether the agent did something for the task: a test run, a file edited for it, or the
    work that made it a task (a request the agent acted on: reading to answer counts)."""
    attrs = node.attrs or {}
    return bool(attrs.get("tests")) or attrs.get("via") == ACTED or edited_for(graph, node.id)


def last_touch(graph: HotGraph, node: Node) -> int:
    """The latest turn the task or an edge it leads (a file edited for it) was active."""
    turns = [e.last_activated for e in graph.edges.values() if e.source == node.id]
    return max([node.last_activated, *turns])


def _set_status(node: Node, new: str) -> dict[str, Any]:
    return {
        "op": "replace",
        "path": f"/nodes/{node.id}/attrs",
        "value": {**(node.attrs or {}), "status": new},
    }


def _answered_while_waiting(
    graph: HotGraph, request: Node, ops: list[dict[str, Any]], why: list[str]
) -> None:
    """An answer asked for in an earlier turn that stepped back to open (an agent's todo item
    or an idle spell took its place) was answered all the same: a new request closes it too."""
    for n in graph.nodes.values():
        if (
            n.kind == "task"
            and status(n) == PENDING
            and answered(n)
            and n.last_activated < request.last_activated
        ):
            ops.append(_set_status(n, COMPLETED))
            why.append(f"done: answered, then replaced by the request '{request.label[:60]}'")


def settle(
    graph: HotGraph, new: list[str], idle_turns: int | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ops (and a reason each) that restore the rules after a change; ``new``: the tasks
    the change put in progress (``started``); ``idle_turns`` only when the turn advanced
    (nothing else makes a task idle)."""
    running = [n for n in graph.nodes.values() if n.kind == "task" and status(n) == IN_PROGRESS]
    if running:  # most patches leave none: the edges are not read for nothing
        gone = _superseded(graph)
        running = [n for n in running if n.id not in gone]
    if not running:
        return [], []
    ids = {n.id for n in running}
    fresh = [nid for nid in new if nid in ids]
    # ``running`` is in the graph's order: the later of two equally recent tasks wins
    keep = (
        graph.nodes[fresh[0]]
        if fresh
        else max(enumerate(running), key=lambda i_n: (i_n[1].last_activated, i_n[0]))[1]
    )
    request = bool(fresh) and (keep.attrs or {}).get("source") not in AGENT_SOURCES
    ops: list[dict[str, Any]] = []
    why: list[str] = []
    for n in running:
        if n.id == keep.id:
            continue
        own = (n.attrs or {}).get("source") in AGENT_SOURCES
        done = "worked on" if worked_on(graph, n) else "answered" if answered(n) else ""
        if request and n.id not in fresh and not own and done:
            ops.append(_set_status(n, COMPLETED))
            why.append(f"done: {done}, then replaced by the request '{keep.label[:60]}'")
        else:
            ops.append(_set_status(n, PENDING))
            why.append(f"open: '{keep.label[:60]}' is the task in progress")
    if request:
        _answered_while_waiting(graph, keep, ops, why)
    if idle_turns is not None and not fresh and graph.turn - last_touch(graph, keep) >= idle_turns:
        ops.append(_set_status(keep, PENDING))
        why.append(f"open: idle for {idle_turns} turns or more")
    return ops, why
