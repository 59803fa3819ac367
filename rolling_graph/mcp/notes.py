"""``memory_note``: the agent records a decision, a correction, a task, a person, a deadline or
a constraint in its memory (issue 28).

Runs in the worker (op ``recall``) like the other tools, under the session's locks. A note is a
small typed input, validated here, turned into a patch by
:class:`~rolling_graph.probe.model_writes.Writes` and applied by the patch engine with the audit
source ``agent``. It is refused, with a clear error for the agent, when it reads as an
instruction to the agent or holds a secret (:mod:`rolling_graph.privacy.injection`), or when the turn's
notes are spent. A decision or correction the person's own words (this session's prompts) do
not hold is kept as the agent's claim, never as a decision in force. A note that repeats what
the graph holds strengthens that node.
"""

from __future__ import annotations

from typing import Any

from rolling_graph.mcp.lookup import RecallError

KINDS = ("decision", "correction", "task", "person", "deadline", "constraint")
STATUSES = ("pending", "in_progress", "completed", "blocked")
TEXT_FIELDS = ("text", "replaces", "about", "due", "role")
MAX_TEXT = 200
MAX_SHORT = 80
RATE_STATE = "agent_notes"
PROMPT_ID = "memory_note.v1"


def _field(args: dict[str, Any], name: str, limit: int, required: bool = False) -> str:
    value = args.get(name)
    if value is None or value == "":
        if required:
            raise RecallError(f"{name} is empty: say what to record in a short sentence")
        return ""
    if not isinstance(value, str):
        raise RecallError(f"{name} must be a string")
    value = " ".join(value.split())
    if len(value) > limit:
        raise RecallError(f"{name} is {len(value)} characters, over {limit}: say it shorter")
    return value


def parse_note(args: dict[str, Any]) -> dict[str, str]:
    """The note's fields, checked: type, size, and nothing an agent must not store."""
    from rolling_graph.privacy.injection import instruction, secret

    kind = args.get("kind")
    if kind not in KINDS:
        raise RecallError(f"kind must be one of {', '.join(KINDS)}")
    note = {"kind": str(kind), "text": _field(args, "text", MAX_TEXT, required=True)}
    for name in ("replaces", "about"):
        note[name] = _field(args, name, MAX_TEXT)
    for name in ("due", "role"):
        note[name] = _field(args, name, MAX_SHORT)
    status = args.get("status") or ""
    if status and status not in STATUSES:
        raise RecallError(f"status must be one of {', '.join(STATUSES)}")
    note["status"] = str(status)
    if kind == "correction" and not note["replaces"]:
        raise RecallError("a correction says what it replaces: give replaces")
    if kind == "deadline" and not note["due"]:
        raise RecallError("a deadline needs due (a date or a day)")
    for name in TEXT_FIELDS:
        if note.get(name) and secret(note[name]):
            raise RecallError(
                f"refused: {name} looks like it holds a secret (a key, token or password); "
                "secrets are never stored in memory. Record the fact without the value."
            )
    for name in TEXT_FIELDS:
        why = instruction(note[name]) if note.get(name) else None
        if why:
            raise RecallError(
                f"refused: {name} reads as an instruction to the agent ({why}). Memory keeps "
                "what the person decided or asked for, in their terms, not orders to an agent."
            )
    return note


def _spend(engine: Any, sid: str, turn: int) -> None:
    """One note of this turn's allowance, or a refusal when it is spent."""
    per_turn = int(engine.settings.agent_notes_per_turn)
    state = engine.store.read_state(sid, RATE_STATE, {})
    count = int(state.get("count", 0)) if state.get("turn") == turn else 0
    if count >= per_turn:
        raise RecallError(
            f"refused: {per_turn} notes already this turn; record only what the person "
            "decided, corrected or asked for, and again after their next message"
        )
    engine.store.write_state(sid, RATE_STATE, {"turn": turn, "count": count + 1})


def _target(writes: Any, about: str) -> str | None:
    """The task or decision a deadline or constraint binds: the one ``about`` names, else the
    task in progress."""
    if about:
        return writes.similar(about, ("task", "decision", "correction", "preference"))
    from rolling_graph.observe.observers import active_task

    node = active_task(writes.graph)
    return node.id if node is not None else None


def _write(writes: Any, note: dict[str, str], said: list[str]) -> tuple[str | None, str]:
    """Add the note to ``writes``; (node id, how it was kept)."""
    from rolling_graph.privacy.injection import supported, task_refusal

    kind, text = note["kind"], note["text"]
    reason = f"the agent's note ({kind})"
    why = task_refusal(text, said) if kind in ("task", "person", "deadline") else None
    if why:
        raise RecallError(f"refused: {why}; a decision is recorded as kind decision")
    if kind in ("decision", "correction", "constraint") and not supported(text, said):
        return writes.claim(text, reason), "claim"
    if kind in ("decision", "correction"):
        if kind == "decision":
            return writes.decision(text, reason, note["replaces"]), "decision"
        return writes.correction(text, reason, note["replaces"]), "correction"
    if kind == "task":
        due = note["due"] or None
        return writes.task(text, note["status"] or "pending", reason, due), "task"
    if kind == "person":
        return writes.person(text, reason, note["role"]), "person"
    target = _target(writes, note["about"] or (text if kind == "deadline" else ""))
    if target is None:
        raise RecallError(f"a {kind} binds a task or decision: name it in about")
    if kind == "deadline":
        writes.plan.set_attrs(target, {"due": note["due"]}, reason)
    else:
        writes.plan.set_attrs(target, {"constraint": text[:MAX_SHORT]}, reason)
    return target, kind


def _answer(note: dict[str, str], nid: str | None, how: str, graph: Any, new: bool) -> str:
    label = graph.nodes[nid].label if nid and nid in graph.nodes else note["text"]
    if how == "claim":
        return (
            f"Kept as your claim, not as a decision in force: '{label}' [id {nid}]. The "
            "person's own words in this session do not say it; if they decided it, record it "
            "after they say so."
        )
    verb = "Recorded" if new else "Already in memory, strengthened"
    text = f"{verb}: {how} '{label}' [id {nid}]."
    old = [
        e.target for e in graph.edges.values() if e.source == nid and e.relationship == "supersedes"
    ]
    if old and old[-1] in graph.nodes:
        text += f" It supersedes '{graph.nodes[old[-1]].label}'."
    return text


def note(engine: Any, sid: str | None, args: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    """The worker's side of ``memory_note``."""
    if not engine.settings.agent_notes:
        raise RecallError("memory_note is turned off here (ROLLING_GRAPH_AGENT_NOTES=0)")
    parsed = parse_note(args)
    if sid is None:
        raise RecallError("no session yet in this project: nothing to note into")
    from rolling_graph.core.patch import PatchSource
    from rolling_graph.pipeline.default_plugins.harvest_plugin import person_words
    from rolling_graph.probe.model_writes import Writes

    said = person_words(engine.store, sid)
    with engine.locked_session(sid) as sess:
        _spend(engine, sid, sess.graph.turn)
        writes = Writes(sess.graph, "agent", max_ops=sess.params.limits.max_ops)
        nid, how = _write(writes, parsed, said)
        patch = writes.patch(f"memory_note ({parsed['kind']})")
        new = bool(nid and nid in writes.plan.new)
        if patch is not None:
            res = sess.apply(patch, PatchSource("agent", PROMPT_ID))
            if not res.applied:
                raise RecallError(f"the note could not be stored: {res.error}")
        sess.log_event({"type": "agent_note", "turn": sess.graph.turn, "kind": parsed["kind"]})
        sess.save()
        text = _answer(parsed, nid, how, sess.graph, new)
    return {"text": text, "data": {"id": nid, "kept_as": how, "new": new}}
