"""The cue patterns: the imperative cue's possessive runs find exactly what the backtracking
form found (invented prompts; a pasted code block is blanked to spaces before matching)."""

from __future__ import annotations

import re

import pytest

from rolling_graph.nlp import cues, decision_cues

# The imperative cue as it was written before its runs were made possessive: the reference.
_BACKTRACKING = (
    rf"(?:^|[\n.;!:]\s*|\b(?:yes|yep|ok|okay|sure|great|cool|nice|now|then|and|also|so),?\s+|"
    rf"^\s*(?:claude\s+)?\"?(?:/[\w:-]+\s+)?|^\s*[-*\d.)]+\s+)(?:{cues._IMPERATIVE_VERBS})\b"
)

TEXTS = [
    "here is the failing test:\n```python\n    def test_x():\n        assert run()\n```\n"
    "now run it again and push",
    "```\n" + "    x = 1\n" * 200 + "```\nFix the import; then deploy.",
    "  - add a retry\n  * remove the sleep\n 2) rename the flag\n\n   \n  keep the old name",
    'claude "/review rename the helper"\n  \t merge it when green',
    "the log says: \n\n\n   build failed. \t  switch to the cached image",
    "> quoted: use the old one\nyes,   install it. ok  do it",
    "nothing to do here at all, just reading",
]


def _imperative() -> re.Pattern[str]:
    pos = cues._compiled()[0]
    return next(p for p in pos if p.pattern.startswith("(?:^|[\\n.;!:]"))


@pytest.mark.parametrize("text", TEXTS)
def test_imperative_cue_matches_the_backtracking_form(text: str) -> None:
    body = cues._strip_code(text).lower()
    ref = re.compile(_BACKTRACKING, re.I | re.M)
    new = _imperative()
    assert new.pattern != ref.pattern  # the possessive form is the one compiled
    assert [m.span() for m in new.finditer(body)] == [m.span() for m in ref.finditer(body)]


def test_imperative_after_a_pasted_block_is_still_a_cue() -> None:
    words = decision_cues("```\n" + "    x = 1\n" * 50 + "```\nnow run it again")
    assert "now run" in words


def test_why_dont_you_suggests_work_while_why_did_you_challenges() -> None:
    assert (
        cues.correction_cues("Why don't you have a look and see what you can read, I'll help.")
        == []
    )
    assert cues.correction_cues("why won't you run it?")
    assert cues.correction_cues("why did you delete the fixtures?")
