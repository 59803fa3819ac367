"""Deterministic weight math. A probe says *strengthen* or *weaken*; this module decides by how much.

Keeping the arithmetic here (and out of the LLM) makes every weight reproducible from the audit log.
"""

from __future__ import annotations

STRENGTHEN = 0.25  # move a quarter of the way towards 1
WEAKEN = 0.30  # lose 30% of the current value
EPSILON = 1e-3

INITIAL_NODE_WEIGHT = {"decision": 0.7, "correction": 0.75, "preference": 0.65}
DEFAULT_NODE_WEIGHT = 0.5
INITIAL_EDGE_STRENGTH = {"supersedes": 0.9, "contradicts": 0.8}
DEFAULT_EDGE_STRENGTH = 0.5


def strengthen(w: float) -> float:
    return round(min(1.0, w + STRENGTHEN * (1.0 - w)), 6)


def weaken(w: float, floor: float = 0.0) -> float:
    return round(max(floor, w * (1.0 - WEAKEN)), 6)


def steer(current: float, requested: str | float, floor: float = 0.0) -> float:
    """Apply one step in the requested direction.

    ``requested`` is ``"strengthen"``/``"weaken"`` or a number the probe suggested; a number is
    read only as a direction relative to ``current`` (higher → strengthen), never as the amount.
    """
    if requested == "strengthen":
        return strengthen(current)
    if requested == "weaken":
        return weaken(current, floor)
    assert isinstance(requested, float | int)
    if requested > current + EPSILON:
        return strengthen(current)
    if requested < current - EPSILON:
        return weaken(current, floor)
    return current


def initial_node_weight(kind: str | None) -> float:
    return INITIAL_NODE_WEIGHT.get(kind or "", DEFAULT_NODE_WEIGHT)


def initial_edge_strength(relationship: str) -> float:
    return INITIAL_EDGE_STRENGTH.get(relationship, DEFAULT_EDGE_STRENGTH)
