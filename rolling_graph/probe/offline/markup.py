"""Markdown emphasis and code marks taken out of the agent's text before its words become a
label: ``**bold**``, `` `code` ``, ``_em_``, and where asked headings (``#``), table bars and
quote marks. An underscore inside a word is kept: ``created_at`` is a name, not emphasis."""

from __future__ import annotations

import re
from functools import lru_cache

# ``_em_`` / ``__strong__``: a pair of underscore runs around words, at word edges.
_UNDERSCORE_PAIR = re.compile(r"(?<![^\W_])(_{1,2})(?=[^\W_])([^\n]+?)(?<=[^\W_])\1(?![^\W_])")


@lru_cache(maxsize=16)
def _marks(extra: str) -> re.Pattern[str]:
    return re.compile(rf"[*`{re.escape(extra)}]+")


def unmark(text: str, extra: str = "", repl: str = "") -> str:
    """``text`` without its emphasis and code marks (and the characters of ``extra``), each
    run of marks replaced by ``repl``."""
    if "_" in text:
        text = _UNDERSCORE_PAIR.sub(lambda m: repl + m.group(2) + repl, text)
    return _marks(extra).sub(repl, text)
