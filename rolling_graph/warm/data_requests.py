"""Privacy requests on a warm store: forget a node, a person or a project; export one's own.

Each ``forget_*`` runs in one transaction and writes what it removed to ``rg_forgotten``
(scope, who asked, when, the selector, row counts per table; node ids only when single nodes
were asked for, since listing a forgotten person's or project's nodes would keep them). On a
team server row-level security applies to these statements too: a teammate can forget
project rows and their own, never see or remove another person's personal rows.

``forget_person`` removes the person's own scope and their traces elsewhere (sightings and
flush records); shared project nodes they created stay, with their name taken off.
Plain portable SQL through ``SqlWarmStore.statements``/``select`` (``%s`` placeholders).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

ALL_TABLES = (
    "rg_nodes",
    "rg_edges",
    "rg_node_sightings",
    "rg_edge_sightings",
    "rg_reconciliations",
    "rg_drafts",
)
# Per table: the condition that a row is about node %s (the id repeated per placeholder).
NODE_MATCH = {
    "rg_nodes": ("id = %s", 1),
    "rg_edges": ("(source = %s OR target = %s)", 2),
    "rg_node_sightings": ("node_id = %s", 1),
    "rg_edge_sightings": ("(source = %s OR target = %s)", 2),
    "rg_drafts": ("node_id = %s", 1),
}
TRACE_TABLES = ("rg_node_sightings", "rg_edge_sightings", "rg_reconciliations")
NAMED_TABLES = ("rg_nodes", "rg_edges", "rg_drafts")
AUDIT = (
    "INSERT INTO rg_forgotten (scope, person, at, selector, removed) VALUES (%s, %s, %s, %s, %s)"
)


@dataclass
class ForgetReport:
    """What one ``forget`` removed (also stored as a row of ``rg_forgotten``)."""

    selector: str
    scope: str
    actor: str
    at: str
    removed: dict[str, int] = field(default_factory=dict)
    anonymized: dict[str, int] = field(default_factory=dict)
    nodes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.removed.values())

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now(now: datetime | None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat()


def forget_nodes(
    store: Any, scope: str, ids: list[str], *, actor: str, now: datetime | None = None
) -> ForgetReport:
    """Remove nodes of one scope with their edges, sightings and drafts."""
    report = ForgetReport(f"node {', '.join(ids)}", scope, actor, _now(now), nodes=sorted(ids))
    steps: list[tuple[str, tuple[str, list[Any]]]] = []
    for table, (cond, reps) in NODE_MATCH.items():
        for nid in sorted(set(ids)):
            query = f"DELETE FROM {table} WHERE scope = %s AND {cond}"
            steps.append((f"delete:{table}", (query, [scope, *([nid] * reps)])))
    return _run(store, report, steps)


def forget_project(
    store: Any, scope: str, *, actor: str, now: datetime | None = None
) -> ForgetReport:
    """Remove every row of one project scope."""
    report = ForgetReport(f"project {scope}", scope, actor, _now(now))
    steps = [(f"delete:{t}", (f"DELETE FROM {t} WHERE scope = %s", [scope])) for t in ALL_TABLES]
    return _run(store, report, steps)


def forget_person(
    store: Any, person: str, own_scope: str, *, actor: str, now: datetime | None = None
) -> ForgetReport:
    """Remove a person's own scope and their traces elsewhere; unname what they shared."""
    report = ForgetReport(f"person {person}", own_scope, actor, _now(now))
    steps = [
        (f"delete:{t}", (f"DELETE FROM {t} WHERE scope = %s", [own_scope])) for t in ALL_TABLES
    ]
    steps += [
        (f"delete:{t}", (f"DELETE FROM {t} WHERE person = %s AND scope <> %s", [person, own_scope]))
        for t in TRACE_TABLES
    ]
    steps += [
        (f"anonymize:{t}", (f"UPDATE {t} SET person = '' WHERE person = %s", [person]))
        for t in NAMED_TABLES
    ]
    return _run(store, report, steps)


def _run(
    store: Any, report: ForgetReport, steps: list[tuple[str, tuple[str, list[Any]]]]
) -> ForgetReport:
    labels = [label for label, _ in steps]

    def audit(rowcounts: list[int]) -> tuple[str, list[Any]]:
        # Written in the same transaction, once the deletes have said what they removed.
        doc = json.dumps(_tally(report, labels, rowcounts))
        return (AUDIT, [report.scope, report.actor, report.at, report.selector, doc])

    store.statements([q for _, q in steps], then=audit)
    return report


def _tally(report: ForgetReport, labels: list[str], rowcounts: list[int]) -> dict[str, Any]:
    for label, n in zip(labels, rowcounts, strict=True):
        kind, table = label.split(":", 1)
        bucket = report.removed if kind == "delete" else report.anonymized
        bucket[table] = bucket.get(table, 0) + max(0, n)
    doc: dict[str, Any] = {"removed": report.removed, "anonymized": report.anonymized}
    if report.nodes:
        doc["nodes"] = report.nodes
    return doc


def forgotten(store: Any, *, scope: str | None = None) -> list[dict[str, Any]]:
    """The audit of past ``forget`` requests (the ones this connection may see), oldest first."""
    rows = store.select(
        "SELECT scope, person, at, selector, removed FROM rg_forgotten"
        " WHERE CAST(%s AS TEXT) IS NULL OR scope = %s ORDER BY at",
        [scope, scope],
    )
    return [
        {"scope": r[0], "actor": r[1], "at": r[2], "selector": r[3], **json.loads(r[4])}
        for r in rows
    ]


def _jsonable(record: Any) -> dict[str, Any]:
    return {
        k: v.isoformat() if isinstance(v, datetime) else list(v) if isinstance(v, tuple) else v
        for k, v in asdict(record).items()
    }


def export_memories(store: Any, person: str, own_scope: str) -> dict[str, Any]:
    """One person's memories as JSON: their own scope in full, and the shared nodes and edges
    they brought in (rows they created in project scopes)."""
    own_ids = [r[0] for r in store.select("SELECT id FROM rg_nodes WHERE scope = %s", [own_scope])]
    shared: dict[str, dict[str, Any]] = {}
    for scope, nid in store.select(
        "SELECT scope, id FROM rg_nodes WHERE person = %s AND scope <> %s ORDER BY scope, id",
        [person, own_scope],
    ):
        shared.setdefault(scope, {"nodes": [], "edges": []})["nodes"].append(nid)
    for scope, src, rel, tgt in store.select(
        "SELECT scope, source, relationship, target FROM rg_edges"
        " WHERE person = %s AND scope <> %s ORDER BY scope, source, relationship, target",
        [person, own_scope],
    ):
        shared.setdefault(scope, {"nodes": [], "edges": []})["edges"].append((src, rel, tgt))
    out: dict[str, Any] = {
        "person": person,
        "own_scope": own_scope,
        "own": {
            "nodes": [_jsonable(n) for n in store.get_nodes(own_ids, scope=own_scope).values()],
            "edges": [_jsonable(e) for e in store.get_edges(scope=own_scope)],
        },
        "shared": {},
    }
    for scope, got in sorted(shared.items()):
        nodes = store.get_nodes(got["nodes"], scope=scope)
        edges = store.get_edges(scope=scope, keys=got["edges"]) if got["edges"] else []
        out["shared"][scope] = {
            "nodes": [_jsonable(nodes[i]) for i in got["nodes"] if i in nodes],
            "edges": [_jsonable(e) for e in edges],
        }
    return out


__all__ = [
    "ForgetReport",
    "export_memories",
    "forget_nodes",
    "forget_person",
    "forget_project",
    "forgotten",
]
