"""The frozen held-out extraction sets point at real prompts.

Two held-out sets, each labelled by someone who writes no rules, on sessions no rule was tuned
on (see each set's README):

* ``tests/fixtures/extraction/heldout``: Claude Code, Codex, Gemini CLI and plain sessions;
* ``tests/fixtures/extraction/heldout-formats``: the formats the reader learned later (pi
  sessions, Claude Code ``/export`` text files, aider chat histories).

These tests check each set itself: its shape; that it stays apart from the development set and
from the earlier held-out sets; and that every label's ``prompt_sha1`` matches its turn's text in
the transcript under ``../shared/data/raw/``, with each session's prompt count as the reader
counts it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from rolling_graph.transcripts import UserPrompt, read_transcript
from tests.shared_data import require_shared_data

EXTRACTION = Path(__file__).resolve().parents[1] / "fixtures" / "extraction"
KINDS = ("decision", "correction", "task", "constraint", "person", "aside")
KEYS = {"file", "turn", "prompt_sha1", "kind", "terms", "replaces", "attach", "role", "note"}


@dataclass(frozen=True)
class HeldOut:
    """One held-out set and the minimum size it was labelled to."""

    name: str
    sessions: int
    repos: int
    labels: int

    @property
    def folder(self) -> Path:
        return EXTRACTION / self.name


# In the order they were labelled: each set is kept apart from every set before it.
SETS = (
    HeldOut("heldout", sessions=8, repos=6, labels=80),
    HeldOut("heldout-formats", sessions=8, repos=5, labels=80),
)


def _labels(held: HeldOut) -> list[dict]:
    lines = (held.folder / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _sessions(folder: Path) -> list[dict]:
    return json.loads((folder / "sessions.json").read_text(encoding="utf-8"))


def _repo(file: str) -> str:
    return file.split("/", 1)[0]


@pytest.mark.parametrize("held", SETS, ids=lambda h: h.name)
def test_heldout_set_is_well_formed(held: HeldOut) -> None:
    sessions, labels = _sessions(held.folder), _labels(held)
    files = [s["file"] for s in sessions]
    assert len(files) == len(set(files)) >= held.sessions
    assert len({_repo(f) for f in files}) >= held.repos
    assert len(labels) >= held.labels
    counts = {s["file"]: s["prompts"] for s in sessions}
    for lab in labels:
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
    assert {f for f in counts if not any(lab["file"] == f for lab in labels)} == set()


@pytest.mark.parametrize("index", range(len(SETS)), ids=[h.name for h in SETS])
def test_heldout_sessions_are_not_in_an_earlier_set(index: int) -> None:
    """Neither a session nor a repository of a held-out set is in the development set or in a
    held-out set labelled before it."""
    earlier = [EXTRACTION, *(h.folder for h in SETS[:index])]
    for folder in earlier:
        files = {s["file"] for s in _sessions(folder)}
        repos = {_repo(f) for f in files}
        for s in _sessions(SETS[index].folder):
            assert s["file"] not in files, (folder.name, s)
            assert _repo(s["file"]) not in repos, (folder.name, s)


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("held", "session"),
    [(h, s) for h in SETS for s in _sessions(h.folder)],
    ids=[f"{h.name}-{_repo(s['file'])}" for h in SETS for s in _sessions(h.folder)],
)
def test_heldout_labels_point_at_their_prompts(held: HeldOut, session: dict) -> None:
    data = require_shared_data()
    tr = read_transcript(data / "raw" / session["file"])
    prompts = [" ".join(e.text.split()) for e in tr.events if isinstance(e, UserPrompt)]
    assert len(prompts) == session["prompts"], session
    for lab in (x for x in _labels(held) if x["file"] == session["file"]):
        digest = hashlib.sha1(prompts[lab["turn"] - 1].encode()).hexdigest()[:12]
        assert digest == lab["prompt_sha1"], lab


#: the floors of issue 27 that the offline probe meets on the first held-out set (kind →
#: recall); the others (decision 0.6 at precision 0.8, correction 0.5) are not met yet and are
#: reported by ``bench/extraction.py``. Checked, never tuned on: no rule cites this set.
HELD_OUT_FLOORS = {"task": 0.70}


@pytest.mark.shared_data
def test_heldout_floors_hold() -> None:
    from rolling_graph.eval.extraction import load_labels, replay_graphs, score

    data = require_shared_data()
    folder = SETS[0].folder
    graphs = replay_graphs([s["file"] for s in _sessions(folder)], data)
    scores = score(load_labels(folder / "labels.jsonl"), graphs)
    for kind, floor in HELD_OUT_FLOORS.items():
        # only the figure in the message: the set's misses are not for a rule writer's eyes
        got = float(scores[kind].recall or 0.0)
        assert got >= floor, f"{kind} recall {got:.2f} < {floor}"
