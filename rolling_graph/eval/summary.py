"""What a replay counts per session and overall: ``summary.json``'s rows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.model import DOMAINS, HotGraph

#: the gate's prompt triggers, always present (zero or not) in summaries so runs compare
GATE_TRIGGERS = ("new_entity", "domain_shift", "decision", "correction", "dead_man")
PER_60 = 60


@dataclass
class SessionSummary:
    """Counts for one replayed session (or, merged, for the whole replay)."""

    session_id: str
    file: str
    format: str = ""
    user_turns: int = 0
    tool_steps: int = 0
    compactions: int = 0
    hook_events: int = 0
    probes: int = 0
    ops_applied: int = 0
    triggers: Counter[str] = field(default_factory=lambda: Counter(dict.fromkeys(GATE_TRIGGERS, 0)))
    injections: int = 0
    injected_tokens_total: int = 0
    injected_tokens_max: int = 0
    nodes: int = 0
    edges: int = 0
    nodes_by_domain: Counter[str] = field(default_factory=Counter)
    edges_by_domain: Counter[str] = field(default_factory=Counter)
    cross_domain_edges: int = 0
    supersedes_edges: int = 0
    rejected_patches: int = 0
    invalid_lines: int = 0
    unread_prompts: int = 0  # prompts the language rules could not read (another language)
    handle_ms: float = 0.0
    seconds: float = 0.0

    def add(self, rec: dict[str, Any]) -> None:
        self.hook_events += 1
        event = rec["event"]
        if event == "user_prompt_submit":
            self.user_turns += 1
        elif event == "post_tool_use":
            self.tool_steps += 1
        elif event == "pre_compact":
            self.compactions += 1
        self.probes += int(rec["probe"])
        self.ops_applied += rec["ops_applied"]
        self.triggers.update(rec["triggers"])
        if rec["injected"] is not None:
            self.injections += 1
            self.injected_tokens_total += rec["injected_tokens"]
            self.injected_tokens_max = max(self.injected_tokens_max, rec["injected_tokens"])
        self.handle_ms += rec["ms"]

    def add_graph(self, graph: HotGraph) -> None:
        self.nodes += len(graph.nodes)
        self.edges += len(graph.edges)
        self.nodes_by_domain.update(n.domain for n in graph.nodes.values())
        for e in graph.edges.values():
            a, b = graph.nodes[e.source].domain, graph.nodes[e.target].domain
            if a == b:
                self.edges_by_domain[a] += 1
            else:
                self.cross_domain_edges += 1
                self.edges_by_domain["cross"] += 1
            self.supersedes_edges += e.relationship == "supersedes"

    def merge(self, other: SessionSummary) -> None:
        for name in (
            "user_turns",
            "tool_steps",
            "compactions",
            "hook_events",
            "probes",
            "ops_applied",
            "injections",
            "injected_tokens_total",
            "nodes",
            "edges",
            "cross_domain_edges",
            "supersedes_edges",
            "rejected_patches",
            "invalid_lines",
            "unread_prompts",
            "handle_ms",
            "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.injected_tokens_max = max(self.injected_tokens_max, other.injected_tokens_max)
        self.triggers.update(other.triggers)
        self.nodes_by_domain.update(other.nodes_by_domain)
        self.edges_by_domain.update(other.edges_by_domain)

    @property
    def probe_rate_per_60(self) -> float:
        """Probes per 60 user turns (DESIGN §3 target: 10–15)."""
        return round(self.probes * PER_60 / self.user_turns, 2) if self.user_turns else 0.0

    @property
    def events_per_second(self) -> float:
        """Hook events per wall second, transcript reading and output writing included."""
        return round(self.hook_events / self.seconds, 1) if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "file": self.file,
            "format": self.format,
            "user_turns": self.user_turns,
            "tool_steps": self.tool_steps,
            "compactions": self.compactions,
            "hook_events": self.hook_events,
            "probes": self.probes,
            "probe_rate_per_60": self.probe_rate_per_60,
            "ops_applied": self.ops_applied,
            "triggers": dict(sorted(self.triggers.items())),
            "injections": self.injections,
            "injected_tokens_total": self.injected_tokens_total,
            "injected_tokens_max": self.injected_tokens_max,
            "nodes": self.nodes,
            "edges": self.edges,
            "nodes_by_domain": {d: self.nodes_by_domain.get(d, 0) for d in DOMAINS},
            "edges_by_domain": {d: self.edges_by_domain.get(d, 0) for d in (*DOMAINS, "cross")},
            "cross_domain_edges": self.cross_domain_edges,
            "supersedes_edges": self.supersedes_edges,
            "rejected_patches": self.rejected_patches,
            "invalid_lines": self.invalid_lines,
            "unread_prompts": self.unread_prompts,
            "handle_ms": round(self.handle_ms, 1),
            "seconds": round(self.seconds, 3),
            "events_per_second": self.events_per_second,
        }
