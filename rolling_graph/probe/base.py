"""The probe contract: what a backend gets (:class:`ProbeRequest`) and gives back (:class:`ProbeReply`).

A backend turns the session's recent turns plus a compact view of the hot graph into a raw
JSON Patch. It never touches the graph: the runner hands the reply to the patch engine, which
validates and applies it whole or not at all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

from rolling_graph.config import DEFAULT_RELATIONSHIPS
from rolling_graph.core.model import DOMAINS, KINDS, MAX_ALIASES, MAX_LABEL, MAX_SUMMARY

#: Set in the environment of a probe's child process (``claude -p``): our hook client exits 0
#: at once when it sees it, so the child session never runs rolling-graph hooks (recursion).
PROBE_CHILD_ENV = "ROLLING_GRAPH_PROBE_CHILD"


class ProbeError(RuntimeError):
    """A probe failed (network, timeout, refusal, unparsable reply). ``reply`` keeps usage."""

    def __init__(self, message: str, reply: ProbeReply | None = None) -> None:
        super().__init__(message)
        self.reply = reply


@dataclass
class TurnDigest:
    """What happened in one user turn, already redacted: what the person said, what the agent
    answered, and one short line per tool call (``Edit src/app.py``, ``Bash: pytest -q``)."""

    turn: int
    user: str = ""
    assistant: str = ""
    tools: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TurnDigest:
        return cls(
            turn=int(d.get("turn", 0)),
            user=str(d.get("user", "")),
            assistant=str(d.get("assistant", "")),
            tools=[str(t) for t in d.get("tools", [])],
        )


@dataclass
class NodeView:
    """One node as a probe sees it: enough to link to it and to avoid near-duplicates."""

    id: str
    label: str
    domain: str
    weight: float
    kind: str | None = None
    aliases: list[str] = field(default_factory=list)
    last_activated: int = 0
    focus: bool = False
    superseded: bool = False
    attrs: dict[str, str] | None = None


@dataclass
class ProbeRequest:
    """Input of one probe run. ``turns`` are redacted; ``nodes`` is the whole hot graph in
    compact form (backends that send a prompt cut it down, see :mod:`rolling_graph.probe.prompt`)."""

    session_id: str
    turn: int
    turns: list[TurnDigest]
    nodes: list[NodeView] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (source, rel, target)
    triggers: list[dict[str, Any]] = field(default_factory=list)
    max_ops: int = 64
    relationships: tuple[str, ...] = DEFAULT_RELATIONSHIPS
    prompt_id: str = ""  # blank: the default prompt file
    # The agent's latest text from turns an earlier probe already took: what the first prompt
    # here answers ("no, not that") when the turn it ended was probed mid-way.
    before: str = ""
    # The agent's message before that one: a reply may contradict what it said a turn earlier
    # ("you can restart yourself" after "I can't quit myself", then a status table).
    earlier: str = ""
    _index: Any = field(default=None, init=False, repr=False, compare=False)

    def node(self, nid: str) -> NodeView | None:
        # Asked for many ids per probe: one index per request, rebuilt if the list is replaced
        # or grows (nothing edits a node view in place).
        index = self._index
        if index is None or index[0] is not self.nodes or index[1] != len(self.nodes):
            by_id: dict[str, NodeView] = {}
            for n in self.nodes:
                by_id.setdefault(n.id, n)  # the first, as the scan gave
            index = self._index = (self.nodes, len(self.nodes), by_id)
        return index[2].get(nid)


@dataclass
class ProbeReply:
    """A backend's answer: the raw patch (not yet validated) plus cost and provenance."""

    raw: Any
    backend: str
    prompt_id: str | None = None
    prompt_hash: str | None = None
    tokens_in: int = 0  # every input token, cached or not
    tokens_out: int = 0
    tokens_cached: int = 0  # of tokens_in: read from the provider's prompt cache
    tokens_cache_write: int = 0  # of tokens_in: written to it (Anthropic bills these higher)
    tokens_estimated: bool = False
    error: str | None = None
    ms: float = 0.0
    model: str | None = None

    def audit_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "backend": self.backend,
            "model": self.model,
            "prompt_id": self.prompt_id,
            "prompt_hash": self.prompt_hash,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "ms": round(self.ms, 1),
        }
        if self.tokens_cached or self.tokens_cache_write:
            out["tokens_cached"] = self.tokens_cached
            out["tokens_cache_write"] = self.tokens_cache_write
        if self.tokens_estimated:
            out["tokens_estimated"] = True
        return out


def is_paid(backend: ProbeBackend) -> bool:
    """The offline probe is free; everything else (API, CLI, local model, plugin) is paid."""
    return backend.name != "offline" and bool(getattr(backend, "paid", True))


class ProbeBackend(ABC):
    """A way to produce a patch. Implementations must be safe to call from a worker thread."""

    name: str = "base"
    #: whether a call costs money or a model's time: paid backends run under the cost policy
    #: (:mod:`rolling_graph.gate.paid`), budgets and backoff; free ones whenever the gate says
    paid: bool = True

    @abstractmethod
    def run(self, request: ProbeRequest) -> ProbeReply:
        """Produce a patch for ``request``; raise :class:`ProbeError` on any failure."""

    def close(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Release clients or processes (called when the engine closes)."""


def patch_schema(
    max_ops: int = 64, relationships: tuple[str, ...] = DEFAULT_RELATIONSHIPS
) -> dict[str, Any]:
    """JSON Schema of the patch a probe returns: the forced tool's ``input_schema`` and the CLI's
    ``--json-schema``. It describes the shape; the engine still checks paths, slugs and limits."""
    direction = {
        "anyOf": [
            {"type": "string", "enum": ["strengthen", "weaken"]},
            {"type": "number", "minimum": 0, "maximum": 1},
        ]
    }
    node_value = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "label": {"type": "string", "maxLength": MAX_LABEL},
            "domain": {"type": "string", "enum": list(DOMAINS)},
            "kind": {"type": "string", "enum": list(KINDS)},
            "summary": {"type": "string", "maxLength": MAX_SUMMARY},
            "aliases": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_ALIASES},
            "attrs": {
                "type": "object",
                "description": "small facts of this node: status, due, role, team, constraint",
                "additionalProperties": {"type": "string", "maxLength": 80},
                "maxProperties": 8,
            },
            "weight": direction,
        },
        "additionalProperties": False,
    }
    edge_value = {
        "type": "object",
        "properties": {
            "source": {"type": "string"},
            "relationship": {"type": "string", "enum": sorted(relationships)},
            "target": {"type": "string"},
            "strength": direction,
        },
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "rationale": {"type": "string", "description": "one line: what changed"},
            "ops": {
                "type": "array",
                "maxItems": max_ops,
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": ["add", "replace"]},
                        "path": {
                            "type": "string",
                            "pattern": "^/(nodes|edges)/",
                            "description": "/nodes/<id>[/<field>|/aliases/-] or /edges/<source|relationship|target>[/strength]",
                        },
                        "value": {"anyOf": [node_value, edge_value, direction, {"type": "string"}]},
                        "reason": {"type": "string", "maxLength": 300},
                    },
                    "required": ["op", "path", "value", "reason"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["rationale", "ops"],
        "additionalProperties": False,
    }
