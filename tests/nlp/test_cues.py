"""The cue patterns: the imperative cue's possessive runs find exactly what the backtracking
form found (invented prompts; a pasted code block is blanked to spaces before matching)."""

from __future__ import annotations

import random
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
    return next(p for p, _ in pos if p.pattern.startswith("(?:^|[\\n.;!:]"))


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


def _cue_texts() -> list[str]:
    """Texts that hold the cues' words, their false friends, and characters that case-blind
    matching takes for ASCII letters (long s, dotless i, the Kelvin sign)."""
    words = [
        w
        for pattern in (*cues._DECISION, *cues._CORRECTION, *cues._CORRECTION_FALSE)
        for w in re.findall(r"[a-z']+(?: [a-z']+)?", pattern)
    ]
    rnd = random.Random(7)
    out = list(TEXTS)
    for _ in range(400):
        picked = rnd.sample(words, rnd.randint(1, 6))
        if rnd.random() < 0.3:  # a letter only case-blind matching reads as s, i or k
            odd = {"s": "\u017f", "i": "\u0131", "k": "\u212a"}
            picked = [
                "".join(odd.get(c, c) if rnd.random() < 0.5 else c for c in w) for w in picked
            ]
        seps = [" ", ", ", ". ", "\n", "! ", ": ", " no, ", "1. "]
        out.append("".join(w + rnd.choice(seps) for w in picked))
    return out


def test_cues_whose_literal_is_missing_are_skipped_without_changing_what_is_found() -> None:
    dec_pos, dec_neg, cor_pos, cor_neg = cues._compiled()
    assert sum(1 for _, lit in dec_pos + cor_pos if lit) > 40  # most cues have a literal

    def unfiltered(cues_: list[cues.Cue]) -> list[cues.Cue]:
        return [(p, "") for p, _ in cues_]  # "" is in every text: each pattern is searched

    found = 0
    for text in _cue_texts():
        for pos, neg in ((dec_pos, dec_neg), (cor_pos, cor_neg)):
            want = cues._cues(text, unfiltered(pos), unfiltered(neg))
            assert cues._cues(text, pos, neg) == want, text
            found += len(want)
    assert found > 200
