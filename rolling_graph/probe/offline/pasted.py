"""Replies that paste output and add a few words of the person's own: "<the launcher's log>
… $ it still crashes", "<an error line> didn't update the script to use the new path".

The words after the paste report a failure of what the agent said it fixed, or deny work it was
to do: the correction supersedes the agent's latest claim of a repaired state (up to a few
messages back: the agent may have moved on since), else the thing the pasted error names.
A short report typed on its own that a failure persists ("it still hangs") reaches back the same
way when the agent has moved on since. Sentence rules (:mod:`rolling_graph.probe.offline.prompts`)
read a prompt's first sentences and the agent's last message; a paste pushes the person's words
past them, so this pass reads the whole prompt."""

from __future__ import annotations

import re

from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline import claims, clauses, speech
from rolling_graph.probe.offline.plan import REDACTED, Plan, clip, quote

# The person's words typed after a shell prompt pasted with the output ("user@box:~/app$ it
# still fails"): the marker follows a non-space (the prompt) and precedes a space.
_SHELL_TAIL = re.compile(r"^.*\S[$#%>❯]\s+\[?\s*(?P<tail>[^\W\d_][^$#%>❯]*)$")
# The person says the agent did not do something: "didn't update the script", "you never
# restarted it".
_DENIED_WORK = re.compile(
    r"^\W*(?:(?:you|u|it|claude)\s+)?(?:didn['’]?t|did not|haven['’]?t|have not|never|"
    r"forgot to)\s+(?!mind\b)[a-z]+",
    re.I,
)
# A line of tool output that reports an error, and the name (path, file, identifier) just
# before its message: "./run.sh: line 9: /var/x.sock: Permission denied".
_ERROR = re.compile(
    r"(?P<what>[\w./~@+-]*[./][\w./~@+-]+)?:?\s*(?P<msg>(?:permission denied|no such file or "
    r"directory|not found|command not found|(?:fatal )?error\b|segmentation fault|"
    r"traceback|exception\b)[^\n]{0,40})",
    re.I,
)
# What a repaired state is said in: "fixed", "works now", "operational", "back online".
_REPAIRED = re.compile(
    r"\b(?:fixed|resolved|works|working|operational|online|up and running|healthy|stable)\b",
    re.I,
)
_HEADLINE = re.compile(r"^\W*(?:[✅✓✔]|\*\*)")
MESSAGES_BACK = 3  # the agent's messages a reply to a paste may answer


def own_words(prompt: str) -> str | None:
    """The person's words after output they pasted: the text after a shell prompt on the last
    line, else a last line said in words after lines that are not. ``None`` when the prompt
    pastes nothing or adds no words."""
    lines = [ln for ln in prompt.strip().splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    m = _SHELL_TAIL.match(lines[-1])
    if m and claims.said(m.group("tail"), least=2):
        return m.group("tail").strip()
    if claims.said(lines[-1], least=3) and not all(claims.said(x) for x in lines[:-1]):
        return lines[-1].strip()
    return None


STILL_WORDS = 12  # "it still crashes on start": a short report typed on its own


def still_failing(prompt: str) -> str | None:
    """A short report, typed on its own, that a failure persists ("it still crashes"): "still"
    presupposes a repair the agent claimed, maybe a few messages back."""
    text = prompt.strip()
    if "\n" in text or len(text.split()) > STILL_WORDS or not re.search(r"\bstill\b", text, re.I):
        return None
    return text if claims.said(text, least=2) and claims.says_failure(text) else None


def pasted_error(prompt: str, words: str) -> tuple[str, str] | None:
    """(the name an error is about, the error line) of the last error line pasted before the
    person's words."""
    head = prompt[: prompt.rfind(words)] if words in prompt else prompt
    for line in reversed(head.splitlines()):
        m = _ERROR.search(line)
        if m and m.group("what") and not claims.said(line):
            return m.group("what"), line.strip()
    return None


def repaired_claim(messages: list[str]) -> tuple[str, list[str]] | None:
    """The agent's latest claim of a repaired or working state in ``messages`` (oldest first),
    its headline first ("✅ **Service Fixed and Running!**"), with the other claims of that
    message."""
    for message in reversed(messages[-MESSAGES_BACK:]):
        won = [c for c in claims.success_claims(message) if _REPAIRED.search(c)]
        if won:
            won.sort(key=lambda c: not _HEADLINE.match(c))
            return won[0], won[1:]
    return None


def pasted_activity(plan: Plan, req: ProbeRequest) -> None:
    """Each prompt that pastes output and adds a failure report or denied work."""
    said = [REDACTED.sub(" ", m) for m in (req.earlier, req.before) if m and m.strip()]
    for t in req.turns:
        text = REDACTED.sub(" ", t.user or "")
        if text.strip() and said:
            _reply(plan, t.turn, text, said)
        if t.assistant and t.assistant.strip():
            said.append(REDACTED.sub(" ", t.assistant))


def _reply(plan: Plan, turn: int, prompt: str, said: list[str]) -> None:
    from rolling_graph.probe.offline.corrections import claim_node, unmarked

    words = own_words(prompt) or still_failing(prompt)
    if not words or speech.is_question(words):
        return
    denied = bool(_DENIED_WORK.match(words))
    if not denied and not (claims.said(words, least=2) and claims.says_failure(words)):
        return
    label = clauses.clause(unmarked(words), 8)
    label = clip(label[:1].upper() + label[1:], 80)
    read = plan.resolve(label) in plan.new  # the sentence rules read these words already
    reason = f"turn {turn}: {quote(words)}"
    error = pasted_error(prompt, words)
    claim = repaired_claim(said)
    old = None
    if error and (denied or claim is None):  # what the error names, beside any claim
        what, line = error
        old = plan.node(
            clip(f"{what}: {line[line.find(what) + len(what) :].lstrip(' :')}", 80),
            "concept",
            "project",
            f"the error pasted with a correction in {reason}",
            summary=clip(line, 190),
        )
    elif claim and not read:
        old = claim_node(plan, claim[0], reason, summary=" · ".join([claim[0], *claim[1][:3]]))
    if old is None:
        return
    new = plan.node(
        label,
        "correction",
        "project",
        f"the person corrects, pasting output: {reason}",
        summary=clip(words + (f" — pasted: {error[1]}" if error else ""), 190),
    )
    if new and new != old:
        plan.edge(new, "supersedes", old, f"corrected in {reason}")
