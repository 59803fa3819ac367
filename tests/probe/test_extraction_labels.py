"""The labelled extraction set (tests/fixtures/extraction) and what the pipeline finds of it.

The labels are a careful reader's record of the decisions, corrections, tasks, constraints and
asides in 18 real sessions (see the set's README). The floors below are the figures
``bench/extraction.py`` prints, with a margin: a rule change that loses ground fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.eval.extraction import KINDS, load_labels, replay_graphs, score
from tests.probe.helpers import assert_labels_point_at_prompts
from tests.shared_data import require_shared_data

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
LABELS = load_labels(FIXTURES / "labels.jsonl")
SESSIONS = json.loads((FIXTURES / "sessions.json").read_text())

pytestmark = pytest.mark.shared_data

# recall / precision floors per kind (None: not measured on this set)
FLOORS = {
    "decision": (0.80, 0.83),
    "correction": (0.77, None),
    # 0.75 / 0.79 before requests the agent acted on became tasks (probe.acted_request): recall
    # rose to 0.86 here and 0.56 → 0.73 on the held-out set, precision fell 0.79 → 0.77 here
    "task": (0.84, 0.75),
    "constraint": (0.45, None),
    "aside": (1.0, None),
}


def test_labels_are_well_formed() -> None:
    files = {s["file"] for s in SESSIONS}
    assert len(LABELS) >= 150 and len(files) >= 8
    for lab in LABELS:
        assert lab["file"] in files and lab["kind"] in KINDS, lab
        assert lab["terms"] and all(isinstance(t, str) and t for t in lab["terms"]), lab
        if lab["kind"] == "correction":
            assert lab.get("replaces"), lab


def test_labels_point_at_their_prompts() -> None:
    assert_labels_point_at_prompts(require_shared_data(), SESSIONS, LABELS)


def test_extraction_meets_its_floors() -> None:
    data = require_shared_data()
    graphs = replay_graphs([s["file"] for s in SESSIONS], data)
    scores = score(LABELS, graphs)
    for kind, (recall, precision) in FLOORS.items():
        s = scores[kind]
        assert s.recall is not None and s.recall >= recall, (kind, s.recall, s.missed[:10])
        if precision is not None:
            assert s.precision is not None and s.precision >= precision, (kind, s.wrong[:10])
