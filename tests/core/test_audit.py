"""The audit log (rolling_graph.core.audit): a crash mid-append loses that record only."""

from __future__ import annotations

from pathlib import Path

from rolling_graph.core.audit import AuditLog


def test_a_record_after_a_torn_line_is_kept(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append({"type": "turn", "turn": 1})
    with log.path.open("ab") as fh:  # a SIGKILL tore the next write: no newline at the end
        fh.write(b'{"type":"patch","status":"applied","applied":[{"op":"ad')
    log.append({"type": "turn", "turn": 2})
    log.append({"type": "turn", "turn": 3})
    assert [r["turn"] for r in log.records()] == [1, 2, 3]
    # the torn line stays apart, unreadable; every line written whole is readable
    assert log.path.read_bytes().count(b"\n") == 4


def test_whole_lines_get_no_blank_line_between(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    for turn in range(3):
        log.append({"type": "turn", "turn": turn})
    assert b"\n\n" not in log.path.read_bytes()
    assert len(log.records_from(0)) == 3
