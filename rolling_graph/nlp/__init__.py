"""Shared language tools: one cached spaCy pipeline, code-aware entities, domain scores and cues.

Used by the heuristic gate on every prompt and by the offline probe (which receives this package
as its ``nlp_mod``). Public API (stable; the offline probe builds on it):

- :func:`get_nlp` — the cached :class:`spacy.language.Language` for a model name
  (:mod:`.pipeline`).
- :func:`extract_entities` — :class:`Entity` items (files, modules, packages, identifiers, URLs,
  issue numbers, backticked commands, versions, proper nouns, statistical NER when present)
  (:mod:`.entities`, :mod:`.pipeline`).
- :func:`text_entities`, :func:`entity_spans`, :func:`classify_domain_text` — the same
  entities and domain scores read from a text's characters, without a spaCy doc, for texts no
  other rule reads (an edit, a tool line, a probe's window of prose) (:mod:`.char_entities`).
- :func:`classify_domain` — :class:`DomainScore` over relationship / project / technical /
  personal, with the winner and margin (:mod:`.domains`).
- :func:`decision_cues`, :func:`correction_cues` — the cue phrases that matched, after
  discarding false friends (:mod:`.cues`).
- :mod:`.lexicon` — the word classes of ``lexicon.toml`` that the cues and the offline probe's
  rules read (``words``, ``alternation``, ``expand``), each written once.
- :mod:`.runs` — a pattern searched only inside the runs of non-space characters that hold a
  mark it needs (paths and dotted names in prose), with the same matches.

spaCy is imported lazily (first call), so importing this package costs nothing.

May import: core, privacy (the literal a pattern's matches hold).
"""

from __future__ import annotations

from rolling_graph.nlp.char_entities import entity_spans, text_entities
from rolling_graph.nlp.cues import correction_cues, decision_cues
from rolling_graph.nlp.domains import (
    DOMAIN_MARGIN,
    DOMAINS,
    DomainScore,
    classify_domain,
    classify_domain_text,
)
from rolling_graph.nlp.entities import KINDS, Entity, entities_from_doc
from rolling_graph.nlp.pipeline import MAX_CHARS, analyse, extract_entities, get_nlp

__all__ = [
    "DOMAINS",
    "DOMAIN_MARGIN",
    "KINDS",
    "MAX_CHARS",
    "DomainScore",
    "Entity",
    "analyse",
    "classify_domain",
    "classify_domain_text",
    "correction_cues",
    "decision_cues",
    "entities_from_doc",
    "entity_spans",
    "extract_entities",
    "get_nlp",
    "text_entities",
]
