"""Precision and recall per trigger on the hand-labelled real user turns.

Thresholds, and why:

- decision, correction: recall ≥ 0.9 (the issue's requirement: missing a decision or a
  correction loses exactly what the graph exists to keep). Precision floors are low (0.35 /
  0.4) because the rules trade precision for that recall: the labels count imperatives and
  option picks as decisions only sometimes ("make a LICENSE file" yes, "can you add sfx" no),
  and a false alarm costs one cheap probe that returns an empty patch.
- new_entity: precision ≥ 0.75, recall ≥ 0.55. Many labelled entities are lower-case tool
  names ("brew", "op", "gitleaks") that a rule tokenizer cannot tell from words without a
  trained NER; the floor is set just under what the rules reach, to catch regressions.
- domain_shift: only 13 positives (DESIGN: coarse reading); the classifier's margin rule makes
  it conservative by design, so we assert precision ≥ 0.25 on what it flags and report recall
  without a floor (see the table printed by ``bench/gate_rates.py --labels``).
"""

from __future__ import annotations

import pytest

from tests.gate.labels import LABELS, evaluate, table

THRESHOLDS = {
    "decision": (0.35, 0.90),
    "correction": (0.40, 0.90),
    "new_entity": (0.75, 0.55),
    "domain_shift": (0.25, 0.0),
}


@pytest.fixture(scope="module")
def result():
    if not LABELS.exists():
        pytest.skip("no labelled gate set")
    return evaluate()


def test_label_set_size(result) -> None:
    assert result["turns"] >= 150


@pytest.mark.parametrize("trigger", sorted(THRESHOLDS))
def test_precision_recall(result, trigger: str) -> None:
    p_min, r_min = THRESHOLDS[trigger]
    s = result["scores"][trigger]
    msg = f"{trigger}: precision {s.precision:.2f} recall {s.recall:.2f}\n{table(result)}"
    assert s.precision >= p_min, msg
    assert s.recall >= r_min, msg
