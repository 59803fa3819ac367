"""The second development set (tests/fixtures/extraction/dev-2): fourteen sessions labelled
after the first set had been fitted, by labellers who write no rules (see its README). Rules may
be written against it; it shares no session with any other set and no repository with the frozen
held-out set, its labels point at their prompts, and the extraction keeps its floors on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.eval.extraction import KINDS, load_labels, replay_graphs, score
from tests.probe.helpers import assert_labels_point_at_prompts
from tests.shared_data import require_shared_data

EXTRACTION = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
DEV2 = EXTRACTION / "dev-2"
LABELS = load_labels(DEV2 / "labels.jsonl")
SESSIONS = json.loads((DEV2 / "sessions.json").read_text(encoding="utf-8"))

# recall / precision floors per kind, below the figures bench/extraction.py prints
FLOORS = {
    "decision": (0.35, 0.48),
    "correction": (0.05, None),
    "task": (0.60, 0.66),
}


def _files(folder: Path) -> set[str]:
    return {s["file"] for s in json.loads((folder / "sessions.json").read_text(encoding="utf-8"))}


def test_set_is_well_formed_and_apart() -> None:
    counts = {s["file"]: s["prompts"] for s in SESSIONS}
    assert len(counts) == len(SESSIONS) >= 12 and len(LABELS) >= 200
    for lab in LABELS:
        assert lab["file"] in counts and lab["kind"] in KINDS, lab
        assert 1 <= lab["turn"] <= counts[lab["file"]] and len(lab["prompt_sha1"]) == 12, lab
        assert lab["terms"] and all(isinstance(t, str) and t.strip() for t in lab["terms"]), lab
        if lab["kind"] == "correction":
            assert lab.get("replaces"), lab
    for other in (EXTRACTION, EXTRACTION / "heldout", EXTRACTION / "heldout-formats"):
        assert not _files(other) & set(counts), other.name
    held_repos = {f.split("/", 1)[0] for f in _files(EXTRACTION / "heldout")}
    assert not held_repos & {f.split("/", 1)[0] for f in counts}


@pytest.mark.shared_data
def test_labels_point_at_their_prompts() -> None:
    assert_labels_point_at_prompts(require_shared_data(), SESSIONS, LABELS)


@pytest.mark.shared_data
def test_extraction_meets_its_floors() -> None:
    data = require_shared_data()
    scores = score(LABELS, replay_graphs([s["file"] for s in SESSIONS], data))
    for kind, (recall, precision) in FLOORS.items():
        s = scores[kind]
        assert s.recall is not None and s.recall >= recall, (kind, s.recall, s.missed[:10])
        if precision is not None:
            assert s.precision is not None and s.precision >= precision, (kind, s.wrong[:10])
