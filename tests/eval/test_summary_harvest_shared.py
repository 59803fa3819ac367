"""On every shared transcript with a compaction whose summary the readers yield: the graph
just after the event that read the summary holds its pending tasks as open task nodes and its
current work as the task in progress (replayed with the offline probe; ../shared/data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.transcripts import detect_format
from tests.eval.harvest_replay import boundaries, held
from tests.shared_data import manifest_rows

ROWS = [
    r
    for r in manifest_rows()
    # a Claude Code export shows the compaction but not its summary
    if (r.compactions or 0) > 0
    and r.path.is_file()
    and detect_format(r.path) not in (None, "claude-code-export")
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name[-40:] for r in ROWS])
def test_the_graph_after_each_summary_holds_its_tasks_and_current_work(
    row: object, tmp_path: Path
) -> None:
    from tests.shared_data import require_shared_data

    require_shared_data()
    seen = 0
    for b in boundaries(row.path, tmp_path):  # type: ignore[attr-defined]
        seen += 1
        got, current = held(b)
        assert b.record, f"{b.file} #{b.index}: the summary was not harvested"
        # an item about the person ("The user may want to verify …") is a note, not a task;
        # there is at most one in any summary of these transcripts
        notes = b.record.get("notes", 0)
        assert notes <= 1 and got + notes == len(b.pending), (b.file, b.index, b.pending, b.record)
        if b.current:
            assert current, (b.file, b.index, b.current, b.record)
    if not seen:
        pytest.skip(f"{row.name}: its compaction carries no summary text")  # type: ignore[attr-defined]
