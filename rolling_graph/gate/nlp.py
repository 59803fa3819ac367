"""The shared spaCy layer: one cached pipeline, code-aware entities, domain scores and cues.

Used by the heuristic gate on every prompt and by the offline probe. Nothing is downloaded:
the pipeline is ``spacy.blank("en")`` plus rule components. When ``settings.spacy_model``
names an installed trained pipeline (e.g. ``en_core_web_sm``) it is loaded instead and its
statistical NER contributes entities too; the rule components run after it.

Public API (stable; the offline probe builds on it):

- :func:`get_nlp` — the cached :class:`spacy.language.Language` for a model name.
- :func:`extract_entities` — :class:`Entity` items (files, modules, packages, identifiers, URLs,
  issue numbers, backticked commands, versions, proper nouns, statistical NER when present).
- :func:`classify_domain` — :class:`DomainScore` over relationship / project / technical /
  personal, with the winner and margin (see the function for the margin rule).
- :func:`decision_cues`, :func:`correction_cues` — the cue phrases that matched, after
  discarding false friends ("no problem", "actually works", "wait for", …).

spaCy is imported lazily (first call), so importing this module costs nothing.

Why regexes for code entities rather than token patterns: spaCy's English tokenizer splits
paths, URLs and dotted names on infixes (``src/foo.py`` → ``src``, ``/``, ``foo.py``), so
character-level patterns over ``doc.text`` are aligned back to tokens with
``doc.char_span(..., alignment_mode="expand")``. Proper nouns are token patterns (a
:class:`spacy.matcher.Matcher` over title-case tokens) because they are about tokens and
sentence position.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

MAX_CHARS = 20_000  # longer prompts (pasted logs) are analysed on their first 20k characters


def _w(words: str) -> frozenset[str]:
    return frozenset(words.split())


# ---------------------------------------------------------------------------------------------
# Entities
# ---------------------------------------------------------------------------------------------

KINDS = (
    "url",
    "issue",
    "command",
    "package",
    "file",
    "module",
    "version",
    "identifier",
    "acronym",
    "proper",
    "person",
)

# spaCy entity label → Entity.kind (rule labels are ours; the rest come from statistical NER).
LABEL_KIND: dict[str, str] = {
    "URL": "url",
    "ISSUE": "issue",
    "COMMAND": "command",
    "PACKAGE": "package",
    "FILE": "file",
    "MODULE": "module",
    "VERSION": "version",
    "IDENT": "identifier",
    "ACRONYM": "acronym",
    "PROPER": "proper",
    "PERSON": "person",
    "ORG": "proper",
    "PRODUCT": "proper",
    "GPE": "proper",
    "LOC": "proper",
    "FAC": "proper",
    "NORP": "proper",
    "EVENT": "proper",
    "WORK_OF_ART": "proper",
    "LAW": "proper",
    "LANGUAGE": "proper",
}


@dataclass(frozen=True)
class Entity:
    """One entity mention: surface ``text``, normalized ``norm`` (as node labels are compared,
    see :func:`rolling_graph.slug.normalize_term`), spaCy ``label``, coarse ``kind`` and the
    character offsets in the analysed text."""

    text: str
    norm: str
    label: str
    kind: str
    start: int
    end: int


_FILE_EXT = (
    r"py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|vue|svelte|json|jsonl|toml|ya?ml|ini|cfg|conf|env|lock|"
    r"md|mdx|rst|txt|csv|tsv|html?|css|scss|sass|less|svg|png|jpe?g|gif|webp|ico|pdf|sql|db|"
    r"sqlite|rs|go|java|kt|kts|swift|rb|php|c|h|cc|cpp|hpp|cs|m|mm|sh|bash|zsh|fish|ps1|bat|"
    r"lua|r|scala|ex|exs|erl|hs|ml|dart|gradle|xml|proto|graphql|tf|dockerfile|mk|log|wasm|zip|"
    r"gz|tar|mp3|mp4|wav|ogg"
)
_BARE_FILES = r"Dockerfile|Makefile|Procfile|Gemfile|Rakefile|Justfile|LICENSE|README|CHANGELOG|CLAUDE\.md|AGENTS\.md"

# Ordered by priority: an earlier pattern wins where spans overlap.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("URL", re.compile(r"\b(?:https?|ftp|file)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+", re.I)),
    (
        "ISSUE",
        re.compile(
            r"(?<![\w&#/])#\d{1,7}\b|\b(?:GH|PR|gh|pr)-?\d{1,7}\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b"
        ),
    ),
    ("COMMAND", re.compile(r"`(?!`)([^`\n]{1,200})`|^\s*\$ +([^\n]{1,200})", re.M)),
    ("PACKAGE", re.compile(r"(?<![\w/])@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*", re.I)),
    (
        "FILE",
        re.compile(
            r"(?<![\w@])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*[\w]"  # a path with a slash
            rf"|(?<![\w/.-])[\w-][\w.-]*\.(?:{_FILE_EXT})\b(?!\.\w)"  # a file name with an extension
            rf"|\b(?:{_BARE_FILES})\b",
            re.I,
        ),
    ),
    (
        "VERSION",
        re.compile(
            r"(?<![\w.])v?\d+\.\d+(?:\.\d+){0,3}(?:-?(?:alpha|beta|rc|a|b|dev)\d*)?\b", re.I
        ),
    ),
    # Dotted names: foo.bar, os.path.join, random.org (no one-letter parts: "e.g.", "i.e.").
    ("MODULE", re.compile(r"(?<![\w.@/])[A-Za-z_][\w]+(?:\.[A-Za-z_][\w]+)+(?:\(\))?(?![\w/])")),
    (
        "IDENT",
        re.compile(
            r"(?<![\w.])(?:"
            r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+"  # CamelCase: HotStore, GitHub
            r"|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+"  # lowerCamel: additionalContext
            r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"  # snake_case, SCREAMING_SNAKE
            r"|_[A-Za-z]\w*"  # _private
            r"|[A-Za-z_]\w*\(\)"  # call()
            r"|--?[a-z][a-z0-9-]{1,40}"  # CLI flags: --scope
            r")(?![\w])"
        ),
    ),
    # All-caps words of 2-8 characters: MIT, CI, JSON (not "I", "OK"; see _NOT_ACRONYM).
    ("ACRONYM", re.compile(r"(?<![\w.-])[A-Z][A-Z0-9]{1,7}s?(?![\w-])")),
]
_NOT_ACRONYM = frozenset({"OK", "ID", "AM", "PM", "TODO", "NOTE", "IMPORTANT", "LGTM", "TBH"})
_TLDS = _w(
    "com org net io dev ai app co se de uk fr nl eu us me sh xyz info biz tech cloud site page"
)

# Title-case words that are not names when they stand alone mid-sentence.
_NOT_PROPER = _w("""i i'm i'll i've i'd ok okay yes no hi hey hello thanks thank please also but and so the a
    an this that these those it its what why how when where which who if then now ok. lgtm tbh
    imo fyi btw etc ps""")


def _norm(text: str) -> str:
    from rolling_graph.slug import normalize_term

    return normalize_term(text)


def _sentence_initial(doc: Doc, i: int) -> bool:
    """True where a capital letter says nothing: sentence starts, line starts, after bullets,
    colons and quotes."""
    tok = doc[i]
    if tok.is_sent_start or i == 0:
        return True
    j = i - 1
    while j >= 0 and (doc[j].is_space or doc[j].text in {"-", "*", "•", ">", "(", '"', "'", "“"}):
        if "\n" in doc[j].text_with_ws:
            return True
        j -= 1
    if j < 0:
        return True
    prev = doc[j]
    return "\n" in prev.whitespace_ or prev.text in {".", "!", "?", ":", ";", "…"} or prev.is_digit


def _code_spans(doc: Doc) -> list[Any]:
    from spacy.tokens import Span

    text = doc.text
    taken = [False] * (len(text) + 1)
    spans: list[Any] = []
    for label, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            lab = label
            if label == "COMMAND":
                grp = 1 if m.group(1) is not None else 2
                start, end = m.span(grp)
                inner = text[start:end].strip()
                if not inner:
                    continue
                if " " not in inner:
                    continue  # a single backticked word is classified by the other patterns
            elif label == "URL":
                while end > start and text[end - 1] in ".,;:!?)]}'\"":
                    end -= 1
            elif label == "MODULE":
                core = text[start:end].removesuffix("()")
                if re.search(rf"\.(?:{_FILE_EXT})$", core, re.I) or core.count(".") == 0:
                    continue
                if core.rsplit(".", 1)[1].lower() in _TLDS and "_" not in core:
                    lab = "URL"  # a bare domain name: random.org
            elif label == "ACRONYM" and text[start:end].rstrip("s") in _NOT_ACRONYM:
                continue
            if end <= start or any(taken[start:end]):
                continue
            span = doc.char_span(start, end, alignment_mode="expand")
            if span is None:
                continue
            for k in range(start, end):
                taken[k] = True
            spans.append(Span(doc, span.start, span.end, label=lab))
    return spans


def _proper_spans(doc: Doc, matcher: Any, covered: set[int]) -> list[Any]:
    from spacy.tokens import Span

    out: list[Any] = []
    for _, start, end in matcher(doc):
        out.append((start, end))
    # Longest non-overlapping runs of title-case tokens, trimmed of initial/stop words.
    out.sort(key=lambda se: (se[0], -(se[1] - se[0])))
    spans: list[Any] = []
    last_end = -1
    for start, end in out:
        if start < last_end:
            continue
        s = start
        while s < end and (
            doc[s].lower_ in _NOT_PROPER
            or (doc[s].is_stop and doc[s].is_title)
            or (_sentence_initial(doc, s) and (end - s == 1 or doc[s].is_stop))
        ):
            s += 1
        if s >= end or any(k in covered for k in range(s, end)):
            continue
        if end - s == 1 and (len(doc[s].text) < 2 or doc[s].lower_ in _NOT_PROPER):
            continue
        spans.append(Span(doc, s, end, label="PROPER"))
        last_end = end
    return spans


class _CodeEntities:
    """Pipeline component: rule entities (code patterns, proper nouns) merged into ``doc.ents``.

    Statistical entities already on the doc (from a trained NER) are kept where they do not
    overlap a code entity; code entities win overlaps because they are exact."""

    def __init__(self, nlp: Language) -> None:
        from spacy.matcher import Matcher

        self.matcher = Matcher(nlp.vocab)
        # A run of title-case (or all-caps, 2+ letters) alphabetic tokens: "Claude Code", "Bento".
        self.matcher.add(
            "PROPER",
            [[{"IS_TITLE": True, "IS_ALPHA": True, "OP": "+"}]],
            greedy="LONGEST",
        )

    def __call__(self, doc: Doc) -> Doc:
        from spacy.util import filter_spans

        code = _code_spans(doc)
        covered = {k for sp in code for k in range(sp.start, sp.end)}
        proper = _proper_spans(doc, self.matcher, covered)
        ner = [
            e
            for e in doc.ents
            if e.label_ in LABEL_KIND and not any(k in covered for k in range(e.start, e.end))
        ]
        ner_tokens = {k for e in ner for k in range(e.start, e.end)}
        proper = [p for p in proper if not any(k in ner_tokens for k in range(p.start, p.end))]
        doc.ents = filter_spans(code + ner + proper)
        return doc


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _build(model: str) -> Language:
    import spacy
    from spacy.language import Language

    if not Language.has_factory("rolling_graph_entities"):
        Language.factory("rolling_graph_entities")(lambda nlp, name: _CodeEntities(nlp))

    nlp: Language
    if model:
        try:
            nlp = spacy.load(model, exclude=["lemmatizer"])
        except (OSError, ImportError, ValueError):
            import logging

            logging.getLogger("rolling_graph").warning(
                "spaCy model %r is not installed; using rules only", model
            )
            nlp = spacy.blank("en")
    else:
        nlp = spacy.blank("en")
    if not any(p in nlp.pipe_names for p in ("parser", "senter", "sentencizer")):
        nlp.add_pipe("sentencizer")
    nlp.add_pipe("rolling_graph_entities", last=True)
    return nlp


def get_nlp(model: str = "") -> Language:
    """The cached pipeline for ``model`` (blank English + rules when empty or not installed).

    Built once per process and model name; thread-safe. Build cost: ~0.3 s blank, more with a
    trained model. Share it (e.g. via ``engine.component``) rather than rebuilding."""
    with _lock:
        return _build(model)


def analyse(text: str, model: str = "") -> Doc:
    """Run the pipeline on ``text`` (truncated to :data:`MAX_CHARS`)."""
    return get_nlp(model)(text[:MAX_CHARS])


def entities_from_doc(doc: Doc) -> list[Entity]:
    """:class:`Entity` items from an analysed doc, in text order, deduplicated by ``norm``+kind."""
    out: list[Entity] = []
    seen: set[tuple[str, str]] = set()
    for ent in doc.ents:
        kind = LABEL_KIND.get(ent.label_)
        if kind is None:
            continue
        text = ent.text.strip().strip("`")
        norm = _norm(text)
        if not norm or (norm, kind) in seen:
            continue
        seen.add((norm, kind))
        out.append(Entity(text, norm, ent.label_, kind, ent.start_char, ent.end_char))
    return out


def extract_entities(text: str, model: str = "") -> list[Entity]:
    """Entities in ``text``: code entities, proper nouns, and statistical NER if configured."""
    if not text or not text.strip():
        return []
    return entities_from_doc(analyse(text, model))


# ---------------------------------------------------------------------------------------------
# Domain classifier
# ---------------------------------------------------------------------------------------------

DOMAINS = ("relationship", "project", "technical", "personal")

# Lexicon: lower-case word stems (a token matches when it equals the stem or starts with it
# followed only by a common suffix) and multi-word phrases (matched on the lower-cased text).
_LEXICON: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "relationship": (
        _w("""thank thanks appreciate sorry apolog frustrat annoy disappoint trust friend
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
        _w("""project deadline release ship shipping milestone roadmap plan planning scope
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
        _w("""code function method class bug error exception traceback stack test tests
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
        _w("""tired sleep sleepy weekend vacation holiday holidays sick ill health doctor
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


def _stem_match(word: str, stems: frozenset[str]) -> bool:
    if word in stems:
        return True
    return any(word.endswith(suf) and word[: -len(suf)] in stems for suf in _SUFFIXES[1:])


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
    scores = dict.fromkeys(DOMAINS, 0.0)
    words: dict[str, list[str]] = {d: [] for d in DOMAINS}
    if not text or not text.strip():
        return DomainScore(scores, "", 0.0, {})
    doc = doc if doc is not None else analyse(text, model)
    lowered = doc.text.lower()
    ent_tokens: set[int] = set()
    for ent in doc.ents:
        kind = LABEL_KIND.get(ent.label_, "")
        if kind in _ENTITY_DOMAIN:
            dom, w = _ENTITY_DOMAIN[kind]
            scores[dom] += w
            words[dom].append(ent.text)
            ent_tokens.update(range(ent.start, ent.end))
    for tok in doc:
        if tok.i in ent_tokens or not tok.is_alpha:
            continue
        lw = tok.lower_
        for dom, (stems, _) in _LEXICON.items():
            if _stem_match(lw, stems):
                scores[dom] += 1.0
                words[dom].append(tok.text)
    for dom, (_, phrases) in _LEXICON.items():
        for ph in phrases:
            n = len(re.findall(rf"\b{re.escape(ph)}\b", lowered))
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


# ---------------------------------------------------------------------------------------------
# Decision and correction cues
# ---------------------------------------------------------------------------------------------

# Each cue is a regex over the lower-cased text; the matched words are reported.
_IMPERATIVE_VERBS = (
    r"implement|add|remove|create|make|change|rename|replace|delete|install|uninstall|set ?up|"
    r"setup|build|write|rewrite|update|upgrade|move|convert|deploy|commit|push|pull|switch|use|"
    r"refactor|migrate|drop|host|apply|perform|ignore|leave|keep|start|stop|sync|clean|save|"
    r"configure|config|enable|disable|log|name|call|put|merge|revert|force|scrub|purge|"
    r"harden|pin|bump|restrict|allow|block|skip|turn|split|combine|extract|generate|publish|"
    r"release|ship|prefer|go|do|wire|run|open|close|archive|upload|download|integrate"
)
# Each cue is a regex over the lower-cased text; the matched words are reported.
_DECISION = [
    r"\blet'?s (?:go with|use|do|switch|stick with|keep|make|pick|try|move|add|remove|drop|build|"
    r"change|create|implement|start|go ahead|proceed|rename|replace|call|name|be|call)\b",
    r"\blets (?:go with|use|do|switch|stick with|keep|make|pick|start|add|call|name|be)\b",
    r"\blet us (?:go with|use|do|switch|stick with|keep)\b",
    r"\b(?:we|i)(?:'ll| will| are going to|'re going to| am going to|'m going to) "
    r"(?:use|go with|switch|stick with|keep|host|deploy|build|move|adopt|drop|need|start)\b",
    r"\b(?:i|we)(?:'ve| have)? decided\b",
    r"\bdecid(?:ed|ing) (?:to|on|against)\b",
    r"\b(?:the|our|my) (?:plan|decision|approach|choice) (?:is|will be|should be)\b",
    r"\bgo with\b",
    r"\bgo ahead\b",
    r"\bswitch(?:ing)? (?:to|over|from)\b",
    r"\bstick (?:with|to)\b",
    r"\b(?:use|using) [\w./@-]+ instead\b",
    r"\binstead of\b",
    r"\b(?:don'?t|do not|never|no longer|stop) (?:use|using|add|adding|do|doing|touch|include|"
    r"change|create|commit|push|deploy)\b",
    r"\b(?:always|from now on|going forward|in the future|for now)\b",
    r"\bwe (?:should|must|need to|have to)\b",
    r"\b(?:i|we) (?:only |really |just )?(?:want|prefer|'d like|would like|'d rather|would rather)\b",
    r"\bi (?:don'?t|do not) want\b",
    r"\b(?:would be|is) (?:a |much )?better\b|\bpreferably\b|\bsounds best\b",
    r"\b(?:make|keep) (?:it|this|that|them|sure)\b",
    r"\b(?:approved?|agreed|settled|confirmed|chosen|picked|sounds good|lgtm)\b",
    r"\b(?:yes|yep|ok|okay|sure),? (?:do|go|let'?s|proceed|implement|use|please)\b",
    rf"\bplease (?:{_IMPERATIVE_VERBS})\b",
    # An imperative at the start of the text, a line, a sentence or a clause ("yes, install x").
    rf"(?:^|[\n.;!:]\s*|\b(?:yes|yep|ok|okay|sure|great|cool|nice|now|then|and|also|so),?\s+|"
    rf"^\s*(?:claude\s+)?\"?(?:/[\w:-]+\s+)?|^\s*[-*\d.)]+\s+)(?:{_IMPERATIVE_VERBS})\b",
    rf"\b(?:can|could|would) you (?:please )?(?:{_IMPERATIVE_VERBS})\b",
    # Picking one of the options the agent offered: "2", "option 3", "1.A 2. B", "start with 4".
    r"^\s*(?:option\s*)?\d{1,2}\s*[.):]?\s*(?:[a-e]\b|\w+|$)",
    r"\boption\s*\d{1,2}\b|\bwith option\b",
    r"^\s*[a-e]\s*[.)]?\s*$",
    # Chinese, French, Spanish, German cues for wanting/choosing.
    r"我希望|我想要|我要|就用|决定|改成|换成|先.{0,20}吧",
    r"\bje (?:veux|voudrais|préfère)\b|\bon (?:garde|utilise|part sur)\b",
    r"\b(?:quiero|usemos|vamos a usar)\b|\b(?:ich will|wir nehmen|lass uns)\b",
]
# Phrases that look like a decision cue but are not one.
_DECISION_FALSE = [
    r"\bgo ahead and (?:tell|explain|show)\b",
    r"\binstead of (?:me|you) (?:having to|doing)\b",
]

_CORRECTION = [
    r"\bactually\b",
    r"(?:^|[.!?]\s+|\n)no[,.!:;]",  # "No, …" at a sentence start
    r"^no\b",
    r"(?:^|[.!?]\s+|\n)nope\b",
    r"\bwait\b",
    r"\bhold on\b",
    r"\bnot (?:that|this|what i|quite|right|correct|true|like that|the)\b",
    r"\bi meant\b",
    r"\bwhat i meant\b",
    r"\bi mean\b",
    r"\bthat'?s (?:not|wrong|incorrect)\b",
    r"\bthat is (?:not|wrong|incorrect)\b",
    r"\b(?:is|are|was|were|it'?s|isn'?t|doesn'?t|don'?t) (?:still )?(?:wrong|incorrect|broken)\b",
    r"\bwrong\b",
    r"\bincorrect\b",
    r"\bmistake\b",
    r"\bi said\b",
    r"\bi told you\b",
    r"\bundo\b",
    r"\brevert\b",
    r"\broll ?back\b",
    r"\bscratch that\b",
    r"\bnever ?mind\b",
    r"\bnvm\b",
    r"\bcorrection\b",
    r"\bthat'?s not what\b",
    r"\bstill (?:not|doesn'?t|don'?t|isn'?t|broken|failing|fails|wrong|the same|getting|seeing|"
    r"shows?|happening|no)\b",
    r"\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not|won'?t|can'?t|not) "
    r"(?:work|working|load|loading|show|showing|fix|fixed|help|change|compile|build|run|start|"
    r"display|appear|render|happen|seem)\b",
    r"\bnot what i (?:asked|wanted|meant|said)\b",
    r"\bwhy (?:did|would|are|won'?t|wouldn'?t|don'?t|didn'?t|can'?t|aren'?t|do|is|isn'?t) you\b",
    # Handing the task back: "you run it", "figure it out yourself".
    r"(?:^|[.!?;,\n]\s*)you (?:run|do|try|check|fix|handle|test|execute|restart|can) "
    r"(?:it|that|this|them)\b",
    r"\byourself\b",
    # A correcting preamble: "update: …", "correction: …", "fix: …".
    r"^\s*(?:update|correction|clarification|edit|fix|note)\s*:",
    # Restating what something is: "X is our repo", "this is the staging box".
    r"^\s*[\w.-]+ (?:is|are) (?:our|my|the real|the actual|actually)\b",
    r"\bdouble[- ]?check\b|\buh+h\b",
    r"\b(?:always|never) (?:verify|check|run|use|test|ask|sign|commit|push)\b",
    r"\byou (?:forgot|missed|broke|removed|deleted|ignored|didn'?t)\b",
    r"\binstead\b",
    r"\brather than\b",
    r"\bshould(?:n'?t| not)? (?:be|have)\b",
    r"\bbroke\b|\bbroken\b",
    r"\bno longer\b",
]
# False friends: matched spans inside these are discarded before the cue counts.
_CORRECTION_FALSE = [
    r"\bno (?:problem|problems|worries|worry|need|rush|pressure|idea|doubt|biggie|sweat|"
    r"matter|thanks|thank you)\b",
    r"\bno,? (?:that'?s|it'?s) (?:fine|ok|okay|great|perfect|good|alright)\b",
    r"\bactually (?:works?|worked|working|looks? (?:good|great|fine)|pretty|quite|really|very|"
    r"nice|good|great|love|like)\b",
    r"\bwait(?:s|ed|ing)? (?:for|until|till|on|a (?:bit|second|minute|moment|sec)|until)\b",
    r"\b(?:can'?t|cannot|couldn'?t) wait\b",
    r"\bwait time\b",
    r"\bno one\b|\bno-one\b|\bno longer (?:need|needed|required)\b",
    r"\bnot (?:the same|only|just|sure|yet|bad|too|a big deal|a problem)\b",
    r"\bnothing wrong\b|\bwhat(?:'s| is| was) wrong\b|\bgo(?:es|ne)? wrong\b|\bcould go wrong\b",
    r"\bi mean,? (?:it|this|that)'?s (?:great|good|perfect|nice|awesome)\b",
    r"\bnever mind the\b",
    r"\bnot that (?:i|it|we|you|there)\b",
]


@lru_cache(maxsize=1)
def _compiled() -> tuple[list[re.Pattern[str]], ...]:
    flags = re.I | re.M
    return (
        [re.compile(p, flags) for p in _DECISION],
        [re.compile(p, flags) for p in _DECISION_FALSE],
        [re.compile(p, flags) for p in _CORRECTION],
        [re.compile(p, flags) for p in _CORRECTION_FALSE],
    )


def _strip_code(text: str) -> str:
    """Blank out fenced code, inline code, quoted blocks and URLs: cue words there are not the
    person's own ("wrong" in a pasted error message) — same length, so offsets stay valid."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    text = re.sub(r"```.*?(?:```|$)", blank, text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", blank, text)
    text = re.sub(r"https?://\S+", blank, text)
    text = re.sub(r"(?m)^\s*>.*$", blank, text)
    return text


def _cues(text: str, pos: list[re.Pattern[str]], neg: list[re.Pattern[str]]) -> list[str]:
    if not text:
        return []
    body = _strip_code(text[:MAX_CHARS]).lower()
    body = body.replace("\u2019", "'")
    false_spans = [m.span() for p in neg for m in p.finditer(body)]
    out: list[str] = []
    for p in pos:
        for m in p.finditer(body):
            s, e = m.span()
            if any(fs <= s < fe or fs < e <= fe for fs, fe in false_spans):
                continue
            word = " ".join(m.group(0).strip(" ,.!:;\n").split())
            if word and word not in out:
                out.append(word)
    return out


def decision_cues(text: str) -> list[str]:
    """Decision language in ``text`` ("let's go with", "we'll use", "switch to", "decided",
    imperatives that commit to a change…), as the matched words; [] if none."""
    pos, neg, _, _ = _compiled()
    return _cues(text, pos, neg)


def correction_cues(text: str) -> list[str]:
    """Correction language ("actually", "no,", "wait", "I meant", "that's wrong", "still not
    working"…) minus false friends ("no problem", "no worries", "no need", "actually works",
    "wait for", "can't wait"); the matched words, [] if none."""
    _, _, pos, neg = _compiled()
    return _cues(text, pos, neg)


__all__ = [
    "DOMAINS",
    "DOMAIN_MARGIN",
    "DomainScore",
    "Entity",
    "KINDS",
    "analyse",
    "classify_domain",
    "correction_cues",
    "decision_cues",
    "entities_from_doc",
    "extract_entities",
    "get_nlp",
]
