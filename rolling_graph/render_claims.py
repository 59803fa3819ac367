"""How the block says that the person corrected a claim of the agent.

The offline probe records the agent's statement a correction contradicts as a node with
``attrs["said_by"] == "agent"``; a renderer shows what replaced it as "corrects the agent: …"
rather than "… (supersedes Agent: <first words>)".
"""

from __future__ import annotations

from collections.abc import Mapping

SAID_BY = "said_by"
AGENT = "agent"


def said_by_agent(attrs: Mapping[str, str] | None) -> bool:
    return (attrs or {}).get(SAID_BY) == AGENT


def corrects_agent(label: str) -> str:
    """ "The build still fails on ARM" → "corrects the agent: the build still fails on ARM"
    (an acronym or a name keeps its capital)."""
    keep = len(label) > 1 and (label[1].isupper() or not label[:1].isalpha())
    return "corrects the agent: " + (label if keep else label[:1].lower() + label[1:])
