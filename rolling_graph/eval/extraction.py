"""Extraction quality against a labelled set: decisions, corrections (with what they replace),
tasks, people, constraints and asides that a careful reader marked in real sessions
(``tests/fixtures/extraction/labels.jsonl``; the guide is its README).

A label is found when one node of the right kind carries every one of its terms (in its label,
summary, aliases or attributes; case-insensitive). A correction is found when a ``supersedes``
edge runs from a node with its terms to a node with the terms of what it replaces. Precision
counts the nodes the probe made from the person's words in the labelled sessions: a node that
matches no label of its kind is a false positive; a correction node is right when it carries
the terms of a correction or decision label of its session. Used by ``bench/extraction.py`` and
the tests.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("decision", "correction", "task", "person", "constraint", "aside")


@dataclass
class Score:
    labels: int = 0
    found: int = 0
    predicted: int = 0
    correct: int = 0
    missed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # predicted nodes that match no label

    @property
    def recall(self) -> float | None:
        return self.found / self.labels if self.labels else None

    @property
    def precision(self) -> float | None:
        return self.correct / self.predicted if self.predicted else None


def load_labels(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def node_text(node: dict[str, Any]) -> str:
    parts = [node.get("label", ""), node.get("summary") or "", *node.get("aliases", [])]
    parts += list((node.get("attrs") or {}).values())
    return " ".join(parts).lower()


def _norm(text: str) -> str:
    """Lower case, punctuation as spaces: "Manual-commit" finds "manual commit"."""
    return " " + " ".join(re.sub(r"[\s\-_/.:,;()\"'`*\[\]{}|]+", " ", text.lower()).split()) + " "


def _has(text: str, terms: list[str]) -> bool:
    norm = _norm(text)
    return bool(terms) and all(_norm(t).strip() in norm for t in terms)


def _attr_text(node: dict[str, Any]) -> str:
    return " ".join([node.get("label", ""), *(node.get("attrs") or {}).values()]).lower()


def _matches(label: dict[str, Any], graph: dict[str, Any]) -> list[str]:
    """Ids of the nodes (or supersedes sources) that find ``label``."""
    nodes = graph["nodes"]
    kind, terms = label["kind"], label.get("terms", [])
    if kind == "correction":
        old = label.get("replaces") or []
        out = []
        for e in graph["edges"].values():
            if e["relationship"] != "supersedes":
                continue
            src, dst = nodes.get(e["source"], {}), nodes.get(e["target"], {})
            if _has(node_text(src), terms) and (not old or _has(node_text(dst), old)):
                out.append(e["source"])
        return out
    if kind == "constraint":
        return [nid for nid, n in nodes.items() if _has(_attr_text(n), terms)]
    if kind == "aside":
        return [
            nid
            for nid, n in nodes.items()
            if n["domain"] == "personal" and _has(node_text(n), terms)
        ]
    want = {"decision": ("decision",), "task": ("task",), "person": ("person",)}[kind]
    return [nid for nid, n in nodes.items() if n.get("kind") in want and _has(node_text(n), terms)]


def _predicted(graph: dict[str, Any], kind: str) -> list[str]:
    """Nodes the person's words produced, per kind (the agent's own plan and the answers it
    collected through AskUserQuestion are observed, not judged: left out of precision)."""
    out = []
    for nid, n in graph["nodes"].items():
        attrs = n.get("attrs") or {}
        if kind == "decision" and n.get("kind") == "decision":
            if not (n.get("summary") or "").startswith("answer to:"):
                out.append(nid)
        elif (
            kind == "correction"
            and n.get("kind") == "correction"
            or kind == "task"
            and n.get("kind") == "task"
            and attrs.get("source") == "prompt"
            or kind == "person"
            and n.get("kind") == "person"
        ):
            out.append(nid)
    return out


def score(labels: list[dict[str, Any]], graphs: dict[str, dict[str, Any]]) -> dict[str, Score]:
    """Per kind: recall over ``labels``; precision over the predicted nodes of the labelled
    files (``graphs``: file → final graph document)."""
    scores = {k: Score() for k in KINDS}
    hits: dict[tuple[str, str], set[str]] = {}
    for lab in labels:
        graph = graphs.get(lab["file"])
        s = scores[lab["kind"]]
        s.labels += 1
        found = _matches(lab, graph) if graph else []
        if found:
            s.found += 1
            key = "decision" if lab["kind"] == "correction" else lab["kind"]
            hits.setdefault((lab["file"], key), set()).update(found)
        else:
            s.missed.append(f"{lab['file']}#{lab['turn']} {lab['kind']}: {lab.get('terms')}")
        if graph and lab["kind"] in ("correction", "decision"):
            # A correction node is right when it says what a correction (or a choice) of its
            # session says instead, whatever its edge points at (recall judges the edge).
            said = [
                nid
                for nid, n in graph["nodes"].items()
                if n.get("kind") == "correction" and _has(node_text(n), lab.get("terms", []))
            ]
            hits.setdefault((lab["file"], "correction"), set()).update(said)
    for file, graph in graphs.items():
        for kind in ("decision", "correction", "task", "person"):
            pred = _predicted(graph, kind)
            good = set(pred) & hits.get((file, kind), set())
            scores[kind].predicted += len(pred)
            scores[kind].correct += len(good)
            scores[kind].wrong += [
                f"{file}: {graph['nodes'][p]['label']}" for p in pred if p not in good
            ]
    return scores


def graph_stats(graph: dict[str, Any]) -> dict[str, Any]:
    """Nodes by domain and kind, supersedes and cross-domain edges."""
    nodes = graph["nodes"]
    edges = list(graph["edges"].values())
    cross = sum(
        1
        for e in edges
        if e["source"] in nodes
        and e["target"] in nodes
        and nodes[e["source"]]["domain"] != nodes[e["target"]]["domain"]
    )
    return {
        "nodes": len(nodes),
        "domains": Counter(n["domain"] for n in nodes.values()),
        "kinds": Counter(n.get("kind") or "-" for n in nodes.values()),
        "supersedes": sum(1 for e in edges if e["relationship"] == "supersedes"),
        "cross_domain": cross,
        "relationships": Counter(e["relationship"] for e in edges),
    }


def replay_graphs(
    files: list[str], data_dir: Path, probe: str = "offline", usage: Counter[str] | None = None
) -> dict[str, dict[str, Any]]:
    """file → final graph document, each file replayed alone (no warm memory of the others).
    ``usage`` (when given) adds up the probe runs: calls to a paid backend, tokens in and out,
    offline fallbacks."""
    from rolling_graph.eval.replay import Replayer

    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(files):
            with Replayer(Path(tmp) / str(i), probe=probe) as rp:
                summ = rp.replay_file(data_dir / "raw" / name)
                rp.finish()
                path = Path(tmp) / str(i) / "graphs" / f"{summ.session_id}.json"
                out[name] = json.loads(path.read_text(encoding="utf-8"))
                if usage is not None:
                    for rec in rp.engine.store.audit(summ.session_id).records():
                        if rec.get("type") in ("probe", "probe_failure"):
                            usage["probes"] += 1
                            usage["calls"] += rec.get("tier") == "paid"
                            usage["fallbacks"] += bool(rec.get("fallback"))
                            usage["tokens_in"] += int(rec.get("tokens_in") or 0)
                            usage["tokens_out"] += int(rec.get("tokens_out") or 0)
    return out
