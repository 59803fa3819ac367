"""A phrase's first words, cut where a clause or a phrase ends: the words a label keeps.

A label cut to its first words must still read as a whole ("Show a success message", not "Show
a success message that says to check"): the cut falls at a sentence mark, a clause boundary or
before a subordinate clause it would cut into, and drops the filler and dangling words a short
phrase does not end on (the lexicon's classes clause_tail and dangling).
"""

from __future__ import annotations

import re

from rolling_graph.probe.offline import acts
from rolling_graph.probe.offline.markup import closed, unquoted_ends


def clause(text: str, limit: int = 8, *, before_subordinate: bool = False) -> str:
    """The first ``limit`` words of a phrase, cut at a clause boundary, without a trailing
    filler ("please", "for now", "as well"); ``before_subordinate``: a phrase cut short ends
    before a relative or subordinate clause, or a clause of its own, it would cut into (a
    task's label: "Show a success message that says to check" → "Show a success message")."""
    text = re.split(
        rf"[.;!?](?=\s|$)|\n|,\s|\s(?:{acts.alternation('replacing')}|because|since|so that|but)\s"
        r"|\s[-—–]+\s|[—–]",
        text,
    )[0]
    words = text.split()
    cut_before = False  # cut before a subordinate clause: as short as it is, it was cut
    if len(words) > limit and before_subordinate:
        sub = acts.words("subordinate")
        opens = [i for i, w in enumerate(words[:limit]) if i >= 3 and w.lower() in sub]
        words, cut_before = (words[: opens[0]], True) if opens else (words, False)
    cut = len(words) > limit
    # "reset the directory so I can": the clause's subject may be the last word kept, its verb
    # the first cut off.
    longer = " ".join(words[: limit + 1])
    start = acts.clause_start(longer) if cut and before_subordinate else None
    if start and len(longer[: start.start()].split()) >= 4:
        words = longer[: start.start()].split()
    words = closed(" ".join(words[:limit])).split()
    while words and words[-1].lower().strip(",") in acts.words("clause_tail"):
        if _object_of_preposition(words):
            break  # "show me what's on it": not "show me what's"
        words.pop()
    # Cut short, a phrase does not end on a list marker ("check each row and (a)") nor on a
    # word that leaves its object behind ("show me the evidence and I will look at").
    while (
        (cut or cut_before)
        and words
        and (_ENUMERATOR.fullmatch(words[-1]) or words[-1].lower() in acts.words("dangling"))
    ):
        words.pop()
    return unquoted_ends(" ".join(words))


# A list marker: "(a)", "b)", "2." open an item.
_ENUMERATOR = re.compile(r"\(?[a-z0-9]\)|\d+\.", re.I)


def _object_of_preposition(words: list[str]) -> bool:
    """The phrase ends on a pronoun a preposition governs ("… on it", "… to them")."""
    last, prev = words[-1].lower(), words[-2].lower() if len(words) > 1 else ""
    return last in acts.words("object_pronoun") and prev in acts.words("prepositions")
