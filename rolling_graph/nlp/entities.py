"""Code-aware entities: the rule patterns, the spaCy component that puts them on ``doc.ents``
and the :class:`Entity` items read back from an analysed doc.

Why regexes for code entities rather than token patterns: spaCy's English tokenizer splits
paths, URLs and dotted names on infixes (``src/foo.py`` → ``src``, ``/``, ``foo.py``), so
character-level patterns over ``doc.text`` are aligned back to tokens with
``doc.char_span(..., alignment_mode="expand")``. Proper nouns are token runs (title-case
tokens, read from the lexeme flags) because they are about tokens and sentence position. spaCy is imported inside the functions, never at import time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rolling_graph.nlp import runs

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc


def wordset(words: str) -> frozenset[str]:
    """A set of whitespace-separated words (lexicons read better as one string)."""
    return frozenset(words.split())


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
    see :func:`rolling_graph.core.slug.normalize_term`), spaCy ``label``, coarse ``kind`` and the
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

_FILE_DOTTED = (
    r"(?<![\w@])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*[\w]"  # a path with a slash
    rf"|(?<![\w/.-])[\w-][\w.-]*\.(?:{_FILE_EXT})\b(?!\.\w)"  # a file name with an extension
)
_FILE_BARE = rf"\b(?:{_BARE_FILES})\b"

# Ordered by priority: an earlier pattern wins where spans overlap. Where a pattern's first
# character is a rare one ("#", "@", a capital), the boundary check comes after it, as a
# lookbehind over that character: ``re`` then skips to the candidates instead of trying the
# check at every position (same matches, a third of the time).
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("URL", re.compile(r"\b(?:https?|ftp|file)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+", re.I)),
    (
        "ISSUE",
        re.compile(
            r"#(?<![\w&#/]#)\d{1,7}\b|(?:GH|PR|gh|pr)(?<!\w..)-?\d{1,7}\b"
            r"|[A-Z](?<!\w[A-Z])[A-Z0-9]{1,9}-\d{1,7}\b"
        ),
    ),
    ("COMMAND", re.compile(r"`(?!`)([^`\n]{1,200})`|^\s*\$ +([^\n]{1,200})", re.M)),
    ("PACKAGE", re.compile(r"@(?<![\w/]@)[a-z0-9][\w.-]*/[a-z0-9][\w.-]*", re.I)),
    ("FILE", re.compile(f"{_FILE_DOTTED}|{_FILE_BARE}", re.I)),
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
            # possessive runs, as in render/in_play.py's: giving back never helps
            r"(?<![\w.])(?:"
            r"[A-Z][a-z0-9]++(?:[A-Z][a-z0-9]*+)+"  # CamelCase: HotStore, GitHub
            r"|[a-z][a-z0-9]*+(?:[A-Z][a-z0-9]*+)+"  # lowerCamel: additionalContext
            r"|[A-Za-z][A-Za-z0-9]*+(?:_[A-Za-z0-9]++)+"  # snake_case, SCREAMING_SNAKE
            r"|_[A-Za-z]\w*+"  # _private
            r"|[A-Za-z_]\w*+\(\)"  # call()
            r"|--?[a-z][a-z0-9-]{1,40}"  # CLI flags: --scope
            r")(?![\w])"
        ),
    ),
    # All-caps words of 2-8 characters: MIT, CI, JSON (not "I", "OK"; see _NOT_ACRONYM).
    ("ACRONYM", re.compile(r"[A-Z](?<![\w.-][A-Z])[A-Z0-9]{1,7}s?(?![\w-])")),
]
# What every match of a pattern holds: a text without it is not searched (a pattern is tried at
# every position of a text; these begin with a character class, which ``re`` skips to, and
# most texts hold no URL, command, package or issue number).
_NEEDS = {
    "URL": re.compile(r"[:wW](?:(?<=:)//|(?<=[wW])[wW]{2}\.)"),  # "://", "www." in any case
    "ISSUE": re.compile(r"[#\-HRhr]\d"),  # "#12", "GH-12", "PR12", "JIRA-12"
    "COMMAND": re.compile(r"[`$]"),
    "PACKAGE": re.compile(r"@"),
}
# Paths, file names, dotted names and versions each hold a "." or a "/" and no space, and end
# on a word boundary or a negative lookahead: they are searched only inside the runs that hold
# one (:mod:`rolling_graph.nlp.runs`). A bare file name ("Makefile") holds neither mark: where
# the text may name one, the file pattern is searched whole.
_IN_DOTTED_RUNS = frozenset({"FILE", "MODULE", "VERSION"})
_FILE_IN_RUNS = re.compile(_FILE_DOTTED, re.I)
_BARE_LOWER = tuple(name.replace("\\.", ".").lower() for name in _BARE_FILES.split("|"))
# Characters beyond ASCII that ``re.I`` matches to an ASCII letter (İ, ı, ſ, the Kelvin sign):
# where one is in the text, lower-casing it does not show every bare file name.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def _may_name_bare_file(text: str) -> bool:
    if _FOLDS_TO_ASCII.search(text) is not None:
        return True
    low = text.lower()
    return any(name in low for name in _BARE_LOWER)


def _finditer(
    label: str, pattern: re.Pattern[str], text: str, dotted: list[tuple[int, int]]
) -> Any:
    """``pattern.finditer(text)``, searched only where its matches can lie."""
    if label not in _IN_DOTTED_RUNS:
        return pattern.finditer(text)
    if label == "FILE":
        if _may_name_bare_file(text):
            return pattern.finditer(text)
        pattern = _FILE_IN_RUNS
    return runs.finditer(pattern, text, dotted)


_NOT_ACRONYM = frozenset({"OK", "ID", "AM", "PM", "TODO", "NOTE", "IMPORTANT", "LGTM", "TBH"})
_TLDS = wordset(
    "com org net io dev ai app co se de uk fr nl eu us me sh xyz info biz tech cloud site page"
)

# Title-case words that are not names when they stand alone mid-sentence.
_NOT_PROPER = wordset("""i i'm i'll i've i'd ok okay yes no hi hey hello thanks thank please also but and so the a
    an this that these those it its what why how when where which who if then now ok. lgtm tbh
    imo fyi btw etc ps""")


def _norm(text: str) -> str:
    from rolling_graph.core.slug import normalize_term

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


#: ``doc.user_data`` key of the text a doc was made from (:func:`doc_text`)
TEXT_KEY = "rolling_graph.text"


def doc_text(doc: Doc) -> str:
    """``doc.text``, without rebuilding it token by token when the pipeline noted the text it
    was given (``doc.text`` joins every token's text: a large share of the rules' cost)."""
    text = doc.user_data.get(TEXT_KEY)
    return text if isinstance(text, str) else doc.text


def code_matches(
    text: str, align: Callable[[int, int, str], Any] | None = None
) -> list[tuple[str, int, int, Any]]:
    """(label, start, end, aligned) of the code patterns in ``text``, in pattern order, an
    earlier pattern winning where spans overlap. ``align(start, end, label)`` maps a match to
    what the caller keeps (a doc's span); a match it maps to ``None`` is dropped and takes no
    room. Without ``align`` every match is kept as itself."""
    taken = bytearray(len(text) + 1)
    out: list[tuple[str, int, int, Any]] = []
    dotted = runs.spans(text, runs.DOTTED)
    for label, pattern in _PATTERNS:
        if label in _NEEDS and _NEEDS[label].search(text) is None:
            continue
        for m in _finditer(label, pattern, text, dotted):
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
            if end <= start or taken.find(1, start, end) >= 0:
                continue
            kept = align(start, end, lab) if align is not None else text[start:end]
            if kept is None:
                continue
            taken[start:end] = b"\x01" * (end - start)
            out.append((lab, start, end, kept))
    return out


def _code_spans(doc: Doc) -> list[Any]:
    def align(start: int, end: int, label: str) -> Any:
        return doc.char_span(start, end, label=label, alignment_mode="expand")

    return [span for _, _, _, span in code_matches(doc_text(doc), align)]


def _title_runs(doc: Doc) -> list[tuple[int, int]]:
    """The maximal runs of title-case (or all-caps, 2+ letters) alphabetic tokens, as
    ``(start, end)``: what a :class:`spacy.matcher.Matcher` with the pattern
    ``[{"IS_TITLE": True, "IS_ALPHA": True, "OP": "+"}]`` and ``greedy="LONGEST"`` finds,
    read from the lexeme flags in one array instead of token by token."""
    from spacy.attrs import IS_ALPHA, IS_TITLE

    if not len(doc):
        return []
    flags = doc.to_array([IS_TITLE, IS_ALPHA]).tolist()
    runs: list[tuple[int, int]] = []
    start = -1
    for i, (title, alpha) in enumerate(flags):
        if title and alpha:
            if start < 0:
                start = i
        elif start >= 0:
            runs.append((start, i))
            start = -1
    if start >= 0:
        runs.append((start, len(flags)))
    return runs


def _proper_spans(doc: Doc, covered: set[int]) -> list[Any]:
    from spacy.tokens import Span

    out = _title_runs(doc)
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


class CodeEntities:
    """Pipeline component: rule entities (code patterns, proper nouns) merged into ``doc.ents``.

    Statistical entities already on the doc (from a trained NER) are kept where they do not
    overlap a code entity; code entities win overlaps because they are exact."""

    def __init__(self, nlp: Language) -> None:
        # Proper nouns: runs of title-case (or all-caps, 2+ letters) alphabetic tokens, "Claude
        # Code", "Bento" (:func:`_title_runs`).
        self.vocab = nlp.vocab

    def __call__(self, doc: Doc) -> Doc:
        from spacy.util import filter_spans

        code = _code_spans(doc)
        covered = {k for sp in code for k in range(sp.start, sp.end)}
        proper = _proper_spans(doc, covered)
        ner = [
            e
            for e in doc.ents
            if e.label_ in LABEL_KIND and not any(k in covered for k in range(e.start, e.end))
        ]
        ner_tokens = {k for e in ner for k in range(e.start, e.end)}
        proper = [p for p in proper if not any(k in ner_tokens for k in range(p.start, p.end))]
        doc.ents = filter_spans(code + ner + proper)
        return doc


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
