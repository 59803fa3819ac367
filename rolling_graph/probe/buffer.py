"""The buffer of turns since the last successful probe: what the person said, what the agent
answered and the tools' lines, per turn, in the session's ``probe_buffer`` state (callers hold
the session lock). The runner builds requests from it and drops the turns a probe covered;
the render plugin reads the names its tool lines used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BUFFER_STATE = "probe_buffer"
MAX_BUFFER_TURNS = 16  # a probe that keeps failing must not let the buffer grow without end
MAX_TEXT = 8_000  # per buffered field; the prompt renderer cuts further
MAX_TOOLS = 40
MAX_NAMES = 120  # per turn, names used by its tool calls


def _empty() -> dict[str, Any]:
    return {"seq": 0, "turns": []}


def _valid(buf: Any) -> dict[str, Any]:
    if not isinstance(buf, dict) or not isinstance(buf.get("turns"), list):
        return _empty()
    return buf


def load_buffer(store: Any, session_id: str) -> dict[str, Any]:
    """The session's buffer, the caller's to change."""
    return _valid(store.read_state(session_id, BUFFER_STATE, None))


def peek_buffer(store: Any, session_id: str) -> dict[str, Any]:
    """The session's buffer to read only (the store may hand out the value it holds)."""
    return _valid(store.peek_state(session_id, BUFFER_STATE, None))


def _update_buffer(store: Any, session_id: str, change: Callable[[dict[str, Any]], Any]) -> Any:
    """Change the buffer where the store holds it (JSON values only) and write it back;
    returns what ``change`` returned."""
    result: list[Any] = []

    def fix(buf: Any) -> dict[str, Any]:
        buf = _valid(buf)
        result.append(change(buf))
        return buf

    store.update_state(session_id, BUFFER_STATE, fix, None)
    return result[0]


def _entry(buf: dict[str, Any], turn: int) -> dict[str, Any]:
    turns = buf["turns"]
    if not turns or turns[-1].get("turn") != turn:
        buf["seq"] = int(buf.get("seq", 0)) + 1
        turns.append({"seq": buf["seq"], "turn": turn, "user": "", "assistant": "", "tools": []})
        del turns[:-MAX_BUFFER_TURNS]
    return turns[-1]


def _append_text(old: str, new: str) -> str:
    joined = f"{old}\n{new}" if old else new
    return joined[-MAX_TEXT:]


def buffer_prompt(store: Any, session_id: str, turn: int, text: str) -> None:
    """Record a user prompt (``text`` must already be redacted)."""

    def change(buf: dict[str, Any]) -> None:
        e = _entry(buf, turn)
        e["user"] = _append_text(e["user"], text)

    _update_buffer(store, session_id, change)


def buffer_assistant(store: Any, session_id: str, turn: int, text: str) -> None:
    """Record assistant text (redacted) against the turn it answered."""

    def change(buf: dict[str, Any]) -> None:
        e = _entry(buf, turn)
        e["assistant"] = _append_text(e["assistant"], text)

    _update_buffer(store, session_id, change)


def buffer_tool(
    store: Any, session_id: str, turn: int, digest: str, names: list[str] | None = None
) -> None:
    """Record one line of tool activity (redacted), and the names its input used, in order
    (for :mod:`rolling_graph.render.in_play`; the digest keeps only a few)."""

    def change(buf: dict[str, Any]) -> None:
        e = _entry(buf, turn)
        if digest not in e["tools"][-3:]:  # pre and post of one call, repeated reads
            e["tools"] = (e["tools"] + [str(digest)])[-MAX_TOOLS:]
        if names:
            e["names"] = ([*e.get("names", []), *map(str, names)])[-MAX_NAMES:]

    _update_buffer(store, session_id, change)


def consume_buffer(store: Any, session_id: str, upto_seq: int) -> None:
    """Drop the turns a probe covered, keeping the names they used (for
    :func:`rolling_graph.render.in_play.names_in_play`).
    A free probe standing in beside a paid backend only moves its own cursor instead
    (:func:`advance_free_cursor`): the next paid probe still reads them."""
    from rolling_graph.render.in_play import RECENT_NAMES, in_play, merge_names

    def change(buf: dict[str, Any]) -> None:
        done = [t for t in buf["turns"] if int(t.get("seq", 0)) <= upto_seq]
        buf["turns"] = [t for t in buf["turns"] if int(t.get("seq", 0)) > upto_seq]
        kept = buf.get("recent_names") if isinstance(buf.get("recent_names"), list) else []
        buf["recent_names"] = merge_names(in_play(done), [str(n) for n in kept], RECENT_NAMES)
        said = [str(t["assistant"]) for t in done if t.get("assistant")]
        if said:  # what the next prompt answers, though its turn is gone, and the one before
            last = buf.get("last_assistant")
            buf["earlier_assistant"] = said[-2] if len(said) > 1 else last or ""
            buf["last_assistant"] = said[-1]

    _update_buffer(store, session_id, change)


def advance_free_cursor(store: Any, session_id: str, upto_seq: int) -> None:
    def change(buf: dict[str, Any]) -> None:
        buf["free_seq"] = max(int(buf.get("free_seq", 0)), upto_seq)

    _update_buffer(store, session_id, change)


def count_paid_call(store: Any, session_id: str) -> int:
    """A paid call was made (success or not): the session cap counts it."""

    def change(buf: dict[str, Any]) -> int:
        buf["paid_calls"] = n = int(buf.get("paid_calls", 0)) + 1
        return n

    return int(_update_buffer(store, session_id, change))
