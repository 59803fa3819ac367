"""Corrections that replace no decision: what the person states now supersedes what it
rejects — a thing it negates ("don't use /tmp"), else the agent's claim it contradicts."""

from __future__ import annotations

import re

from rolling_graph.probe.offline import speech
from rolling_graph.probe.offline.intent import thing
from rolling_graph.probe.offline.plan import Plan, clip

_NEGATED = re.compile(
    r"\b(?:don'?t use|do not use|stop using|no more|instead of|rather than|"
    r"don'?t want|get rid of)\s+(?:the |a |an |any )?(?P<old>[\w.@/+#-]+(?: [\w.@/+#-]+)?)"
    r"|(?P<old2>[\w.@/+#-]+(?: [\w.@/+#-]+)?) (?:is|are) (?:too much|too many|overkill|wrong|not needed|unnecessary)",
    re.I,
)


def rejects_something(sentence: str) -> bool:
    """Correction language the gate's cues do not cover: "X is too much", "don't use X"."""
    return bool(_NEGATED.search(speech.strip_code(sentence)))


def correction(plan: Plan, sentence: str, before: str, reason: str) -> str | None:
    """A correction that replaces no decision: what the person states now supersedes what it
    rejects: a thing it negates ("don't use /tmp"), else the agent's claim it contradicts."""
    text = speech.strip_code(sentence).strip()
    label = speech.clause(text, 10)
    if len(label.split()) < 2:
        return None
    cid = plan.node(
        clip(label[:1].upper() + label[1:], 80),
        "correction",
        "project",
        f"the person corrects: {reason}",
        summary=text,
    )
    if cid is None:
        return None
    old = None
    m = _NEGATED.search(text)
    if m:
        old = thing(plan, m.group("old") or m.group("old2") or "")
    if old is None and before.strip():
        claim = _contradicted_claim(text, before)
        if claim:
            old = plan.node(
                clip("Agent: " + speech.clause(claim, 10), 80),
                "concept",
                "project",
                f"what the agent said before the correction in {reason}",
                summary=clip(claim, 190),
            )
    if old and old != cid:
        plan.edge(cid, "supersedes", old, f"corrected in {reason}")
    return cid


def _contradicted_claim(correction_text: str, before: str) -> str | None:
    """The sentence of the agent's last message that the correction is most about (shared
    content words), else its last statement."""
    from rolling_graph.probe.offline.decisions import subject_words

    sentences = [
        x.strip(" -*#>|")
        for x in re.split(
            r"(?<=[.!?])\s+|\n+", re.sub(r"```.*?```", " ", before[-2_000:], flags=re.S)
        )
        if len(x.split()) >= 3 and not x.strip().endswith("?")
    ]
    if not sentences:
        return None
    mine = subject_words(correction_text)
    best = max(sentences, key=lambda x: (len(subject_words(x) & mine), sentences.index(x)))
    return best if subject_words(best) & mine else sentences[-1]
