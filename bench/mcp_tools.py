"""Latency of the agent's memory tools on a 1,000-node hot graph plus a 100,000-node warm
store, on SQLite and PostgreSQL: p50 and p95 per tool.

Measured where the answers are computed, in the worker's engine (``recall.answer``, what the
``recall`` socket op runs; the MCP server adds one stdio hop and one Unix-socket hop, and the
hook client's socket round trip is measured by ``bench/hook_latency.py``). Same-run baseline:
the engine handling one ``UserPromptSubmit`` on the same graph, what every prompt already pays.

    .venv/bin/python bench/mcp_tools.py [--runs 40] [--warm-nodes 100000] [--hot-nodes 1000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.warm import SCOPE, fill, postgres  # noqa: E402
from rolling_graph.config import load_settings  # noqa: E402
from rolling_graph.core.hook_event import HookEvent  # noqa: E402
from rolling_graph.core.model import HotGraph  # noqa: E402
from rolling_graph.mcp.recall import answer  # noqa: E402
from rolling_graph.pipeline.engine import Engine  # noqa: E402

SESSION = "bench-session"
DOMAINS = ("project", "technical", "personal", "relationship")


def hot_graph(n: int) -> HotGraph:
    """``n`` nodes, 1.5 edges per node, every tenth a decision superseding the one before."""
    nodes, edges = {}, {}
    for i in range(n):
        nodes[f"h{i}"] = {
            "id": f"h{i}",
            "label": f"Hot item {i} email" if i % 50 == 0 else f"Hot item {i}",
            "domain": DOMAINS[i % 4],
            "weight": 0.2 + (i % 8) / 10,
            "last_activated": i % 30,
            "summary": f"what is known about item {i}",
            "kind": "decision" if i % 10 == 0 else "concept",
        }
    for i in range(n):
        j = (i * 7 + 1) % n
        edges[f"h{i}|relates-to|h{j}"] = {
            "source": f"h{i}", "target": f"h{j}", "relationship": "relates-to",
            "strength": 0.5, "last_activated": 3,
        }  # fmt: skip
        if i % 10 == 0 and i >= 10:
            edges[f"h{i}|supersedes|h{i - 10}"] = {
                "source": f"h{i}", "target": f"h{i - 10}", "relationship": "supersedes",
                "strength": 0.9, "last_activated": 3,
            }  # fmt: skip
        elif i % 2:
            k = (i * 13 + 3) % n
            edges[f"h{i}|uses|h{k}"] = {
                "source": f"h{i}", "target": f"h{k}", "relationship": "uses",
                "strength": 0.4, "last_activated": 3,
            }  # fmt: skip
    doc = {"schema": 1, "session_id": SESSION, "turn": 30, "nodes": nodes, "edges": edges}
    return HotGraph.model_validate(doc)


QUESTIONS: dict[str, dict[str, Any]] = {
    "memory_search (session)": {"tool": "memory_search", "query": "hot item email", "scope": "session"},
    "memory_search (project)": {"tool": "memory_search", "query": "warm 4242", "scope": "project"},
    "memory_search (all)": {"tool": "memory_search", "query": "email", "scope": "all"},
    "memory_expand": {"tool": "memory_expand", "node": "h500"},
    "memory_history": {"tool": "memory_history", "subject": "h500"},
    "memory_sessions": {"tool": "memory_sessions"},
}  # fmt: skip


def timed(fn: Callable[[], Any], runs: int) -> dict[str, float]:
    fn()  # warm caches (SQL statements, imports)
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {"p50": statistics.median(samples), "p95": samples[int(0.95 * (len(samples) - 1))]}


def bench_backend(url: str, schema: str | None, args: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="rg-bench-mcp."))
    try:
        from rolling_graph.warm import open_store

        with open_store(url, home, schema=schema) as store:
            fill(store, args.warm_nodes)
        settings = load_settings(home=home, warm=url, project=SCOPE, probe="offline")
        engine = Engine(settings)
        if schema:
            from rolling_graph.warm.reconcile import Reconciler

            engine.components["warm"] = Reconciler(settings, engine.store, schema=schema)
        engine.store.save(hot_graph(args.hot_nodes))
        engine.store.write_state(SESSION, "warm", {"scope": SCOPE, "cwd": str(home)})
        rows: dict[str, dict[str, float]] = {}
        for name, q in QUESTIONS.items():
            q = dict(q)
            tool = q.pop("tool")
            out = answer(engine, tool, {**q, "session": SESSION}, str(home))
            assert out["text"], name
            rows[name] = timed(
                lambda t=tool, a=q: answer(engine, t, {**a, "session": SESSION}), args.runs
            )
        prompt = HookEvent(
            kind="prompt_submit",
            session_id=SESSION,
            prompt="what about hot item 42?",
            cwd=str(home),
        )
        rows["baseline: one UserPromptSubmit"] = timed(lambda: engine.handle(prompt), args.runs)
        engine.close()
        return rows
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--warm-nodes", type=int, default=100_000)
    ap.add_argument("--hot-nodes", type=int, default=1_000)
    ap.add_argument("--only", choices=("sqlite", "postgres"))
    args = ap.parse_args()
    results: dict[str, dict[str, dict[str, float]]] = {}
    if args.only != "postgres":
        results["sqlite"] = bench_backend("", None, args)
    if args.only != "sqlite":
        with postgres() as dsn:
            schema = f"rg_bench_{uuid.uuid4().hex[:8]}"
            try:
                results["postgres"] = bench_backend(dsn, schema, args)
            finally:
                import psycopg

                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    print(
        f"memory tools on a {args.hot_nodes:,}-node hot graph + {args.warm_nodes:,}-node warm "
        f"store; {args.runs} runs each, ms (ratio = p50 / the baseline's p50)"
    )
    for backend, rows in results.items():
        base = rows["baseline: one UserPromptSubmit"]["p50"]
        print(f"\n{backend:<32} {'p50':>8} {'p95':>8} {'ratio':>6}")
        for name, r in rows.items():
            print(f"{name:<32} {r['p50']:>8.1f} {r['p95']:>8.1f} {r['p50'] / base:>6.2f}")


if __name__ == "__main__":
    main()
