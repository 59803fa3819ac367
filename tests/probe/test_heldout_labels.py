"""The frozen held-out extraction set (tests/fixtures/extraction/heldout) points at real prompts.

The held-out labels were written by someone who writes no rules, on sessions no rule was tuned
on (see the set's README). These tests check the set itself: its shape, that it stays apart from
the development set, and that every label's ``prompt_sha1`` matches its turn's text in the
transcript under ``../shared/data/raw/``, with each session's prompt count as the reader counts it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rolling_graph.transcripts import UserPrompt, read_transcript
from tests.shared_data import require_shared_data

EXTRACTION = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
HELDOUT = EXTRACTION / "heldout"
KINDS = ("decision", "correction", "task", "constraint", "person", "aside")
KEYS = {"file", "turn", "prompt_sha1", "kind", "terms", "replaces", "attach", "role", "note"}


def _labels() -> list[dict]:
    lines = (HELDOUT / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


LABELS = _labels()
SESSIONS = json.loads((HELDOUT / "sessions.json").read_text(encoding="utf-8"))


def _repo(file: str) -> str:
    return file.split("/", 1)[0]


def test_heldout_set_is_well_formed() -> None:
    files = [s["file"] for s in SESSIONS]
    assert len(files) == len(set(files)) >= 8
    assert len({_repo(f) for f in files}) >= 6
    assert len(LABELS) >= 80
    counts = {s["file"]: s["prompts"] for s in SESSIONS}
    for lab in LABELS:
        assert set(lab) <= KEYS, lab
        assert lab["file"] in counts and lab["kind"] in KINDS, lab
        assert 1 <= lab["turn"] <= counts[lab["file"]], lab
        assert len(lab["prompt_sha1"]) == 12, lab
        assert lab["terms"] and all(isinstance(t, str) and t.strip() for t in lab["terms"]), lab
        assert len(lab["terms"]) <= 3 and len(lab.get("note", "")) <= 100, lab
        if lab["kind"] == "correction":
            assert lab.get("replaces"), lab
        if lab["kind"] == "constraint":
            assert lab.get("attach") in ("task", "decision", "person"), lab
    assert {f for f in counts if not any(lab["file"] == f for lab in LABELS)} == set()


def test_heldout_sessions_are_not_in_the_development_set() -> None:
    dev = {s["file"] for s in json.loads((EXTRACTION / "sessions.json").read_text())}
    dev_repos = {_repo(f) for f in dev}
    for s in SESSIONS:
        assert s["file"] not in dev, s
        assert _repo(s["file"]) not in dev_repos, s


@pytest.mark.shared_data
@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: _repo(s["file"]))
def test_heldout_labels_point_at_their_prompts(session: dict) -> None:
    data = require_shared_data()
    tr = read_transcript(data / "raw" / session["file"])
    prompts = [" ".join(e.text.split()) for e in tr.events if isinstance(e, UserPrompt)]
    assert len(prompts) == session["prompts"], session
    for lab in (x for x in LABELS if x["file"] == session["file"]):
        digest = hashlib.sha1(prompts[lab["turn"] - 1].encode()).hexdigest()[:12]
        assert digest == lab["prompt_sha1"], lab
