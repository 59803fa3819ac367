"""The extraction scorer on a graph written by hand: what finds a label, and which predicted
nodes count against precision."""

from __future__ import annotations

from typing import Any

from rolling_graph.eval.extraction import score


def _node(label: str, kind: str, summary: str = "", **attrs: str) -> dict[str, Any]:
    return {"label": label, "kind": kind, "summary": summary, "attrs": attrs, "domain": "project"}


GRAPH = {
    "nodes": {
        "use-sqlite": _node("Use SQLite", "decision"),
        "postgres": _node("Postgres", "entity"),
        "keep-utc": _node("Keep timestamps in UTC", "correction", "not local time"),
        "local": _node("Agent: stored in local time", "concept"),
        "guess": _node("I suspect the cache is stale", "correction"),
        "asked": _node("Webhook URL", "decision", "answer to: which notifier?"),
        "fix": _node("Fix the login test", "task", source="prompt"),
        "plan": _node("Write the migration", "task", source="agent"),
    },
    "edges": {
        "k": {"source": "keep-utc", "target": "local", "relationship": "supersedes"},
        "s": {"source": "use-sqlite", "target": "postgres", "relationship": "supersedes"},
    },
}
LABELS = [
    {"file": "f", "turn": 1, "kind": "decision", "terms": ["SQLite"]},
    {"file": "f", "turn": 2, "kind": "correction", "terms": ["UTC"], "replaces": ["local time"]},
    {"file": "f", "turn": 3, "kind": "correction", "terms": ["SQLite"], "replaces": ["MySQL"]},
    {"file": "f", "turn": 4, "kind": "task", "terms": ["login test"]},
]


def test_recall_needs_the_edge_and_precision_the_words() -> None:
    s = score(LABELS, {"f": GRAPH})
    assert (s["decision"].found, s["decision"].predicted, s["decision"].correct) == (1, 1, 1)
    # the second correction names SQLite but its edge points at Postgres, not MySQL: missed
    assert (s["correction"].labels, s["correction"].found) == (2, 1)
    # correction nodes: the UTC one says what a label says instead; the guess matches nothing
    assert (s["correction"].predicted, s["correction"].correct) == (2, 1)
    assert s["correction"].wrong == ["f: I suspect the cache is stale"]
    # an AskUserQuestion answer and the agent's own plan are observed, not judged
    assert (s["task"].predicted, s["task"].correct) == (1, 1)
