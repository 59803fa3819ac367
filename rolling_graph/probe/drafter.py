"""The probe backend's drafting call for graduation (DESIGN §6): a warm node that proved
itself becomes a flat-memory draft written by the configured backend when it offers
``draft_memory(node, relationships, sessions) -> str``.

It lives with the probe, not in ``warm``: the warm store sits below the probe and the
engine, and gets this drafter handed in (``Reconciler(drafter=…)``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from rolling_graph.warm.graduation import Drafter, relation_phrases
from rolling_graph.warm.records import WarmEdge, WarmNode

log = logging.getLogger("rolling_graph.warm")


def probe_drafter(settings: Any, pm: Any = None) -> Drafter | None:
    """The configured probe backend's drafting call, if it has one; ``None`` otherwise."""
    try:
        from rolling_graph.probe.select import make_backend

        backend = make_backend(settings, pm)
    except Exception as err:  # noqa: BLE001 - no backend just means the offline template
        log.info("no probe backend for drafting: %s", err)
        return None
    draft = getattr(backend, "draft_memory", None)
    if not callable(draft):
        return None

    def run(node: WarmNode, edges: Sequence[WarmEdge], labels: dict[str, str]) -> str:
        relationships = relation_phrases(node, edges, labels)
        return str(draft(node=node, relationships=relationships, sessions=node.sessions_seen))

    return run
