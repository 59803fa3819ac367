"""The means a request names: the thing it is to be done with, read as a choice.

"rewrite the parser using Rust", "test it by running `make e2e`", "build a Kotlin app that will
run on a watch": the person asks for work and, in the same clause, names what it is done with (a
name or a piece of code). That is a choice made in passing: a decision "Use X", whose summary
is the request (what the choice is for). Pure functions over text, no graph.
"""

from __future__ import annotations

import re

from rolling_graph.nlp.text import DAYS, MONTHS
from rolling_graph.probe.offline import speech

# A name: code, or a word with a capital or a digit inside or at its start ("Postgres",
# "gRPC", "k8s"), and up to two more such words or lower-case words joined to it ("Solana
# blockchain").
_NAME = r"(?:`[^`\n]{1,40}`|[A-Z0-9][\w.+#-]*|[a-z]+[A-Z0-9][\w.+#-]*)"
_WORD = r"[A-Za-z0-9][\w.+#-]*"
# "using X", "via X", "through X", "by running X", "by calling X": the instrument of a verb.
_VIA = re.compile(
    rf"\b(?:using|via|through|by (?:using|running|calling|invoking|means of))\s+"
    rf"(?:the\s+)?(?P<what>{_NAME}(?:\s+{_WORD}){{0,2}})",
)
# An artefact to make, with the technology it is made in as its modifier ("a Go service").
_ARTEFACT = (
    r"(?:app|application|project|service|cli|tool|library|lib|api|server|website|site|bot|"
    r"script|extension|plugin|backend|frontend|package|module|function|lambda|dashboard)s?"
)
_MAKE = re.compile(
    rf"\b(?:create|build|write|make|develop|scaffold|implement|start|set up)\s+"
    rf"(?:(?:a|an|the|it|this|new|simple|small|basic|minimal)\s+)*(?P<what>{_NAME})\s+{_ARTEFACT}\b",
    re.I,
)
# Words that end the name's phrase: the clause goes on ("Fly.io tomorrow", "X to do Y").
_ENDS = frozenset(
    """to for and or so with in on at from yourself it instead first then now later today
    tomorrow tonight here there please""".split()  # noqa: SIM905
)
_NOT_NAMES = frozenset(w.lower() for w in [*DAYS, *MONTHS]) | {"i", "the", "a", "an"}


def _is_name(what: str) -> bool:
    first = what.split()[0].strip("`")
    return bool(first) and first.lower() not in _NOT_NAMES and not first.isdigit()


def _trim(what: str) -> str:
    """The name and the words that go with it, not the rest of the clause ("Solana blockchain",
    not "Solana blockchain to …"; "TypeScript on Lambda": a second name joined on); code marks
    dropped."""
    words = what.split()
    keep = [words[0]]
    for i, w in enumerate(words[1:], 1):
        joined = w in ("on", "with", "in") and i + 1 < len(words) and words[i + 1][:1].isupper()
        if (w.lower() in _ENDS or w.lower() in _NOT_NAMES) and not joined:
            break
        keep.append(w)
    return " ".join(keep).replace("`", "").strip(" .,:;")


# "I want it in TypeScript", "do it in Kotlin", "it should be written in Rust", "make it a Go
# CLI": the thing in question, said to be in, on or made with something named.
_FORM = re.compile(
    r"\b(?:want|need|like|prefer|make|do|write|build|have|put|host|run|deploy|ship|"
    r"(?:should|must|will|can) be (?:written|built|done|hosted|deployed|made|run))\s+"
    r"(?:it|this|that|them|the (?:whole )?[a-z]+)?\s*(?:in|on|with|using|via|as an?)\s+"
    rf"(?P<what>{_NAME}(?:\s+(?:on|with|in)\s+{_NAME}|\s+{_WORD}){{0,2}})",
)


# A question by its opening ("is it …", "do we …"); "do it in Kotlin" is an imperative.
_ASKS = re.compile(
    r"(?:what|why|how|where|when|who|which)\b|(?:do|did)\s+(?:you|we|i|they)\b|"
    r"(?:is|are|was|were|does|should|would|will|can|could)\s+(?:you|we|i|they|it|this|that|there)\b",
    re.I,
)


def _stated_form(s: str) -> re.Match[str] | None:
    """The form a thing is to take, said by the person (not asked)."""
    if s.rstrip().endswith("?") or _ASKS.match(speech.strip_code(s).strip()):
        return None
    return _FORM.search(s)


def request_means(sentence: str) -> tuple[str, str] | None:
    """("Use X", X) when a request names what the work is done with; ``None`` when the sentence
    asks for no work (a question about X, a statement that mentions X)."""
    s = " ".join(sentence.split())
    form = _stated_form(s)
    if form is not None and _is_name(form.group("what")):
        what = _trim(form.group("what"))
        return (f"Use {what}", what) if what else None
    if not speech.task_phrase(s) and not speech.asks_for_work(s):
        return None
    plain = speech.strip_code(s)
    m = _MAKE.search(s) or _VIA.search(s)
    if m is None:
        return None
    what = m.group("what")
    # Code spans count as names even when strip_code removes them; else the name must be in
    # the prose (not a word inside a URL or a path).
    if not what.startswith("`") and what.split()[0] not in plain:
        return None
    if not _is_name(what):
        return None
    what = _trim(what) if m.re is _VIA else what.replace("`", "")
    return (f"Use {what}", what) if what else None


# "I'm building Tidepool — a tide-chart app on Flutter": the person's own work, with what it is
# built on (a statement, not a report: present progressive, first person).
_BUILDING = re.compile(
    r"\b(?:i'?m|i am|we'?re|we are)\s+(?:building|making|writing|developing|creating)\b"
    r"(?P<rest>[^.;!?\n]{0,120})",
    re.I,
)
_ON = re.compile(rf"\b(?:on|in|with|using)\s+(?:the\s+)?(?P<what>{_NAME}(?:\s+{_WORD}){{0,2}})")


def built_on(sentence: str) -> tuple[str, str] | None:
    """("Use X", X) when the person says what they are building on or with ("we're writing the
    backend in Elixir"); ``None`` for questions and reports of work done ("I built …")."""
    s = " ".join(speech.strip_code(sentence).split())
    m = _BUILDING.search(s)
    if not m or speech.is_question(s[m.start() :]):
        return None
    on = _ON.search(m.group("rest"))
    if on is None or not _is_name(on.group("what")):
        return None
    what = _trim(on.group("what"))
    return (f"Use {what}", what) if what else None
