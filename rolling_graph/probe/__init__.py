"""Probes: turn the recent turns and the hot graph into a JSON Patch (DESIGN §7).

Backends: ``anthropic`` (SDK, forced tool), ``claude-cli`` (``claude -p``), ``offline``
(spaCy rules); :mod:`~rolling_graph.probe.select` picks one, :mod:`~rolling_graph.probe.runner`
runs them asynchronously. Submodules import their heavy dependencies lazily.

May import: core, config, paths, privacy, nlp, render, warm.
"""

from __future__ import annotations

from rolling_graph.probe.base import (
    PROBE_CHILD_ENV,
    NodeView,
    ProbeBackend,
    ProbeError,
    ProbeReply,
    ProbeRequest,
    TurnDigest,
    patch_schema,
)

__all__ = [
    "PROBE_CHILD_ENV",
    "NodeView",
    "ProbeBackend",
    "ProbeError",
    "ProbeReply",
    "ProbeRequest",
    "TurnDigest",
    "patch_schema",
]
