"""Graduation (criteria, drafts, review through the CLI) and seeding, on both backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.core.hotstore import HotStore
from rolling_graph.warm import open_store
from rolling_graph.warm.graduation import archive_review, template_draft
from rolling_graph.warm.reconcile import Reconciler
from rolling_graph.warm.seed import is_correction, parse_memories, seed

from ._hot import edge_op, hot_session, node_op, triangle

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def warm(settings: Any) -> Any:
    return open_store(settings.warm, Path(settings.home))


def reconcile_sessions(settings: Any, n: int, ops: list[dict[str, Any]]) -> list[list[str]]:
    rec = Reconciler(settings, HotStore(Path(settings.home)))
    flagged = []
    for i in range(n):
        sess = hot_session(rec.hot, f"g{i}", ops)
        result = rec.flush(sess, final=True, now=T0 + timedelta(hours=i))
        assert result.status == "applied"
        flagged.append(result.flagged)
    rec.close()
    return flagged


# --------------------------------------------------------------------------- graduation


def test_graduation_criteria_flag_at_the_third_session(warm_settings: Any) -> None:
    flagged = reconcile_sessions(warm_settings, 4, triangle())
    # alpha: 3 sessions, high weight, 2 neighbours → flagged once; beta/gamma have 1 edge.
    assert flagged == [[], [], ["alpha"], []]
    with warm(warm_settings) as w:
        (draft,) = w.list_drafts(scope="proj")
        assert draft.node_id == "alpha" and draft.status == "pending"
        assert draft.draft.startswith("- **Alpha**: The alpha service.")
        assert "Related:" in draft.draft and "(seen in 3 sessions; project)" in draft.draft


def test_graduation_needs_every_criterion(warm_settings: Any) -> None:
    low = [
        node_op("low", 0.3),
        node_op("x", 0.9),
        node_op("y", 0.9),
        edge_op("low", "uses", "x"),
        edge_op("low", "uses", "y"),
    ]
    lonely = [node_op("lonely", 0.95), node_op("z", 0.9), edge_op("lonely", "uses", "z")]
    flagged = reconcile_sessions(warm_settings, 3, low + lonely)
    assert flagged == [[], [], []]  # low weight; only one edge
    with warm(warm_settings) as w:
        assert w.list_drafts(scope="proj") == []


def test_template_draft_is_deterministic() -> None:
    from rolling_graph.warm.records import WarmEdge, WarmNode

    node = WarmNode("a", "Alpha", "technical", 0.8, summary="Does things", sessions_seen=4)
    edges = [WarmEdge("a", "uses", "b", 0.5), WarmEdge("c", "informs", "a", 0.9)]
    text = template_draft(node, edges, {"b": "Beta", "c": "Gamma"})
    assert text == (
        "- **Alpha**: Does things. Related: Gamma informs it; uses Beta."
        " (seen in 4 sessions; technical)"
    )
    assert template_draft(node, list(reversed(edges)), {"b": "Beta", "c": "Gamma"}) == text


# --------------------------------------------------------------------------- review (CLI)


def _three_drafts(settings: Any) -> None:
    ops: list[dict[str, Any]] = []
    for p in ("a-", "b-", "c-"):
        ops += triangle(p)
    reconcile_sessions(settings, 3, ops)


def test_review_approve_edit_reject_through_the_cli(warm_settings: Any) -> None:
    _three_drafts(warm_settings)
    runner = CliRunner()
    listed = runner.invoke(cli, ["review", "--list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert [d["node_id"] for d in json.loads(listed.output)] == ["a-alpha", "b-alpha", "c-alpha"]

    ok = runner.invoke(
        cli,
        [
            "review",
            "--approve",
            "a-alpha",
            "--reject",
            "c-alpha",
            "--edit",
            "b-alpha",
            "--text",
            "- B matters",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "a-alpha: approved" in ok.output and "c-alpha: rejected" in ok.output
    assert "b-alpha: edited" in ok.output

    memory = Path(warm_settings.home) / "MEMORY.md"
    text = memory.read_text()
    assert "**A Alpha**" in text and "- B matters" in text and "C Alpha" not in text
    # One-way door: a reviewed draft cannot be reviewed again, and nothing is appended twice.
    again = runner.invoke(cli, ["review", "--approve", "a-alpha"])
    assert again.exit_code != 0 and "one-way" in again.output
    assert memory.read_text() == text

    stats = runner.invoke(cli, ["review", "--stats", "--json"])
    doc = json.loads(stats.output)
    assert (doc["approved"], doc["edited"], doc["rejected"], doc["pending"]) == (1, 1, 1, 0)
    with warm(warm_settings) as w:
        drafts = {d.node_id: d for d in w.list_drafts(scope="proj")}
        assert drafts["b-alpha"].final_text == "- B matters"
        assert all(d.reviewed_at is not None for d in drafts.values())


def test_review_interactive_loop_and_flat_memory_path(
    warm_settings: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    _three_drafts(warm_settings)
    flat = tmp_path / "notes" / "flat.md"
    monkeypatch.setenv("ROLLING_GRAPH_FLAT_MEMORY", str(flat))
    monkeypatch.setattr("click.edit", lambda text=None, **kw: "- edited in the editor\n")
    out = CliRunner().invoke(cli, ["review"], input="a\ne\nr\n")
    assert out.exit_code == 0, out.output
    lines = flat.read_text().splitlines()
    assert lines[0] == "# Memory" and lines[-2].startswith("- **A Alpha**")
    assert lines[-1] == "- edited in the editor"
    stats = json.loads(CliRunner().invoke(cli, ["review", "--stats", "--json"]).output)
    assert (stats["approved"], stats["edited"], stats["rejected"]) == (1, 1, 1)


def test_review_plain_text_list_stats_and_archive(warm_settings: Any) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["review"]).output.strip() == "no pending drafts"
    assert runner.invoke(cli, ["review", "--list"]).output.strip() == "no pending drafts"
    archive = runner.invoke(cli, ["review", "--archive"])
    assert archive.exit_code == 0 and "no anchors at their floor" in archive.output
    _three_drafts(warm_settings)
    listed = runner.invoke(cli, ["review", "--list"]).output.splitlines()
    assert [line.split(":", 1)[0] for line in listed] == ["a-alpha", "b-alpha", "c-alpha"]
    assert all("**" in line for line in listed)  # the template draft's bold label
    runner.invoke(cli, ["review", "--approve", "a-alpha", "--reject", "b-alpha"])
    stats = runner.invoke(cli, ["review", "--stats"]).output.strip()
    assert stats == "approved 1, edited 0, rejected 1, pending 1 (graduated 50% of reviewed)"
    missing = runner.invoke(cli, ["review", "--edit", "nope", "--text", "x"])
    assert missing.exit_code != 0 and "no draft for 'nope'" in missing.output


# --------------------------------------------------------------------------- seeding


CLAUDE_MD = """# Project notes

Some prose that is not a memory.

## Conventions
- Use uv, not pip
- Tests live under `tests/`
* Never commit secrets
1. Prefer small commits

```sh
- not a bullet: inside a code block
```

## People
- Dana owns the billing service
- Actually, the staging DB is `stage-2` now
"""


def test_parse_markdown_and_correction_rule() -> None:
    memories = parse_memories(CLAUDE_MD)
    texts = [m.text for m in memories]
    assert texts == [
        "Use uv, not pip",
        "Tests live under tests/",
        "Never commit secrets",
        "Prefer small commits",
        "Dana owns the billing service",
        "Actually, the staging DB is stage-2 now",
    ]
    flags = [is_correction(t) for t in texts]
    assert flags == [True, False, True, False, False, True]
    assert is_correction("Don't mock the database") and is_correction("use X instead of Y")
    assert not is_correction("Notes about the release process")


def test_seed_markdown_jsonl_idempotent(warm_settings: Any, tmp_path: Path) -> None:
    md = tmp_path / "CLAUDE.md"
    md.write_text(CLAUDE_MD)
    jl = tmp_path / "memories.jsonl"
    jl.write_text(
        json.dumps({"text": "The API rate limit is 100 rps", "label": "API rate limit"})
        + "\n"
        + json.dumps({"text": "Do not deploy on Fridays", "domain": "project"})
        + "\nnot json\n"
    )
    runner = CliRunner()
    first = runner.invoke(cli, ["seed", str(md), "--json"])
    assert first.exit_code == 0, first.output
    doc = json.loads(first.output)
    assert (doc["memories"], doc["nodes"], doc["corrections"], doc["inserted"]) == (6, 6, 3, 6)
    again = json.loads(runner.invoke(cli, ["seed", str(md), "--json"]).output)
    assert again["applied"] is False and again["inserted"] == 0
    second = json.loads(runner.invoke(cli, ["seed", str(jl), "--json"]).output)
    assert (second["memories"], second["corrections"], second["inserted"]) == (2, 1, 2)
    with warm(warm_settings) as w:
        counts = w.counts(scope="proj")
        assert counts.nodes == counts.anchors == 8
        nodes = w.get_nodes(
            ["never-commit-secrets", "tests-live-under-tests", "api-rate-limit"], scope="proj"
        )
        never = nodes["never-commit-secrets"]
        assert never.anchor and never.floor == 0.2 and never.kind == "correction"
        assert never.weight == 0.8  # high-weight anchor
        plain = nodes["tests-live-under-tests"]
        assert plain.anchor and plain.weight == 0.4 and plain.domain == "technical"
        assert nodes["api-rate-limit"].label == "API rate limit"
        assert never.sessions_seen == 1  # seeding twice is not a second session
    # A grown file adds only the new memory.
    md.write_text(CLAUDE_MD + "- Releases happen on Tuesdays\n")
    grown = json.loads(runner.invoke(cli, ["seed", str(md), "--json"]).output)
    assert grown["applied"] is True and grown["inserted"] == 1
    with warm(warm_settings) as w:
        assert (
            w.get_nodes(["never-commit-secrets"], scope="proj")[
                "never-commit-secrets"
            ].sessions_seen
            == 1
        )


def test_anchors_at_floor_for_six_weeks_are_flagged_for_archive(
    warm_settings: Any, tmp_path: Path
) -> None:
    md = tmp_path / "MEM.md"
    md.write_text("- Old habit that nobody uses\n- Never skip the linter\n")
    with warm(warm_settings) as w:
        seed(w, md, scope="proj", now=T0)
        assert archive_review(w, scope="proj", now=T0 + timedelta(weeks=6)) == []
        # 0.4 reaches the 0.2 floor after 30·ln 2 ≈ 21 days; 6 weeks later it is flagged.
        later = T0 + timedelta(days=21) + timedelta(weeks=6, days=1)
        flagged = [n.id for n in archive_review(w, scope="proj", now=later)]
        assert flagged == ["old-habit-that-nobody-uses"]
        expected = {n.id for n in archive_review(w, scope="proj")}  # wall time, as the CLI
    out = CliRunner().invoke(cli, ["review", "--archive", "--json"])
    assert out.exit_code == 0, out.output
    assert {n["id"] for n in json.loads(out.output)} == expected
