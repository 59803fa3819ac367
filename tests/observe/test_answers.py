"""A picked answer of the agent's question tool as a decision's label (rolling_graph.observe.
answers): the choice without a yes or no before it, a long option cut before its aside, never
mid-word nor after a word that needs another, a verb given the object only the question names;
the answer as said stays in the summary. Invented answers, then every English answer of the
shared transcripts against the label rules (rolling_graph.probe.offline.labels)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.eval.replay import Replayer
from rolling_graph.observe.answers import answer_label, headed
from rolling_graph.observe.observers import observe
from rolling_graph.probe.offline.labels import label_problems
from tests.probe.helpers import kinds
from tests.shared_data import manifest_rows, require_shared_data


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("Yes, migrate the fixtures", "Migrate the fixtures"),
        ("No — keep the old parser", "Keep the old parser"),
        ("Sure: use SQLite", "Use SQLite"),
        ("Yes", "Yes"),  # nothing after it: the answer itself
        ("SQLite, local file", "SQLite, local file"),
        (
            "One report per run (no email, only the dashboard) + a weekly digest",
            "One report per run",
        ),
        (
            "Keep the retry loop in the client and move the backoff settings to the shared config",
            "Keep the retry loop in the client and move the backoff",
        ),
        (
            "Rewrite the exporter on top of the streaming API for every one of the formats",
            "Rewrite the exporter on top of the streaming API",
        ),
    ],
)
def test_the_label_is_the_choice(answer: str, label: str) -> None:
    assert answer_label(answer) == label
    assert len(label) <= 60


def test_the_answer_as_said_stays_in_the_summary() -> None:
    sess = HotSession.in_memory("s")
    resp = (
        'User has answered your questions: "Migrate the fixtures to the new schema now?"='
        '"Yes, migrate the fixtures". You can now continue.'
    )
    sess.apply(observe(sess.graph, "AskUserQuestion", {}, resp), PatchSource("observer"))
    d = kinds(sess, "decision")["Migrate the fixtures"]
    assert (d.summary or "").startswith("answer to: Migrate the fixtures to the new schema now?")
    assert "Yes, migrate the fixtures" in (d.summary or "")


# The label rules read English: an answer in another script ("便签小窗口") is its own label.
def _english(label: str) -> bool:
    return any("a" <= c.lower() <= "z" for c in label)


def test_every_answer_of_the_shared_transcripts_reads_as_a_choice() -> None:
    data_dir = require_shared_data()
    rows = [
        r
        for r in manifest_rows(data_dir)
        if r.path.suffix == ".jsonl"
        and "AskUserQuestion" in r.path.read_text(encoding="utf-8", errors="replace")
    ]
    assert len(rows) >= 5  # the shared transcripts hold answers to check
    bad, answers = [], 0
    with tempfile.TemporaryDirectory() as tmp, Replayer(Path(tmp), probe="offline") as rp:
        for row in rows:
            rp.replay_file(row.path)
        for graph_file in (Path(tmp) / "graphs").glob("*.json"):
            graph = json.loads(graph_file.read_text(encoding="utf-8"))
            for node in graph["nodes"].values():
                if node.get("kind") == "decision" and (node.get("summary") or "").startswith(
                    "answer to:"
                ):
                    answers += 1
                    found = label_problems(node["label"]) if _english(node["label"]) else []
                    if found:
                        bad.append(f"{graph_file.name}: {node['label']!r} {found}")
    assert answers >= 10
    assert bad == []


@pytest.mark.parametrize(
    ("answer", "question", "label"),
    [
        (
            "Yes, reindex it",
            "Do you want me to drop and reindex the search table now? It takes a minute.",
            "Reindex the search table now",
        ),
        (
            "Yes, rewrite",
            "Should I rewrite the importer to stream rows, or patch the current one?",
            "Rewrite the importer to stream rows",
        ),
        ("Rewrite", "The importer reads everything into memory. Rewrite or patch?", "Rewrite"),
        ("Webhook URL", "Use a webhook URL or a bot token?", "Webhook URL"),
    ],
)
def test_a_verb_takes_the_object_only_the_question_names(
    answer: str, question: str, label: str
) -> None:
    assert answer_label(answer, question) == label


@pytest.mark.parametrize(
    ("label", "header", "headed_label"),
    [
        ("Webhook URL", "Discord", "Discord: Webhook URL"),
        ("1 detailed embed", "Notification", "Notification: 1 detailed embed"),
        ("Re-pair your YubiKey with macOS", "Re-pair YubiKey", "Re-pair your YubiKey with macOS"),
        ("Use SQLite for the cache", "SQLite", "Use SQLite for the cache"),
        ("便签小窗口", "形态", "形态: 便签小窗口"),
        ("Webhook URL", "", "Webhook URL"),
        ("Webhook URL", "A header far too long to be the tool's tag", "Webhook URL"),
    ],
)
def test_an_answer_takes_the_questions_header(label: str, header: str, headed_label: str) -> None:
    assert headed(label, header) == headed_label
    long = headed("Keep the retry loop in the client and move the backoff", "Retries")
    assert long.startswith("Retries: Keep the retry loop") and len(long) <= 60


def test_the_tool_input_gives_the_header() -> None:
    sess = HotSession.in_memory("s")
    inp = {
        "questions": [
            {
                "question": "How should the bot post?  Webhook URL or a bot token?",
                "header": "Discord",
                "options": [{"label": "Webhook URL"}, {"label": "Bot token"}],
            }
        ]
    }
    resp = (
        'User has answered your questions: "How should the bot post?  Webhook URL or a bot '
        'token?"="Webhook URL". You can now continue.'
    )
    sess.apply(observe(sess.graph, "AskUserQuestion", inp, resp), PatchSource("observer"))
    assert list(kinds(sess, "decision")) == ["Discord: Webhook URL"]


def test_a_question_with_quotes_of_its_own_finds_its_header() -> None:
    # The tool's reply quotes the question without escaping its own quotes, so the question
    # is read after the last of them: '"Saved links" toggle: where should it go?' comes back
    # as its end (Aley3567__cutesticky).
    sess = HotSession.in_memory("s")
    inp = {
        "questions": [{"question": '"Saved links" toggle: where should it go?', "header": "Toggle"}]
    }
    resp = (
        'User has answered your questions: ""Saved links" toggle: where should it go?"='
        '"Title bar icon". You can now continue.'
    )
    sess.apply(observe(sess.graph, "AskUserQuestion", inp, resp), PatchSource("observer"))
    assert list(kinds(sess, "decision")) == ["Toggle: Title bar icon"]
