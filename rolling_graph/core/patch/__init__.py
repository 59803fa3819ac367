"""The patch engine: validate an RFC 6902 JSON Patch from a probe, normalize it, apply it whole.

A probe may only ``add`` or ``replace`` under ``/nodes/<id>`` and ``/edges/<source|rel|target>``.
Every op carries a short ``reason``. Weight and strength values are read as directions
(``"strengthen"``/``"weaken"``, or a number compared with the current value); the amount is
decided by :mod:`rolling_graph.core.weights`. The engine writes *normalized* ops (absolute values,
activation turns) and applies them (RFC 6902, :mod:`.ops`) to copies of the touched entities only,
validates those with pydantic, and commits all of them or none: a rejected patch leaves the
graph exactly as it was.
"""

from __future__ import annotations

from rolling_graph.core.model import edge_key
from rolling_graph.core.patch.apply import (
    AuditSink,
    PatchResult,
    PatchSource,
    apply_normalized,
    apply_patch,
)
from rolling_graph.core.patch.checks import Limits, PatchRejected, parse_patch
from rolling_graph.core.patch.draft import validate_patch

__all__ = [
    "AuditSink",
    "Limits",
    "PatchRejected",
    "PatchResult",
    "PatchSource",
    "apply_normalized",
    "apply_patch",
    "edge_key",
    "parse_patch",
    "validate_patch",
]
