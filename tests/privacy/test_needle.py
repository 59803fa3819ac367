"""The literal a pattern's every match holds: a text without it is not searched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rolling_graph.privacy.redact import secrets
from rolling_graph.privacy.redact.needle import needle
from rolling_graph.privacy.redact.shapes import shape_rules

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "redaction"
TEXTS = [json.loads(x)["text"] for x in (FIXTURES / "secrets.jsonl").read_text().splitlines()]
TEXTS += (FIXTURES / "clean.txt").read_text().splitlines()


@pytest.mark.parametrize(
    ("pattern", "flags", "want"),
    [
        (r"sk-(?<![A-Za-z0-9_\-\]]sk-)(?!ant-)[A-Za-z0-9]{20}", 0, "sk-"),
        (r"[ps]k\.eyJ[A-Za-z]{5}", 0, "k.eyJ"),  # a class first: the run after it
        (r"ab(?:c|d)efgh", 0, "efgh"),  # the longest run
        (r"(?:Bearer|Token) x", 0, " x"),
        (r"pass(?:word)?", re.IGNORECASE, ""),  # case-insensitive: none
        (r"a?bc", 0, "bc"),  # an optional character is not in every match
        (r"x|y", 0, ""),  # alternatives at the top: none
    ],
)
def test_the_needle_is_a_run_every_match_goes_through(pattern: str, flags: int, want: str) -> None:
    assert needle(re.compile(pattern, flags)) == want


def test_every_match_of_every_redaction_pattern_holds_its_needle() -> None:
    """Over the redaction corpora (secrets of every kind, and clean text)."""
    patterns = [rule[2] for rule in shape_rules()] + [rx for rx, _ in secrets._context_needles()]
    matched = 0
    for rx in patterns:
        lit = needle(rx)
        for text in TEXTS:
            for m in rx.finditer(text):
                matched += 1
                assert lit in m.group(0), (rx.pattern, m.group(0))
    assert matched > 50  # the corpora exercise the patterns
