"""``rolling-graph eval``: recovery at compaction boundaries and simulated cuts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.eval.evaluate import recovered, salient_terms, tail_tokens

RECALLS = ("block_recall", "recent_equal_recall", "recent_budget_recall")


@pytest.fixture(scope="module")
def evaluated(
    tmp_path_factory: pytest.TempPathFactory, samples: list[Path]
) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("eval")
    res = CliRunner().invoke(cli, ["eval", *map(str, samples), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "recovery at compaction boundaries" in res.output
    return out, json.loads((out / "eval.json").read_text())


def test_boundary_rows(evaluated: tuple[Path, dict[str, Any]]) -> None:
    out, doc = evaluated
    rows = doc["boundaries"]
    assert len(rows) == 1 and rows[0]["file"] == "newsletter-signup.jsonl"
    row = rows[0]
    assert row["target"] > 0
    for k in (*RECALLS, "summary_recall", "union_recall", "gain"):
        assert 0.0 <= row[k] <= 1.0, k
    assert row["summary_tokens"] > row["block_tokens"] > 0
    assert row["union_recall"] >= max(row["summary_recall"], row["block_recall"]) - 1e-9
    assert row["gain"] == pytest.approx(row["union_recall"] - row["summary_recall"])
    # the block measured is the one the replay injected on SessionStart(compact) (the other
    # samples have no compaction: theirs are simulated cuts)
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    block = next(
        r["injected"]
        for r in trace
        if r["event"] == "session_start"
        and r["source"] == "compact"
        and r["file"] == "newsletter-signup.jsonl"
    )
    assert estimate_tokens(block) == row["block_tokens"]
    avg = doc["boundary_averages"]
    assert avg["n"] == 1 and avg["block_recall"] == pytest.approx(row["block_recall"], abs=1e-4)


def test_the_addendum_after_the_summary_is_measured_apart(
    evaluated: tuple[Path, dict[str, Any]],
) -> None:
    from rolling_graph.render.addendum import HEAD

    out, doc = evaluated
    row = doc["boundaries"][0]
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    mine = [r for r in trace if r["file"] == "newsletter-signup.jsonl"]
    at = next(i for i, r in enumerate(mine) if r["source"] == "compact")
    # the first event after SessionStart(compact) read the harness's summary and added to it
    after = mine[at + 1]["injected"] or ""
    assert HEAD in after and HEAD not in (mine[at]["injected"] or "")
    addendum = after[after.index(HEAD) :]
    assert row["addendum_tokens"] == estimate_tokens(addendum) > 0
    assert row["union_addendum_recall"] >= row["union_recall"] - 1e-9
    assert row["block_addendum_recall"] >= row["block_recall"] - 1e-9
    assert 0.0 <= row["recent_addendum_recall"] <= 1.0
    assert all(r["addendum_tokens"] == 0 for r in doc["cuts"])  # no summary, no addendum


def test_simulated_cuts_only_without_compaction(evaluated: tuple[Path, dict[str, Any]]) -> None:
    _, doc = evaluated
    cuts = doc["cuts"]
    assert cuts and {c["file"] for c in cuts} == {"flaky-ci.jsonl"}
    assert [c["after_turn"] for c in cuts] == [10]  # 18 prompts, a cut every 10 turns
    for c in cuts:
        assert c["summary_recall"] is None
        for k in RECALLS:
            assert 0.0 <= c[k] <= 1.0
        assert 0 < c["block_tokens"] <= doc["settings"]["budget"]


def test_baseline_is_at_equal_tokens() -> None:
    texts = [
        f"message {i} mentions Bento and subscribers.py and more words here" for i in range(200)
    ]
    for n in (0, 1, 37, 169, 800):
        tail = tail_tokens(texts, n)
        assert estimate_tokens(tail) <= n + 1  # +1: the estimate rounds up
        assert estimate_tokens(tail) >= n - 1
    assert tail_tokens(texts, 5).endswith("here")


def test_salient_terms() -> None:
    text = (
        "Perfect. Now the form posts to /subscribe.\n"
        "- Looking at app/routes/subscribe.py the BentoClient calls add_subscriber for Priya.\n"
        "We moved from Resend to Bento."
    )
    terms = salient_terms(text)
    assert {"subscribe.py", "bentoclient", "add_subscriber", "priya", "resend", "bento"} <= terms
    assert not {"perfect", "now", "looking", "we"} & terms  # sentence-initial or stop words


def test_recovered_matches_whole_words() -> None:
    assert recovered({"api", "bento"}, "rapid bentonow") == set()
    assert recovered({"api", "bento"}, "the API, via Bento.") == {"api", "bento"}
    assert recovered({"subscribe.py"}, "see app/routes/subscribe.py:31") == {"subscribe.py"}


def test_each_person_gets_a_warm_store_of_their_own(
    samples: list[Path], tmp_path: Path, evaluated: tuple[Path, dict[str, Any]]
) -> None:
    """``person_of``: sessions of different people never share the person's own memories."""
    from rolling_graph.eval.evaluate import evaluate

    claude = [p for p in samples if p.name in ("newsletter-signup.jsonl", "flaky-ci.jsonl")]
    doc = evaluate(claude, tmp_path, person_of=lambda p: p.stem)
    people = sorted(d.name for d in (tmp_path / "people").iterdir())
    assert len(people) == 2 and all(
        (tmp_path / "people" / d / "trace.jsonl").exists() for d in people
    )
    for d in people:  # each replay started from an empty warm store: no session of the other's
        summary = json.loads((tmp_path / "people" / d / "summary.json").read_text())
        assert len(summary["sessions"]) == 1, summary
    _, together = evaluated
    assert {r["file"] for r in doc["boundaries"]} == {"newsletter-signup.jsonl"}
    assert {c["file"] for c in doc["cuts"]} == {c["file"] for c in together["cuts"]}


def test_a_subagent_transcript_is_left_out_of_the_measure(
    samples: list[Path], tmp_path: Path
) -> None:
    """A subagent's file (sidechain lines only) is no session: eval measures the others."""
    from rolling_graph.eval.evaluate import evaluate

    sub = tmp_path / "agent-acompact-1.jsonl"
    line = {"type": "user", "isSidechain": True, "timestamp": "2026-03-14T10:00:00Z",
            "sessionId": "sub", "message": {"role": "user", "content": "summarize"}}  # fmt: skip
    sub.write_text(json.dumps(line) + "\n")
    flaky = [p for p in samples if p.name == "flaky-ci.jsonl"]
    doc = evaluate([sub, *flaky], tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [s["file"] for s in summary["sessions"]] == ["flaky-ci.jsonl"]
    assert doc["cuts"] and {c["file"] for c in doc["cuts"]} == {"flaky-ci.jsonl"}
