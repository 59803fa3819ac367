"""Warm-graph arithmetic: merge rules and wall-time decay. Pure and deterministic.

Every backend calls these functions to compute the row it writes (under a row lock or the
SQLite write lock), so there is exactly one implementation of the arithmetic; the contract
suite checks each backend's stored rows against them.

Decay (DESIGN §4, warm flavour). The warm graph has no focus cluster, so the distance
factor is 1 everywhere and time alone decays it::

    staleness(days) = 1 - exp(-days / tau)          tau = 30 days by default
    warm_decay(w)   = max(floor, w * (1 - staleness)) = max(floor, w * exp(-days / tau))

``floor`` is 0.2 for anchors, 0 otherwise. Stored weights are "as of last_seen"; the
weight now is computed on read (``effective_weight``), so decay is never applied twice.
``supersedes`` edges do not decay: they record decision history, not relevance.

Merging one hot node ``h`` (hot weight) into its warm row (see ``merge_node``)::

    w        = warm weight decayed to now
    others   = sessions other than this one that have seen the node
    h'       = h * new_penalty   if others == 0 (unproven: only this session knows it)
             = h                 otherwise
    base     = max(h', w)                                   mode "max" (default)
             = (h' + r * w) / (1 + r),  r = exp(-days/tau)  mode "recency": the hot value
               counts 1, the warm value counts by its own recency (1 when seen just now,
               0.37 after tau days)
    if this flush is the session's first sighting and others >= 1:
        base = base + session_bonus * (1 - base)           cross-session frequency bonus
    weight   = clamp(max(floor, base), 0, 1)

A new node is ``h * new_penalty`` (0.8 by default). Because the penalty is keyed on
"no other session has seen it", a pre-compaction flush followed by the session-end merge
keeps the penalty, and the bonus is given once per session (the sighting row of
``(node, session)`` is the "already counted" fact). Edges use the same rules with
``strength``; a ``supersedes`` edge merges by max in every mode and never decays.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from rolling_graph.warm.records import (
    EdgeKey,
    HotEdge,
    HotNode,
    MergeBatch,
    WarmEdge,
    WarmNode,
)

MergeMode = Literal["max", "recency"]

DEFAULT_TAU_DAYS = 30.0
"""Warm decay time constant: a node untouched for 30 days keeps e^-1 ≈ 37 % of its weight."""
ANCHOR_FLOOR = 0.2
"""Anchors (seeded from flat memory) never decay below this (DESIGN §4)."""
NEW_PENALTY = 0.8
"""A node only one session has seen enters the warm graph at 80 % of its hot weight."""
SESSION_BONUS = 0.1
"""Each further session that sees a node closes 10 % of its gap to 1.0."""
SUPERSEDES = "supersedes"
MAX_ALIASES = 32
# model.MAX_ATTRS / MAX_ATTR_VALUE, repeated: the warm layer does not import pydantic models.
MAX_ATTRS = 8
MAX_ATTR_VALUE = 80
SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class MergeParams:
    """The knobs of the merge and of warm decay (one set per store)."""

    mode: MergeMode = "max"
    new_penalty: float = NEW_PENALTY
    session_bonus: float = SESSION_BONUS
    tau_days: float = DEFAULT_TAU_DAYS
    anchor_floor: float = ANCHOR_FLOOR

    def __post_init__(self) -> None:
        if self.mode not in ("max", "recency"):
            raise ValueError(f"mode must be 'max' or 'recency', not {self.mode!r}")
        for name in ("new_penalty", "session_bonus", "anchor_floor"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], not {value!r}")
        if not self.tau_days > 0:
            raise ValueError(f"tau_days must be > 0, not {self.tau_days!r}")


DEFAULT_PARAMS = MergeParams()


def store_params(settings: Any) -> MergeParams:
    """The merge parameters a configuration asks for (``merge =``, ``new_node_penalty =``)."""
    return MergeParams(
        mode=getattr(settings, "merge", "max"),
        new_penalty=float(getattr(settings, "new_node_penalty", 0.8)),
    )


# --------------------------------------------------------------------------- decay


def clamp01(value: float) -> float:
    """Clamp to [0, 1]; NaN becomes 0 so that a bad probe value cannot poison a row."""
    if value != value:  # NaN
        return 0.0
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else float(value)


def staleness(days: float, tau_days: float = DEFAULT_TAU_DAYS) -> float:
    """``1 - exp(-days / tau)``: 0 when just seen, → 1 as the node ages; negative days = 0."""
    if days <= 0.0:
        return 0.0
    return 1.0 - math.exp(-days / tau_days)


def warm_decay(
    weight: float, days: float, *, floor: float = 0.0, tau_days: float = DEFAULT_TAU_DAYS
) -> float:
    """Weight after ``days`` of wall time without a sighting; never below ``floor``."""
    return clamp01(max(floor, clamp01(weight) * (1.0 - staleness(days, tau_days))))


def days_between(earlier: datetime, later: datetime) -> float:
    """Wall-time days from ``earlier`` to ``later``, never negative (clock skew, replays)."""
    return max(0.0, (later - earlier).total_seconds() / SECONDS_PER_DAY)


def effective_weight(node: WarmNode, now: datetime, params: MergeParams = DEFAULT_PARAMS) -> float:
    """The node's weight at ``now`` (decayed from ``last_seen``)."""
    return warm_decay(
        node.weight, days_between(node.last_seen, now), floor=node.floor, tau_days=params.tau_days
    )


def effective_strength(
    edge: WarmEdge, now: datetime, params: MergeParams = DEFAULT_PARAMS
) -> float:
    """The edge's strength at ``now``; ``supersedes`` edges do not decay."""
    if edge.relationship == SUPERSEDES:
        return clamp01(edge.strength)
    return warm_decay(edge.strength, days_between(edge.last_seen, now), tau_days=params.tau_days)


def days_to_floor(weight: float, floor: float, tau_days: float = DEFAULT_TAU_DAYS) -> float | None:
    """Days until ``warm_decay`` reaches ``floor`` (``None`` without a floor, 0 if there)."""
    if floor <= 0.0:
        return None
    if weight <= floor:
        return 0.0
    return tau_days * math.log(weight / floor)


def _at_floor_since(
    weight: float, floor: float, now: datetime, previous: datetime | None, tau_days: float
) -> datetime | None:
    """When an anchor written now with ``weight`` sits (or will sit) at its floor.

    An anchor that is still at its floor after a merge keeps the earlier date, so that
    "at its floor for 6+ weeks" (archive review) is not reset by a lukewarm sighting.
    """
    days = days_to_floor(weight, floor, tau_days)
    if days is None:
        return None
    if days == 0.0:
        return previous if previous is not None and previous <= now else now
    return now + timedelta(days=days)


# --------------------------------------------------------------------------- merge


def _merge_value(
    hot: float,
    warm: float,
    days: float,
    *,
    others: int,
    new_session: bool,
    max_only: bool,
    params: MergeParams,
) -> float:
    hot_eff = clamp01(hot) if others >= 1 else clamp01(hot) * params.new_penalty
    if params.mode == "max" or max_only:
        base = max(hot_eff, warm)
    else:
        r = 1.0 - staleness(days, params.tau_days)
        base = (hot_eff + r * warm) / (1.0 + r)
    if new_session and others >= 1:
        base = base + params.session_bonus * (1.0 - base)
    return clamp01(base)


def merge_node(
    warm: WarmNode | None,
    hot: HotNode,
    *,
    scope: str,
    new_session: bool,
    now: datetime,
    params: MergeParams = DEFAULT_PARAMS,
) -> WarmNode:
    """The warm row after merging ``hot`` into ``warm`` (``None``: a new node).

    ``new_session`` is True when this flush is the first one of its session to sight the
    node (no ``(node, session)`` sighting row existed before it).
    """
    anchor = hot.anchor or (warm is not None and warm.anchor)
    floor = max(params.anchor_floor if anchor else 0.0, warm.floor if warm is not None else 0.0)
    if warm is None:
        weight = clamp01(max(floor, clamp01(hot.weight) * params.new_penalty))
        return WarmNode(
            id=hot.id,
            label=hot.label,
            domain=hot.domain,
            weight=weight,
            summary=hot.summary or None,
            aliases=tuple(sorted(set(hot.aliases)))[:MAX_ALIASES],
            kind=hot.kind or None,
            anchor=anchor,
            floor=floor,
            scope=scope,
            sessions_seen=1,
            first_seen=now,
            last_seen=now,
            at_floor_since=_at_floor_since(weight, floor, now, None, params.tau_days),
            attrs=merge_attrs({}, hot.attrs),
        )
    days = days_between(warm.last_seen, now)
    warm_now = warm_decay(warm.weight, days, floor=warm.floor, tau_days=params.tau_days)
    others = max(0, warm.sessions_seen - (0 if new_session else 1))
    base = _merge_value(
        hot.weight,
        warm_now,
        days,
        others=others,
        new_session=new_session,
        max_only=False,
        params=params,
    )
    weight = clamp01(max(floor, base))
    return replace(
        warm,
        label=hot.label or warm.label,
        domain=hot.domain or warm.domain,
        weight=weight,
        summary=hot.summary or warm.summary,
        aliases=tuple(sorted(set(warm.aliases) | set(hot.aliases)))[:MAX_ALIASES],
        kind=hot.kind or warm.kind,
        anchor=anchor,
        floor=floor,
        scope=scope,
        sessions_seen=warm.sessions_seen + (1 if new_session else 0),
        last_seen=max(warm.last_seen, now),
        at_floor_since=_at_floor_since(weight, floor, now, warm.at_floor_since, params.tau_days),
        attrs=merge_attrs(warm.attrs, hot.attrs),
    )


def merge_attrs(warm: Mapping[str, str], hot: Mapping[str, str]) -> dict[str, str]:
    """The session's attributes win key by key (a task's status moves on); keys only the warm
    row has are kept, since a session may not have pulled them. At most ``MAX_ATTRS`` keys,
    the session's first."""
    merged = {k: v for k, v in hot.items() if k and v}
    for k, v in warm.items():
        if k not in merged and v and len(merged) < MAX_ATTRS:
            merged[k] = v
    return dict(list(merged.items())[:MAX_ATTRS])


def merge_edge(
    warm: WarmEdge | None,
    hot: HotEdge,
    *,
    scope: str,
    new_session: bool,
    now: datetime,
    params: MergeParams = DEFAULT_PARAMS,
) -> WarmEdge:
    """The warm edge after merging ``hot``; same rules as nodes, no floor.

    ``supersedes`` edges are kept: they merge by max in every mode and never decay, so
    the record of which decision replaced which survives in the warm graph.
    """
    if warm is None:
        return WarmEdge(
            source=hot.source,
            relationship=hot.relationship,
            target=hot.target,
            strength=clamp01(hot.strength) * params.new_penalty,
            sessions_seen=1,
            last_seen=now,
            first_seen=now,
            scope=scope,
        )
    days = days_between(warm.last_seen, now)
    supersedes = warm.relationship == SUPERSEDES
    warm_now = (
        clamp01(warm.strength)
        if supersedes
        else warm_decay(warm.strength, days, tau_days=params.tau_days)
    )
    others = max(0, warm.sessions_seen - (0 if new_session else 1))
    strength = _merge_value(
        hot.strength,
        warm_now,
        days,
        others=others,
        new_session=new_session,
        max_only=supersedes,
        params=params,
    )
    return replace(
        warm,
        strength=strength,
        sessions_seen=warm.sessions_seen + (1 if new_session else 0),
        last_seen=max(warm.last_seen, now),
        scope=scope,
    )


# --------------------------------------------------------------------------- batches


def _as_utc(now: datetime) -> datetime:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("warm-graph times must be timezone-aware (UTC)")
    return now.astimezone(UTC)


def _text(value: Any, limit: int) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text[:limit] or None


def hot_node_from_dict(raw: Mapping[str, Any]) -> HotNode:
    """Read one DESIGN §2 node dict (the hot graph's JSON shape)."""
    aliases = raw.get("aliases") or ()
    if isinstance(aliases, str):
        aliases = (aliases,)
    return HotNode(
        id=str(raw["id"]),
        label=str(raw.get("label") or raw["id"]),
        domain=str(raw.get("domain") or "project"),
        weight=clamp01(float(raw.get("weight", 0.0))),
        summary=_text(raw.get("summary"), 200),
        aliases=tuple(sorted({str(a).strip() for a in aliases if str(a).strip()}))[:MAX_ALIASES],
        kind=_text(raw.get("kind"), 40),
        anchor=bool(raw.get("anchor", False)),
        last_activated=raw.get("last_activated"),
        attrs=_attrs(raw.get("attrs")),
    )


def _attrs(raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    out = {str(k)[:40]: str(v).strip()[:MAX_ATTR_VALUE] for k, v in raw.items() if v is not None}
    return dict(list(((k, v) for k, v in out.items() if k and v))[:MAX_ATTRS])


def hot_edge_from_dict(raw: Mapping[str, Any]) -> HotEdge:
    """Read one DESIGN §2 edge dict."""
    return HotEdge(
        source=str(raw["source"]),
        relationship=str(raw["relationship"]),
        target=str(raw["target"]),
        strength=clamp01(float(raw.get("strength", 0.0))),
        last_activated=raw.get("last_activated"),
    )


def prepare_batch(
    hot: Mapping[str, Any],
    *,
    flush_seq: int,
    now: datetime,
    scope: str = "",
    session_id: str | None = None,
    person: str = "",
) -> MergeBatch:
    """Turn a hot-graph document (plain dicts, DESIGN §2) into a ``MergeBatch``.

    Nodes and edges are sorted by key (every backend locks rows in key order, which keeps
    two concurrent merges from deadlocking) and de-duplicated (last one wins).
    """
    session = session_id if session_id is not None else str(hot.get("session_id") or "")
    if not session:
        raise ValueError("a merge needs a session_id")
    nodes = {n.id: n for n in map(hot_node_from_dict, (hot.get("nodes") or {}).values())}
    edges = {e.key: e for e in map(hot_edge_from_dict, (hot.get("edges") or {}).values())}
    return make_batch(
        nodes.values(),
        edges.values(),
        scope=scope,
        session_id=session,
        flush_seq=flush_seq,
        now=now,
        hot_turn=hot.get("turn"),
        person=person,
    )


def make_batch(
    nodes: Iterable[HotNode],
    edges: Iterable[HotEdge] = (),
    *,
    scope: str = "",
    session_id: str,
    flush_seq: int,
    now: datetime,
    hot_turn: int | None = None,
    person: str = "",
) -> MergeBatch:
    """Build a normalized ``MergeBatch`` (sorted, unique keys, UTC time)."""
    by_id: dict[str, HotNode] = {n.id: n for n in nodes}
    by_key: dict[EdgeKey, HotEdge] = {e.key: e for e in edges}
    return MergeBatch(
        scope=scope,
        session_id=session_id,
        flush_seq=int(flush_seq),
        now=_as_utc(now),
        nodes=tuple(by_id[k] for k in sorted(by_id)),
        edges=tuple(by_key[k] for k in sorted(by_key)),
        hot_turn=None if hot_turn is None else int(hot_turn),
        person=person,
    )


# --------------------------------------------------------------------------- matching

_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalize_term(text: str) -> str:
    """Lower-case words separated by single spaces (same rule as ``rolling_graph.core.slug``)."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def node_terms(node: WarmNode) -> list[str]:
    """Normalized strings a mention can match: the id, the label and the aliases."""
    terms = {normalize_term(node.id), normalize_term(node.label)}
    terms.update(normalize_term(a) for a in node.aliases)
    terms.discard("")
    return sorted(terms)


def terms_json(node: WarmNode) -> str:
    return json.dumps(node_terms(node))
