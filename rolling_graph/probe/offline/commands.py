"""A bare command typed as a prompt: "traceroute example.org", "ssh into build-01.lan", "tail
the log of worker.py". No subject, a verb first and a technical object (a host, a file, a
path, an identifier): the mood of an imperative, read from the shape of the words (no parser
is loaded), so the verb need not be in any list of work verbs."""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.probe.offline import clauses, speech
from rolling_graph.probe.offline.decisions import content_words

MAX_WORDS = 8
_OBJECT_KINDS = frozenset(["url", "file", "path", "code", "identifier", "module", "package"])
# A first word that cannot open an imperative: an inflected verb ("works", "failing",
# "fixed"), an adverb ("still", "really"), or a word that says nothing (pronouns, auxiliaries).
_OPENERS = frozenset(
    ["still", "again", "already", "even", "yet", "ever", "never", "always", "sometimes", "same"]
)
_INFLECTED = re.compile(r"^(?:[a-z]{3,}(?:ing|ed|ly)|[a-z]*[^s]s)$")


def bare_command(sentence: str, ents: list[Any]) -> str | None:
    """The sentence as a task label when it is a short bare command on a technical object."""
    s = speech.strip_code(sentence).strip().rstrip(".!")
    words = s.split()
    if not 2 <= len(words) <= MAX_WORDS or s.endswith("?") or speech.is_question(s):
        return None
    if clauses.clause(s, MAX_WORDS) != s or words[1].lower() in ("and", "or", "but"):
        return None  # one clause, the verb followed by its object
    first = words[0]
    if not re.fullmatch(r"[a-z][a-z-]{1,20}", first) or _INFLECTED.match(first):
        return None
    lead = re.match(speech.PREAMBLE, s, re.I)
    if not content_words(first) or first in _OPENERS or lead and lead.end():
        return None  # "it", "still", "nice", "ok": no verb at all
    objects = [e for e in ents if e.kind in _OBJECT_KINDS and not s.startswith(e.text)]
    if not [e for e in objects if "REDACTED" not in e.text]:  # a redacted value names nothing
        return None
    return first[:1].upper() + " ".join(words)[1:]
