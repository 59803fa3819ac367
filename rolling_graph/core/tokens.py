"""Token estimate for the injected block.

We cannot run the model's tokenizer offline, so we estimate conservatively: one token per
3.5 characters, rounded up. Claude's tokenizer averages about 3.5–4 characters per token on
English prose and code identifiers, so the estimate errs on the side of more tokens and a
block "within 800 tokens" by this estimate stays within budget for the real tokenizer too.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 3.5


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0
