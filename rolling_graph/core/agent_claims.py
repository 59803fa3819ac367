"""How the block says that the person corrected a claim of the agent.

The offline probe records the agent's statement a correction contradicts as a node with
``attrs["said_by"] == "agent"``; a renderer shows what replaced it as "corrects the agent: …"
with what the agent said, rather than "… (supersedes Agent: <first words>)".
"""

from __future__ import annotations

from collections.abc import Mapping

from rolling_graph.core.model import AGENT_CLAIM

SAID_BY = "said_by"
CLAIM_PREFIX = AGENT_CLAIM  # one prefix, the model's
AGENT = "agent"


def said_by_agent(attrs: Mapping[str, str] | None) -> bool:
    return (attrs or {}).get(SAID_BY) == AGENT


def claim_label(words: str) -> str:
    """The label of the node that records what the agent said."""
    return CLAIM_PREFIX + words


CORRECTS_AGENT = "corrects the agent: "


def corrects_agent(label: str, said: list[str] | None = None) -> str:
    """ "The build still fails on ARM" → "corrects the agent: the build still fails on ARM (it
    said: The build passes on ARM)" (an acronym or a name keeps its capital)."""
    keep = len(label) > 1 and (label[1].isupper() or not label[:1].isalpha())
    text = CORRECTS_AGENT + (label if keep else label[:1].lower() + label[1:])
    claims = [x.removeprefix(CLAIM_PREFIX) for x in said or [] if x]
    return f"{text} (it said: {'; '.join(claims)})" if claims else text
