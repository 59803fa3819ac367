"""Slugs: the stable ids of nodes (``"Use Bento for email"`` → ``"use-bento-for-email"``)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

SLUG_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_SLUG = 64
_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """Lower-case ASCII words joined by hyphens, at most 64 characters; never empty."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    slug = slug[:MAX_SLUG].rstrip("-")
    return slug or "node"


def node_id(label: str, prefix: str = "") -> str:
    """A slug for ``label``; labels with no ASCII letters (CJK task titles) get a stable hash."""
    slug = slugify(label)
    if slug == "node" or len(slug) < 3:
        import hashlib

        digest = hashlib.sha1(label.encode("utf-8")).hexdigest()[:10]
        slug = f"{prefix or 'n'}-{digest}"
    return slug


def is_slug(value: str) -> bool:
    return bool(SLUG_RE.match(value))


def normalize_term(text: str) -> str:
    """Normalization used to compare labels, aliases and mentions."""
    # Asked for every label on every probe and render: short texts' answers are kept.
    return _normalize_short(text) if len(text) <= 200 else _normalize(text)


@lru_cache(maxsize=32_768)
def _normalize_short(text: str) -> str:
    return _normalize(text)


def _normalize(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


#: Normalized words that name nothing to look for: a warm pull's mention terms and a recall
#: query leave them out (one list for both).
SEARCH_STOP_WORDS = frozenset(
    (  # noqa: SIM905 - a word list reads better as one string
        "a an and are as at be but by do does did for from has have how i if in is it its me my "
        "no not of on or our so that the then this to up us was we what when where which who why "
        "will with you your can could should would about any all please let lets just also"
    ).split()
)
