"""Named humans in what the person says: one per name, with role and team when the sentence
states them ("Priya Raman from the platform team", "my boss Henrik", "ask Morgan", "cc Dana",
"per Alex's review", "@handle"); common capitalised words, products and sentence openers are not
names. Pure functions over text; :mod:`rolling_graph.probe.offline.intent` makes the nodes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rolling_graph.nlp.text import CALENDAR_WORDS
from rolling_graph.probe.offline.speech import strip_code

_NAME = r"(?P<name>[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2})"
_PERSON_PATTERNS = [
    re.compile(rf"{_NAME}\s+(?:from|on|of|in) (?:the |our )?(?P<team>[\w-]+(?: [\w-]+)?) team\b"),
    # "Priya from marketing": a lower-case department after the name.
    re.compile(
        rf"{_NAME}\s+(?:from|in|at|of) (?:the )?(?P<team>(?:marketing|sales|legal|finance|design|"
        r"support|security|ops|devops|product|engineering|hr|qa|research|data|platform|infra|"
        r"infrastructure|accounting|compliance|operations|management))\b"
    ),
    re.compile(
        rf"{_NAME},?\s+(?:our|my|the|a|who is (?:our|my|the))\s+(?P<role>(?:[\w-]+ ){{0,2}}"
        r"(?:manager|lead|pm|cto|ceo|designer|engineer|developer|dev|reviewer|maintainer|owner|"
        r"architect|analyst|founder|intern|colleague|teammate|boss|client|customer|contractor|"
        r"director|admin|tester|qa|consultant|partner|advisor|mentor))\b"
    ),
    re.compile(
        r"\b(?i:my|our|the)\s+(?P<role>(?:[\w-]+ ){0,2}(?:manager|lead|pm|cto|ceo|designer|engineer|"
        r"developer|reviewer|maintainer|colleague|coworker|co-worker|teammate|boss|client|"
        r"customer|contractor|director|friend|wife|husband|partner|daughter|son|mom|dad|mother|"
        rf"father|sister|brother)),?\s+{_NAME}\b"
    ),
    re.compile(
        rf"{_NAME}\s+(?:said|says|asked|asks|wants|needs|mentioned|suggested|thinks|reviewed|"
        r"approved|wrote|reported|noticed|prefers|will|is waiting|waits|owns|agreed|pinged|"
        r"emailed|commented|requested)\b"
    ),
    re.compile(
        # The verb says a human is addressed; what follows the name is lower case or the end.
        rf"\b(?i:ask|tell|ping|email|message|cc|thank|thanks|notify|remind|meet with|check with|"
        rf"talk to|loop in|sync with|hand (?:it|this) (?:off|over) to) {_NAME}(?:'s)?\b"
        r"(?=\s+[a-z]|\s*[.,;:!?)]|\s*$)"
    ),
    re.compile(
        rf"{_NAME}'s\s+(?:pr|review|comment|feedback|branch|team|idea|request|email|code)\b"
    ),
    # Reported speech and hand-offs: "according to Farid, …", "let Rosa know …".
    re.compile(rf"\b(?i:according to) {_NAME}(?=\s*,)"),
    re.compile(rf"\b(?i:let) {_NAME} (?i:know)\b"),
]
_HANDLE = re.compile(r"(?<![\w.@])@(?P<name>[a-z][\w-]{1,38})\b", re.I)
# Mentions that address a whole channel, not a person (Discord's and Slack's keywords): a
# notification the work sends "with @everyone" names nobody.
_BROADCAST = frozenset(["everyone", "here", "channel", "all", "room"])

FAMILY = frozenset(
    [
        "wife",
        "husband",
        "partner",
        "daughter",
        "son",
        "kid",
        "kids",
        "mom",
        "mum",
        "dad",
        "mother",
        "father",
        "sister",
        "brother",
        "friend",
        "grandma",
        "grandpa",
        "aunt",
        "uncle",
        "cousin",
    ]  # noqa: SIM905
)


@dataclass
class Person:
    name: str
    role: str = ""
    team: str = ""

    @property
    def personal(self) -> bool:
        """Family and friends belong to the person's own life, not to the work."""
        return bool(self.role) and self.role.split()[-1].lower() in FAMILY


def people(sentence: str) -> list[Person]:
    """Named humans other than the user, with role and team when the sentence states them."""
    from rolling_graph.probe.offline.entities import is_generic

    out: dict[str, Person] = {}
    text = strip_code(sentence)
    for rx in _PERSON_PATTERNS:
        for m in rx.finditer(text):
            name = _without_lead(m.group("name").strip())
            first = name.split()[0]
            if is_generic(name) or first.lower() in _NOT_NAMES or len(first) < 2:
                continue
            # A sentence-initial capital is any word: a one-word name there must not be one of
            # the common words that open sentences.
            if m.start("name") == 0 and " " not in name and first.lower() in _COMMON_START:
                continue
            p = out.setdefault(name, Person(name))
            groups = m.groupdict()
            if groups.get("role"):
                p.role = p.role or " ".join(groups["role"].split())
            if groups.get("team"):
                p.team = p.team or groups["team"].strip()
    for m in _HANDLE.finditer(text):
        if m.group("name").lower() in _BROADCAST:
            continue
        out.setdefault("@" + m.group("name"), Person("@" + m.group("name")))
    return list(out.values())


# Capitalised words that open a sentence before a name ("Per Alex's review", "Thanks Ewa").
_LEAD_WORDS = frozenset(
    [
        "per",
        "ask",
        "tell",
        "thanks",
        "thank",
        "dear",
        "hi",
        "hey",
        "hello",
        "cc",
        "ping",
        "with",
        "from",
        "by",
        "for",
        "via",
        "and",
        "or",
        "but",
    ]
)


def _without_lead(name: str) -> str:
    """ "Per Alex" → "Alex": a capitalised function word glued to the name is not part of it."""
    words = name.split()
    while len(words) > 1 and words[0].lower() in _LEAD_WORDS | _COMMON_START:
        words = words[1:]
    return " ".join(words)


# Capitalised words that open sentences or name things, never people.
_COMMON_START = frozenset(
    """this that these those there here it its we you they i he she what why how when where
    which who please thanks yes no ok okay also then now so but and or if maybe great cool
    perfect nice good sure well hmm ah oh let lets just still again everything something
    nothing anything github google apple microsoft claude codex gemini copilot python node""".split()  # noqa: SIM905
)
_NOT_NAMES = (
    _COMMON_START
    | CALENDAR_WORDS
    | frozenset(
        """the a an my our your their his her team pr review api ui ux ci cd
        linux windows mac macos ubuntu debian docker kubernetes aws gcp azure slack discord
        linear jira notion figma stripe vercel netlify heroku redis postgres sqlite mysql
        today tomorrow yesterday tonight morning evening""".split()  # noqa: SIM905
    )
)
