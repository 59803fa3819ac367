"""Which names the offline probe turns into nodes: the gate's entity kinds mapped to node kinds
and domains, and the filters that keep commands, versions, shouted words and common words out."""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.nlp.bounded import count_words
from rolling_graph.nlp.text import CALENDAR_WORDS
from rolling_graph.probe.offline.plan import Plan

# Entity kinds from the gate's layer → (node kind, domain or "" for the sentence's domain).
_KIND_MAP: dict[str, tuple[str, str]] = {
    "file": ("file", "technical"),
    "module": ("entity", "technical"),
    "package": ("tool", "technical"),
    "identifier": ("entity", "technical"),
    "acronym": ("concept", ""),
    "proper": ("entity", ""),
    "person": ("person", "relationship"),
    "url": ("entity", "technical"),
}
KIND_PRIORITY = {
    "person": 0,
    "proper": 0,
    "package": 1,
    "file": 2,
    "module": 3,
    "url": 3,
    "identifier": 4,
    "acronym": 5,
}


_SHOUTED = frozenset(
    [
        "NO",
        "YES",
        "OK",
        "OKAY",
        "CODE",
        "ALL",
        "AND",
        "THE",
        "NOT",
        "BUT",
        "FOR",
        "DONE",
        "STOP",
        "PLEASE",
        "NOTE",
        "IN",
        "IS",
        "IT",
        "TO",
        "OF",
        "ON",
        "AT",
        "MY",
        "WE",
        "YOU",
        "ME",
        "THIS",
        "THAT",
        "WHY",
        "HOW",
        "NOW",
        "NEW",
    ]
)
_BLOB = re.compile(r"[A-Za-z0-9+/]{20,}")


def useful(ent: Any) -> bool:
    """Drop what is a detail or noise rather than a topic: commands, versions, flags, shouted
    words (THANKS, WARNING), "either/or" word pairs, key material, secrets' markers."""
    text = ent.text
    if "redacted" in ent.norm or len(ent.norm) < 2 or ent.kind in ("command", "version", "issue"):
        return False
    if ent.kind == "identifier" and (text.startswith("-") or "=" in text):
        return False
    if ent.kind in ("identifier", "module", "package", "proper") and text.lower() in CODE_NOISE:
        return False
    if ent.kind == "acronym" and (text.upper() in _SHOUTED or (len(text) >= 5 and text.isalpha())):
        return False
    if ent.kind == "proper" and is_generic(text):
        return False  # "Build" after a slash command, "Next Steps": common words, not names
    if ent.kind == "file" and "/" in text:
        last = text.rstrip("/").rsplit("/", 1)[-1]
        rooted = text.startswith(("/", "./", "../", "~"))
        if _BLOB.search(text) or not re.fullmatch(r"[\w./@+~-]+", text):
            return False
        if not rooted and "." not in last and text.count("/") < 2:
            return False  # "crashes/restarts", "w/o": alternatives in prose, not paths
    return True


# Title-case words that are not names even mid-sentence: imperatives after a slash command
# ("/build-with-claude Build the …"), table headers, UI words, generic nouns and verbs.
_GENERIC = (
    frozenset(
        """build create add fix update make run test tests check use get set show start stop done
    note step next first last new old all any none true false yes no ok okay error errors
    warning info debug success failed failure pass passed fail result results output input
    file files folder directory line lines code function method class value values type types
    name names data item items list table row rows column columns field fields key keys id ids
    status summary overview details description example examples option options default
    feature features issue issues change changes task tasks todo plan phase part section page
    user users today tomorrow yesterday now here there this that these those what why how
    when where which who please thanks thank hello hi sure great perfect good nice awesome
    excellent important critical key main current total count number numbers version
    remove delete edit read write open close save load send receive copy move rename search
    find verify review clean install configure deploy commit push pull merge branch
    implement implemented implementation created updated added fixed removed changed
    authored co claude opus sonnet haiku assistant human model agent tool tools command
    commands script scripts config configuration settings setting project projects app
    application service services system systems server client api apis month months week
    weeks year years day days weekend morning evening tonight maybe later soon""".split()  # noqa: SIM905
    )
    | CALENDAR_WORDS
)
# Lower-case words that look like identifiers in commands and code but name nothing the
# session is about: shell verbs, builtins, placeholders.
CODE_NOISE = frozenset(
    """git ls len expect list run str int dict args kwargs self cls data result value item
    map set get put main test foo bar baz tmp temp obj val key res req err ctx cfg util utils
    helper helpers log logger print echo true false null none nil todo fixme xxx new old
    src lib bin dist build out tests docs spec specs index init setup example sample""".split()  # noqa: SIM905
)


def _stop_words() -> frozenset[str]:
    try:  # spaCy's English stop list (spaCy is a dependency)
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(w.lower() for w in STOP_WORDS) | _GENERIC
    except ImportError:  # pragma: no cover
        return _GENERIC


_STOP_WORDS: frozenset[str] | None = None


def is_generic(label: str) -> bool:
    """Whether ``label`` is only common words: "Build", "The Plan", "Next Step"."""
    global _STOP_WORDS
    if _STOP_WORDS is None:
        _STOP_WORDS = _stop_words()
    words = re.findall(r"[A-Za-z]+", label)
    return not words or all(w.lower() in _STOP_WORDS for w in words)


def is_name_word(label: str) -> bool:
    """A single title-case word: a name as written ("Bento", "Solana"), unlike code names."""
    return bool(re.fullmatch(r"[A-Z][a-z]+", label))


def occurrences(label: str, text: str, *, exact_case: bool) -> int:
    """Whole-word occurrences of ``label`` in ``text``: as written for names (a capitalised
    name is not its common-word homonym: "Bento" vs "bento box"), any case for code names."""
    return count_words(text, label, left=".", ignore_case=not exact_case)


def entity_node(plan: Plan, ent: Any, sentence_domain: str, reason: str) -> str | None:
    kind, domain = _KIND_MAP.get(ent.kind, ("entity", ""))
    text = ent.text
    aliases: list[str] = []
    if ent.kind == "url":
        text = re.sub(r"^(?:https?|ftp|file)://(?:www\.)?", "", text).rstrip("/")
        if len(text) > 60 or "/" in text:
            return None  # long URLs are details, not topics
    if (
        ent.kind == "file"
        and "/" not in text
        and text[:1].isupper()
        and text.lower().endswith(".js")
    ):
        kind, domain = "tool", "technical"  # Next.js, Vue.js: frameworks, not files
    elif ent.kind == "file":
        base = text.rstrip("/").rsplit("/", 1)[-1]
        if base and base != text:
            aliases.append(base)
    return plan.node(text, kind, domain or sentence_domain or "project", reason, aliases=aliases)
