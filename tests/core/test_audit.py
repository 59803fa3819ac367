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


def test_records_holding_a_word_are_those_of_every_record_that_holds_it(tmp_path: Path) -> None:
    from rolling_graph.core.hotstore.write_back import _HeldAuditLog

    log = _HeldAuditLog(tmp_path / "audit.jsonl")
    log.append({"type": "patch", "status": "rejected", "error": "bad op"})
    log.append({"type": "patch", "status": "applied", "ops": ["no"]})
    log.append({"type": "turn", "turn": 2, "note": ["x", {"why": "rejected here"}]})
    log.append({"type": "patch", "status": "applied", "label": "Ünïcode"})
    log.write_held()
    with log.path.open("ab") as fh:  # another writer's escapes: still a "rejected" status
        fh.write(b'{"type":"patch","status":"\\u0072ejected"}\n{"type":"pat')
    log.append({"type": "patch", "status": "rejected"})  # held: written before reading

    def holds(rec: object) -> bool:
        if isinstance(rec, dict):
            return any(holds(v) for v in rec.values())
        if isinstance(rec, list):
            return any(holds(v) for v in rec)
        return isinstance(rec, str) and "rejected" in rec

    every = list(log.records())
    assert [r for r in every if holds(r)] == list(log.records(holding="rejected"))
    assert [r["status"] for r in log.records(holding="rejected") if "status" in r] == [
        "rejected",
        "rejected",
        "rejected",
    ]
    assert list(log.records(holding="")) == every and len(every) == 6
