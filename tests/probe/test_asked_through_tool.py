"""A question the agent asked through AskUserQuestion is part of what it said: when the person
dismisses the tool and types "2" instead, option 2 of that question is the decision. Replayed
from an invented Claude Code transcript, and the live feed's dict form."""

from __future__ import annotations

import json
from pathlib import Path

from rolling_graph.eval.replay import Replayer
from rolling_graph.observe.digest import asked_text

ASK = {
    "questions": [
        {
            "question": "Where should the sync job keep its state?",
            "header": "State",
            "options": [
                {"label": "Redis hash", "description": "fast, lost on flush"},
                {"label": "Postgres table", "description": "durable, one migration"},
                {"label": "Local JSON file", "description": "simplest"},
            ],
            "multiSelect": False,
        }
    ]
}


def _line(n: int, role: str, content: object) -> str:
    msg: dict[str, object] = {"role": role, "content": content}
    if role == "assistant":
        msg.update(model="claude-opus-4-6", id=f"msg_{n}", type="message")
    return json.dumps(
        {
            "type": role,
            "uuid": f"u{n}",
            "sessionId": "ask-1",
            "cwd": "/tmp/proj",
            "timestamp": f"2026-03-12T14:{n:02d}:00.000Z",
            "message": msg,
        }
    )


def test_asked_text_numbers_the_first_questions_options() -> None:
    text = asked_text(ASK)
    assert text.splitlines()[0] == "Where should the sync job keep its state?"
    assert "2. Postgres table — durable, one migration" in text
    assert asked_text({"questions": []}) == "" and asked_text("nothing") == ""


def test_a_typed_number_picks_the_option_of_the_dismissed_tool(tmp_path: Path) -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "AskUserQuestion", "input": ASK}
    dismissed = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "The user doesn't want to proceed with this tool use.",
        "is_error": True,
    }
    lines = [
        _line(1, "user", "add a nightly sync job for the vendor catalogue"),
        _line(2, "assistant", [{"type": "text", "text": "One question first."}, use]),
        _line(3, "user", [dismissed]),
        _line(4, "assistant", [{"type": "text", "text": "Sure, which one do you want?"}]),
        _line(5, "user", "2"),
        _line(6, "assistant", [{"type": "text", "text": "Postgres it is."}]),
    ]
    path = tmp_path / "ask.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Replayer(tmp_path / "out", probe="offline") as rp:
        summ = rp.replay_file(path)
        rp.finish()
    graph = json.loads((tmp_path / "out" / "graphs" / f"{summ.session_id}.json").read_text())
    decisions = [n["label"] for n in graph["nodes"].values() if n.get("kind") == "decision"]
    assert any("Postgres table" in d for d in decisions), decisions


def test_the_live_feed_dict_form_is_read_too() -> None:
    from types import SimpleNamespace

    from rolling_graph.pipeline.default_plugins.probe_plugin import _assistant_texts

    ctx = SimpleNamespace(
        transcript_events=[
            {"type": "AssistantText", "text": "One question first."},
            {"type": "ToolUse", "name": "AskUserQuestion", "input": ASK},
            {"type": "ToolUse", "name": "Bash", "input": {"command": "ls"}},
        ]
    )
    texts = _assistant_texts(ctx)  # type: ignore[arg-type]
    assert texts[0] == "One question first." and "3. Local JSON file — simplest" in texts[1]
    assert len(texts) == 2
