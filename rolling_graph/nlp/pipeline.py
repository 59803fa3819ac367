"""The spaCy pipeline: one cached ``spacy.blank("en")`` (or a configured trained pipeline) plus
the rule components, and the entry points that run it on text.

Nothing is downloaded. When ``settings.spacy_model`` names an installed trained pipeline (e.g.
``en_core_web_sm``) it is loaded instead and its statistical NER contributes entities too; the
rule components run after it. spaCy is imported on the first call, not at import time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rolling_graph.nlp.entities import TEXT_KEY, CodeEntities, Entity, entities_from_doc

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

MAX_CHARS = 20_000  # longer prompts (pasted logs) are analysed on their first 20k characters
# The gate, the probe's rules and the tool digest read the same texts within a few events (a
# prompt, the buffered turns a probe re-reads): their docs are kept, read-only, this many.
DOC_CACHE = 64


_lock = threading.Lock()


def _sentencizer_class() -> type:
    """spaCy's rule sentencizer with :meth:`predict` reading the token texts and punctuation
    flags from one array instead of creating a token object per token (same guesses; the
    annotations are set by spaCy's own code)."""
    from spacy.attrs import IS_PUNCT, ORTH
    from spacy.pipeline import Sentencizer
    from spacy.strings import hash_string

    class ArraySentencizer(Sentencizer):  # type: ignore[misc]
        def predict(self, docs: Any) -> list[list[bool]]:
            ends = {hash_string(c) for c in self.punct_chars}
            guesses: list[list[bool]] = []
            for doc in docs:
                guess = [False] * len(doc)
                if len(doc):
                    start, seen_period = 0, False
                    guess[0] = True
                    for i, (orth, punct) in enumerate(doc.to_array([ORTH, IS_PUNCT]).tolist()):
                        is_end = orth in ends
                        if seen_period and not punct and not is_end:
                            guess[start] = True
                            start, seen_period = i, False
                        elif is_end:
                            seen_period = True
                    guess[start] = True
                guesses.append(guess)
            return guesses

    return ArraySentencizer


@lru_cache(maxsize=4)
def _build(model: str) -> Language:
    import spacy
    from spacy.language import Language

    if not Language.has_factory("rolling_graph_entities"):
        Language.factory("rolling_graph_entities")(lambda nlp, name: CodeEntities(nlp))
    if not Language.has_factory("rolling_graph_sentencizer"):
        Language.factory("rolling_graph_sentencizer")(
            lambda nlp, name: _sentencizer_class()(name=name)
        )

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
        nlp.add_pipe("rolling_graph_sentencizer")
    nlp.add_pipe("rolling_graph_entities", last=True)
    return nlp


def get_nlp(model: str = "") -> Language:
    """The cached pipeline for ``model`` (blank English + rules when empty or not installed).

    Built once per process and model name; thread-safe. Build cost: ~0.3 s blank, more with a
    trained model. Share it (e.g. via ``engine.component``) rather than rebuilding."""
    with _lock:
        return _build(model)


_docs: OrderedDict[tuple[str, str], Doc] = OrderedDict()


def analyse(text: str, model: str = "") -> Doc:
    """Run the pipeline on ``text`` (truncated to :data:`MAX_CHARS`); the last
    :data:`DOC_CACHE` docs are reused. Callers read a doc, never change it."""
    key = (model, text[:MAX_CHARS])
    with _lock:
        doc = _docs.get(key)
        if doc is not None:
            _docs.move_to_end(key)
            return doc
    nlp = get_nlp(model)
    doc = nlp.make_doc(key[1])
    doc.user_data[TEXT_KEY] = key[1]  # the rules read the text without rebuilding it
    doc = nlp(doc)
    with _lock:
        _docs[key] = doc
        while len(_docs) > DOC_CACHE:
            _docs.popitem(last=False)
    return doc


def extract_entities(text: str, model: str = "") -> list[Entity]:
    """Entities in ``text``: code entities, proper nouns, and statistical NER if configured."""
    if not text or not text.strip():
        return []
    return entities_from_doc(analyse(text, model))
