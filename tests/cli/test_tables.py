"""The shared table printer at a terminal's width: numbers whole, columns left out in their
documented order (and named), every format printing every value."""

from __future__ import annotations

import json
import re

import pytest

from rolling_graph.cli import tables
from rolling_graph.cli.replay_tables import REPLAY_COLUMNS
from rolling_graph.cli.tables import Table

ROWS = [
    {"file": f"a-rather-long-transcript-name-{i}.jsonl", "user_turns": 1234 * i,
     "tool_steps": 98765, "probes": 4321, "probe_rate_per_60": 61.25, "injections": 55555,
     "injected_tokens_max": 123456, "nodes": 7777, "edges": 88888, "rejected_patches": 3,
     "unread_prompts": 2,
     "events_per_second": 4567.8}
    for i in range(1, 4)
]  # fmt: skip


def _drawn(width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    tables._rich(Table("replay summary", REPLAY_COLUMNS, ROWS))
    return capsys.readouterr().out


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_terminal_table_fits_and_never_cuts_a_number(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    out = _drawn(width, monkeypatch, capsys)
    assert max(len(line) for line in out.splitlines()) <= width
    assert "…" not in out
    shown, _widths, dropped = tables.fit(Table("", REPLAY_COLUMNS, ROWS), width)
    numbers = set(re.findall(r"\d[\d.]*", out))
    for column in shown:
        if column.numeric:
            for row in ROWS:
                assert column.cell(row[column.key]) in numbers, (column.head, width)
    # Left out highest rank first, and the caption says which.
    ranks = [c.drop for c in dropped]
    assert ranks == sorted(ranks, reverse=True) and all(r > 0 for r in ranks)
    caption = " ".join(out.split())
    assert all(c.head in caption for c in dropped)


def test_at_80_columns_the_replay_table_leaves_out_only_droppable_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    shown, _w, dropped = tables.fit(Table("", REPLAY_COLUMNS, ROWS), 80)
    assert dropped and {c.key for c in shown} >= {"file", "user_turns", "probes", "nodes"}
    assert "left out at this width: ev/s" in " ".join(_drawn(80, monkeypatch, capsys).split())


def test_every_format_prints_every_value(capsys: pytest.CaptureFixture) -> None:
    t = Table("replay summary", REPLAY_COLUMNS, ROWS)
    for fmt in ("plain", "tsv", "markdown"):
        tables.emit([t], fmt)
        out = capsys.readouterr().out
        for row in ROWS:
            assert row["file"] in out and str(row["injected_tokens_max"]) in out, fmt
    tables.emit([t], "json")
    assert json.loads(capsys.readouterr().out)[0]["events_per_second"] == 4567.8
    tables.emit([t, Table("other", REPLAY_COLUMNS[:2], ROWS[:1])], "json")
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["replay summary", "other"] and len(doc["other"]) == 1
