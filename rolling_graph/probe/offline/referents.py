"""What a decision refers back to: "let's run the migration on Sunday", "just proceed with the
rewrite" name their subject by a definite noun ("the migration"), said in full only earlier —
earlier in the same prompt, in the agent's last message, or in the one before it. The decision
then carries what that earlier text names (the code names of the agent's message that said it,
or the prompt's own words from that mention on), so the choice keeps what it is about.
Pure functions over text; :func:`carry` writes the finding into the node's attributes.
"""

from __future__ import annotations

import re

from rolling_graph.probe.offline.plan import Plan, clip

# "the migration", "this rewrite": a determiner and a lower-case word (not a name).
_DEFINITE = re.compile(r"\b(?:the|this|that|these|those)\s+(?P<head>[a-z][a-z-]{3,})\b", re.I)
# Words after a determiner that point at no earlier mention of their own.
_NOT_HEADS = frozenset(
    """same other first last next whole rest previous following above below current new old
    only main best right wrong easy hard simple quick final real actual default usual entire
    moment time thing things stuff ones way kind sort part case end idea issue problem point
    option options approach question answer""".split()  # noqa: SIM905
)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ed", "es", "e", "s")
_CODE = re.compile(r"`([^`\n]{2,60})`")
ABOUT_LIMIT = 80


def _stem(word: str) -> str:
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def heads(text: str) -> list[str]:
    """Stems of the definite nouns of ``text`` that may refer back ("the inline" → "inlin")."""
    out = []
    for m in _DEFINITE.finditer(text):
        head = m.group("head")
        if head.lower() not in _NOT_HEADS and _stem(head) not in out:
            out.append(_stem(head))
    return out


def mention(stem: str, text: str) -> int:
    """Where ``text`` last names a word of that stem, or -1."""
    found = -1
    for m in re.finditer(r"[A-Za-z][a-z-]{3,}", text):
        if _stem(m.group(0)) == stem:
            found = m.start()
    return found


def code_names(message: str, at: int) -> list[str]:
    """The code names of an agent's message, those of the paragraph around ``at`` first."""
    start = message.rfind("\n\n", 0, at) + 1
    end = message.find("\n\n", at)
    para = message[start : end if end >= 0 else len(message)]
    names = [m.group(1).strip() for m in _CODE.finditer(para)]
    names += [m.group(1).strip() for m in _CODE.finditer(message)]
    return [n for n in dict.fromkeys(names) if re.search(r"[A-Za-z]", n)]


def referent(decided: str, prompt_before: str, messages: list[str]) -> str | None:
    """What the definite nouns of ``decided`` (a decision's words) refer back to: the prompt's
    own words from their mention on (``prompt_before``: the prompt up to the decision), else the
    code names (or the sentence) of the latest agent message that names them."""
    for stem in heads(decided):
        at = mention(stem, prompt_before)
        if at >= 0:
            start = max(prompt_before.rfind(w, 0, at + 1) for w in ("the ", "The ", "\n"))
            return clip(prompt_before[max(start, 0) :].strip(" -\n"), ABOUT_LIMIT)
        for message in messages:
            at = mention(stem, message)
            if at < 0:
                continue
            names = code_names(message, at)
            if names:
                return clip(", ".join(names), ABOUT_LIMIT)
            sent = re.split(r"(?<=[.!?])\s+|\n+", message[at:], maxsplit=1)[0]
            return clip(sent, ABOUT_LIMIT)
    return None


def names_its_own(label: str) -> bool:
    """The label names a thing itself: a capitalised word past the first (not "I"), code, or an
    identifier ("Use Redis", "Keep `max_retries`"); such a decision needs no referent."""
    words = label.split()[1:]
    return any(
        re.match(r"[A-Z]", w)
        and not re.match(r"I(?:'[a-z]+)?$", w)
        or re.search(r"[`_/]|\w\.\w", w)
        for w in words
    )


def carry(plan: Plan, did: str, prompt_before: str, messages: list[str], reason: str) -> None:
    """Store what a new decision refers back to as its ``about`` attribute."""
    node = plan.new.get(did)
    if node is None or node.get("kind") != "decision" or (node.get("attrs") or {}).get("about"):
        return
    label, summary = node.get("label", ""), node.get("summary", "")
    if names_its_own(label.split(":", 1)[-1] if label.startswith("Approved:") else label):
        return
    # An approval's words are the agent's: its referent is earlier in that message.
    opening = " ".join(summary.split()[:4])
    own = [m[: m.find(opening)] if opening and opening in m else m for m in messages]
    about = referent(f"{label} {summary}", prompt_before, own)
    if about:
        plan.set_attrs(did, {"about": about}, f"what it refers back to: {reason}")
