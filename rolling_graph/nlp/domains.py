"""Domain classifier: which of relationship / project / technical / personal a text is about,
from a stem lexicon over spaCy tokens plus the code entities on the doc."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from rolling_graph.nlp.entities import LABEL_KIND, doc_text, wordset
from rolling_graph.nlp.pipeline import analyse

if TYPE_CHECKING:
    from spacy.tokens import Doc

DOMAINS = ("relationship", "project", "technical", "personal")

# Lexicon: lower-case word stems (a token matches when it equals the stem or starts with it
# followed only by a common suffix) and multi-word phrases (matched on the lower-cased text).
_LEXICON: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "relationship": (
        wordset("""thank thanks appreciate sorry apolog frustrat annoy disappoint trust friend
            colleague coworker boss manager teammate team partner wife husband girlfriend
            boyfriend mom dad mother father brother sister son daughter family kid kids
            relationship together collaborat feedback praise blame angry upset proud
            respect honest honestly feelings"""),
        (
            "great job",
            "good job",
            "well done",
            "you keep",
            "you always",
            "you never",
            "you're doing",
            "between us",
            "work together",
            "thank you",
            "i feel like you",
        ),
    ),
    "project": (
        wordset("""project deadline release ship shipping milestone roadmap plan planning scope
            priority priorit requirement spec customer client user users stakeholder launch
            sprint backlog ticket feature features mvp demo goal goals budget pricing price
            marketing business product strategy timeline estimate version phase proposal
            contract invoice meeting schedule website app repo repository readme docs
            documentation"""),
        (
            "pull request",
            "next step",
            "next steps",
            "to do",
            "todo list",
            "go live",
            "the plan",
            "new project",
        ),
    ),
    "technical": (
        wordset("""code function method class bug error exception traceback stack test tests
            testing api endpoint database db query sql schema compile build install import
            module package dependency config configuration server deploy docker container git
            commit branch merge rebase python javascript typescript rust golang java node npm
            pip json yaml html css variable type types refactor performance memory latency
            cache async thread process script cli command terminal log logs debug lint linter
            compiler runtime framework library sdk http request response token tokens file
            files directory folder path implement implementation algorithm parse parser regex
            array list dict string integer null undefined crash fix bugfix hook hooks model
            prompt agent llm server client frontend backend css component render migration
            index"""),
        ("stack trace", "unit test", "type error", "pull request", "edge case"),
    ),
    "personal": (
        wordset("""tired sleep sleepy weekend vacation holiday holidays sick ill health doctor
            hospital gym workout hobby birthday home dinner lunch breakfast coffee personal
            life mood stressed stress anxious anxiety happy sad lonely exhausted burnout
            dog cat pet wedding travel trip diet"""),
        (
            "my life",
            "i'm tired",
            "i am tired",
            "day off",
            "going to bed",
            "feel sick",
            "my health",
            "my weekend",
        ),
    ),
}
_SUFFIXES = ("", "s", "es", "ed", "ing", "er", "ers", "ion", "ions", "ation", "ly", "ment", "e")

# Code entities are strong evidence of technical talk; names of people of relationship talk.
_ENTITY_DOMAIN = {
    "file": ("technical", 1.0),
    "module": ("technical", 0.5),
    "package": ("technical", 1.0),
    "identifier": ("technical", 1.0),
    "command": ("technical", 1.0),
    "url": ("technical", 0.5),
    "issue": ("project", 1.0),
    "version": ("technical", 0.5),
    "person": ("relationship", 1.0),
}

#: A turn's domain is *confident* when its winner leads the runner-up by at least this much
#: (in lexicon hits; a hit counts 1, an entity 0.5–1) — see :func:`classify_domain`.
DOMAIN_MARGIN = 1.5


@dataclass(frozen=True)
class DomainScore:
    """Per-domain scores for one text, the winning domain (``""`` if nothing matched) and the
    margin (winner minus runner-up). ``words`` lists the evidence per domain."""

    scores: dict[str, float]
    winner: str
    margin: float
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def confident(self) -> bool:
        return bool(self.winner) and self.margin >= DOMAIN_MARGIN


@lru_cache(maxsize=16_384)
def _word_domains(word: str) -> tuple[str, ...]:
    """The domains whose stems ``word`` matches, exactly or with one of the common suffixes
    (a text repeats its words: asked once each). The word's possible stems are found once,
    then met with each domain's stems."""
    bases = {word, *(word[: -len(suf)] for suf in _SUFFIXES[1:] if word.endswith(suf))}
    return tuple(dom for dom, (stems, _) in _LEXICON.items() if not stems.isdisjoint(bases))


#: lexeme hash of a lower-case form -> its domains (the vocabulary's hashes are stable)
_HASH_DOMAINS: dict[int, tuple[str, ...]] = {}


def _token_domains(doc: Doc, skip: set[int]) -> list[tuple[int, str]]:
    """(token index, domain) for each alphabetic token outside ``skip`` whose lower-case form
    matches a domain's stems, in text order; read from one array of lexeme attributes rather
    than token by token."""
    import numpy as np
    from spacy.attrs import IS_ALPHA, LOWER

    if not len(doc):
        return []
    strings = doc.vocab.strings
    arr = doc.to_array([IS_ALPHA, LOWER])
    lowers = arr[:, 1]
    alpha = arr[:, 0].astype(bool)
    # Each distinct word is asked once; only the tokens of words with a domain are walked.
    hits = []
    for lower in set(lowers[alpha].tolist()):
        doms = _HASH_DOMAINS.get(lower)
        if doms is None:
            doms = _HASH_DOMAINS[lower] = _word_domains(strings[lower])
        if doms:
            hits.append(lower)
    if not hits:
        return []
    out: list[tuple[int, str]] = []
    for i in np.flatnonzero(alpha & np.isin(lowers, np.array(hits, dtype=lowers.dtype))).tolist():
        if i not in skip:
            out.extend((i, dom) for dom in _HASH_DOMAINS[int(lowers[i])])
    return out


@lru_cache(maxsize=1024)
def _phrase_re(phrase: str) -> re.Pattern[str]:
    # Compiled once each: ``re``'s own cache is too small for a replay's patterns.
    return re.compile(rf"\b{re.escape(phrase)}\b")


def classify_domain(text: str, model: str = "", doc: Doc | None = None) -> DomainScore:
    """Score ``text`` for each domain with a lexicon over spaCy tokens.

    Rules: each token whose lower-case form matches a domain stem (exact or stem + a common
    suffix) adds 1 to that domain; each lexicon phrase adds 1; each code entity adds 0.5–1 to
    technical (issues to project, people to relationship). The winner is the top score; ties
    and empty texts give ``winner=""``. **Margin rule:** ``margin = top − runner-up``; a turn's
    domain is *confident* when ``margin ≥ DOMAIN_MARGIN`` (1.5), i.e. at least two independent
    cues more than any other domain, or one cue plus strong entity evidence. Only confident
    turns can cause or count towards a domain shift (see the gate).
    """
    if not text or not text.strip():
        return DomainScore(dict.fromkeys(DOMAINS, 0.0), "", 0.0, {})
    doc = doc if doc is not None else analyse(text, model)
    # The gate and the prompt rules both ask for a prompt's domain, over one cached doc: it is
    # kept on the doc (a score is read, never changed).
    memo = doc.user_data.get(_SCORE_KEY)
    if memo is not None and memo[0] == text:
        return memo[1]
    score = _doc_score(doc)
    doc.user_data[_SCORE_KEY] = (text, score)
    return score


#: ``doc.user_data`` key of the (text, score) :func:`classify_domain` gave for a doc
_SCORE_KEY = "rolling_graph.domain"


def _doc_score(doc: Doc) -> DomainScore:
    ents = [(LABEL_KIND.get(ent.label_, ""), ent.text) for ent in doc.ents]
    ent_tokens = {
        i
        for ent in doc.ents
        if LABEL_KIND.get(ent.label_, "") in _ENTITY_DOMAIN
        for i in range(ent.start, ent.end)
    }
    hits = [(doc[i].text, dom) for i, dom in _token_domains(doc, ent_tokens)]
    return _score(doc_text(doc).lower(), ents, hits)


_ALPHA = re.compile(r"[^\W\d_]+")


def classify_domain_text(text: str, spans: list[tuple[int, int, str, str]]) -> DomainScore:
    """:func:`classify_domain` read from the characters: ``spans`` are the text's entities as
    (start, end, label, text), every occurrence (:func:`.char_entities.entity_spans`); the words
    are the alphabetic runs outside them. For long texts that no other reader needs a doc of."""
    if not text or not text.strip():
        return DomainScore(dict.fromkeys(DOMAINS, 0.0), "", 0.0, {})
    inside = bytearray(len(text) + 1)
    for start, end, label, _ in spans:
        if LABEL_KIND.get(label, "") in _ENTITY_DOMAIN:
            inside[start:end] = b"\x01" * (end - start)
    hits = []
    for m in _ALPHA.finditer(text):
        if inside[m.start()]:
            continue
        for dom in _word_domains(m.group().lower()):
            hits.append((m.group(), dom))
    return _score(text.lower(), [(LABEL_KIND.get(lab, ""), t) for _, _, lab, t in spans], hits)


def _score(lowered: str, ents: list[tuple[str, str]], hits: list[tuple[str, str]]) -> DomainScore:
    """The scores of a text from its entities (kind, text), its words with a domain (word,
    domain) and the lexicon's phrases in ``lowered``."""
    scores = dict.fromkeys(DOMAINS, 0.0)
    words: dict[str, list[str]] = {d: [] for d in DOMAINS}
    for kind, ent_text in ents:
        if kind in _ENTITY_DOMAIN:
            dom, w = _ENTITY_DOMAIN[kind]
            scores[dom] += w
            words[dom].append(ent_text)
    for word, dom in hits:
        scores[dom] += 1.0
        words[dom].append(word)
    for dom, (_, phrases) in _LEXICON.items():
        for ph in phrases:
            # a substring test first: most phrases are absent, and ``in`` is far cheaper
            n = len(_phrase_re(ph).findall(lowered)) if ph in lowered else 0
            if n:
                scores[dom] += n
                words[dom].append(ph)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    (top, top_s), (_, second_s) = ranked[0], ranked[1]
    winner = top if top_s > second_s else ""
    return DomainScore(
        {k: round(v, 3) for k, v in scores.items()},
        winner,
        round(top_s - second_s, 3),
        {d: tuple(w) for d, w in words.items() if w},
    )
