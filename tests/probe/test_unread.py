"""Prompts in another language: counted as prompts the language rules could not read, in the
probe's rationale, in ``stats`` and in the replay summary; the rest of the pipeline runs on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.cli.stats_cmds import SessionStats
from rolling_graph.probe.offline import build_patch
from rolling_graph.probe.offline.unread import count_in, note, readable
from tests.probe.conftest import make_request

SAMPLE = Path(__file__).resolve().parents[2] / "transcripts" / "newsletter-signup.jsonl"


@pytest.mark.parametrize(
    "text",
    ["我希望做一个便签小窗口", "je veux utiliser Redis pour le cache", "Bitte mach den Test grün"],
)
def test_another_language_is_not_read(text: str) -> None:
    assert not readable(text)


@pytest.mark.parametrize(
    "text", ["use Redis", "2", "fix the bug in the parser", "src/app.py:12", "yes, the second"]
)
def test_english_and_bare_names_are_read(text: str) -> None:
    assert readable(text)


def test_the_count_travels_in_the_rationale() -> None:
    assert count_in(f"offline rules: 2 new nodes{note(3)}") == 3
    assert count_in("offline rules: 2 new nodes") == 0
    assert note(0) == ""


def test_the_offline_probe_reports_what_it_could_not_read_and_still_finds_names() -> None:
    patch = build_patch(make_request("je veux utiliser Redis pour le cache de PostgreSQL"))
    assert count_in(patch["rationale"]) == 1
    labels = {
        op["value"]["label"]
        for op in patch["ops"]
        if op["op"] == "add" and op["path"].startswith("/nodes/") and op["path"].count("/") == 2
    }
    assert {"Redis", "PostgreSQL"} <= labels, labels


def test_stats_add_up_the_unread_prompts() -> None:
    st = SessionStats("s")
    st.add({"type": "probe", "backend": "offline", "rationale": f"x{note(2)}"})
    st.add({"type": "probe", "backend": "offline", "rationale": "x"})
    assert st.unread == 2


def test_the_replay_summary_counts_them(tmp_path: Path) -> None:
    from rolling_graph.eval.replay import Replayer

    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    first = next(i for i, x in enumerate(lines) if '"content": "I want to add' in x)
    doc = json.loads(lines[first])
    doc["message"]["content"] = "Je voudrais ajouter une inscription à la lettre d'information."
    lines[first] = json.dumps(doc)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Replayer(tmp_path / "out", probe="offline") as rp:
        summ = rp.replay_file(path)
        rp.finish()
    assert summ.unread_prompts == 1
    assert summ.as_dict()["unread_prompts"] == 1
    assert summ.user_turns > 1 and summ.nodes > 0  # the rest of the session was replayed
