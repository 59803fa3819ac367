"""Reconcile a 1,000-node hot graph into a 100,000-node warm graph, on SQLite and PostgreSQL.

Goal: ≤ 1 s per reconciliation on each backend (batched statements, not a round trip per row).

For each backend the warm graph is filled with 100,000 nodes and 150,000 edges, then each
run reconciles a fresh session's hot graph of 1,000 nodes (half already warm, half new) and
1,500 edges, and the median of the runs is reported for

- ``merge``: ``prepare_batch`` + ``WarmStore.merge`` (one transaction);
- ``flush``: the whole ``Reconciler.flush_graph`` (outbox check, merge, graduation check,
  session state write), what SessionEnd and PreCompact pay;
- ``naive``: the same-run baseline, the same merge done one row per statement (the store's
  own primitives called with one row at a time, in one transaction);
- ``pull``: ``Reconciler.pull`` of a fresh session (project scope + the person's own scope,
  with a first prompt naming two warm nodes), what SessionStart pays.

A third row, ``pg-team``, runs the same as a teammate's login role made by ``init_team``
(row-level security applies; the owner's ``postgres`` row is exempt) with a hot graph whose
nodes are a quarter personal and a quarter relationship, so every flush is routed into a
project batch and a personal batch: its ratio to the ``postgres`` row is the team's cost.

PostgreSQL comes from ``ROLLING_GRAPH_TEST_PG_DSN`` or a throwaway cluster started like the
test fixture (``initdb``/``pg_ctl`` on a Unix socket).

    .venv/bin/python bench/warm.py [--runs 5] [--warm-nodes 100000] [--hot-nodes 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.config import load_settings  # noqa: E402
from rolling_graph.core.hotstore import HotStore  # noqa: E402
from rolling_graph.core.model import HotGraph  # noqa: E402
from rolling_graph.core.session import HotSession  # noqa: E402
from rolling_graph.warm import make_batch, open_store, prepare_batch  # noqa: E402
from rolling_graph.warm.merge import merge_edge, merge_node  # noqa: E402
from rolling_graph.warm.reconcile import Reconciler  # noqa: E402
from rolling_graph.warm.records import HotEdge, HotNode, MergeBatch  # noqa: E402

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SCOPE = "bench"
DOMAINS = ("project", "technical", "personal", "relationship")


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    dsn = os.environ.get("ROLLING_GRAPH_TEST_PG_DSN")
    if dsn:
        yield dsn
        return
    from tests.warm.conftest import _as_cluster_owner, _pg_bindir, _run

    bindir = _pg_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL server binaries: run .ci/postgres.sh first")
    prefix = _as_cluster_owner()
    root = tempfile.mkdtemp(prefix="rg-pgb.")
    if prefix:
        shutil.chown(root, "postgres", "postgres")
    data = f"{root}/data"
    _run(prefix, [f"{bindir}/initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync"])
    opts = f"-k {root} -p 5432 -c listen_addresses= -c fsync=off -c synchronous_commit=off"
    _run(prefix, [f"{bindir}/pg_ctl", "-D", data, "-l", f"{root}/log", "-w", "-o", opts, "start"])
    try:
        yield f"postgresql://postgres@/postgres?host={root}&port=5432"
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            _run(prefix, [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def fill(store: Any, n_nodes: int) -> None:
    """A warm graph of ``n_nodes`` nodes and 1.5 × as many edges, in 10,000-node batches."""
    step = 10_000
    for start in range(0, n_nodes, step):
        ids = range(start, min(start + step, n_nodes))
        nodes = [
            HotNode(f"w{i}", f"Warm {i}", DOMAINS[i % 4], 0.3 + (i % 7) / 10, aliases=(f"w {i}",))
            for i in ids
        ]
        edges = [HotEdge(f"w{i}", "relates-to", f"w{(i * 7 + 1) % n_nodes}", 0.5) for i in ids] + [
            HotEdge(f"w{i}", "uses", f"w{(i * 13 + 3) % n_nodes}", 0.4) for i in ids if i % 2
        ]
        store.merge(
            make_batch(nodes, edges, scope=SCOPE, session_id=f"fill-{start}", flush_seq=1, now=T0)
        )


def hot_doc(run: int, n_hot: int, n_warm: int, *, mixed: bool = False) -> dict[str, Any]:
    """Half the nodes already warm, half new to this run; 1.5 edges per node. ``mixed``: new
    nodes cycle through the four domains (personal and relationship ones are routed to the
    person's own scope)."""
    nodes: dict[str, Any] = {}
    for k in range(n_hot):
        nid = f"w{(k * 97 + run) % n_warm}" if k % 2 == 0 else f"new-{run}-{k}"
        nodes[nid] = {
            "id": nid,
            "label": nid,
            "domain": DOMAINS[(k // 2) % 4] if mixed and k % 2 else "technical",
            "weight": 0.6,
            "last_activated": 3,
        }
    ids = list(nodes)
    edges: dict[str, Any] = {}
    for k, nid in enumerate(ids):
        for rel, off in (("uses", 1), ("relates-to", 2)) if k % 2 else (("uses", 1),):
            other = ids[(k + off) % len(ids)]
            edges[f"{nid}|{rel}|{other}"] = {
                "source": nid,
                "target": other,
                "relationship": rel,
                "strength": 0.5,
                "last_activated": 3,
            }
    return {"schema": 1, "session_id": f"run-{run}", "turn": 3, "nodes": nodes, "edges": edges}


def naive_merge(store: Any, batch: MergeBatch) -> None:
    """The baseline: the same merge, one row per statement (one transaction)."""
    scope, now, sid = batch.scope, batch.now, batch.session_id
    with store._lock, store._transaction():
        store._claim_flush(batch)
        for hot in batch.nodes:
            new = bool(store._claim_node_sightings(scope, sid, [hot.id], now))
            current = store._lock_nodes(scope, [hot.id]).get(hot.id)
            if current is None:
                row = merge_node(None, hot, scope=scope, new_session=True, now=now)
                store._insert_nodes([row])
            else:
                row = merge_node(current, hot, scope=scope, new_session=new, now=now)
                store._update_nodes([row])
        for he in batch.edges:
            new = bool(store._claim_edge_sightings(scope, sid, [he.key], now))
            cur = store._lock_edges(scope, [he.key]).get(he.key)
            if cur is None:
                store._insert_edges([merge_edge(None, he, scope=scope, new_session=True, now=now)])
            else:
                store._update_edges([merge_edge(cur, he, scope=scope, new_session=new, now=now)])


def bench_backend(
    name: str,
    url: str,
    schema: str | None,
    runs: int,
    n_warm: int,
    n_hot: int,
    *,
    as_url: str | None = None,
    mixed: bool = False,
) -> dict[str, Any]:
    """``as_url``: fill as ``url`` (the owner), then merge, flush and pull as this one."""
    home = Path(tempfile.mkdtemp(prefix="rg-bench."))
    try:
        store = open_store(url, home, schema=schema)
        t = time.perf_counter()
        fill(store, n_warm)
        fill_s = time.perf_counter() - t
        if as_url:
            store.close()
            store = open_store(as_url, home, schema=schema)
        settings = load_settings(home=home, warm=as_url or url, project=SCOPE)
        hot = HotStore(home)
        rec = Reconciler(settings, hot, schema=schema)
        merge_t, flush_t, naive_t, pull_t = [], [], [], []
        for r in range(runs):
            now = T0 + timedelta(hours=r + 1)
            doc = hot_doc(3 * r, n_hot, n_warm)
            t = time.perf_counter()
            result = store.merge(prepare_batch(doc, flush_seq=1, now=now, scope=SCOPE))
            merge_t.append(time.perf_counter() - t)
            assert result.applied and result.nodes_inserted == n_hot // 2, result

            graph = HotGraph.model_validate(hot_doc(3 * r + 1, n_hot, n_warm, mixed=mixed))
            t = time.perf_counter()
            fr = rec.flush_graph(graph, final=True, now=now)
            flush_t.append(time.perf_counter() - t)
            assert fr.status == "applied" and len(fr.scopes) == (2 if mixed else 1), fr

            sess = HotSession.open(hot, f"pull-{r}")
            t = time.perf_counter()
            pr = rec.pull(sess, f"what about w{r * 11} and w{r * 11 + 5}", now=now)
            pull_t.append(time.perf_counter() - t)
            assert pr.error is None and len(pr.nodes_added) >= 20, pr

            doc = hot_doc(3 * r + 2, n_hot, n_warm)
            batch = prepare_batch(doc, flush_seq=1, now=now, scope=SCOPE)
            t = time.perf_counter()
            naive_merge(store, batch)
            naive_t.append(time.perf_counter() - t)
        counts = store.counts(scope=SCOPE)
        rec.close()
        store.close()
        return {
            "backend": name,
            "warm_nodes": counts.nodes,
            "warm_edges": counts.edges,
            "fill_s": fill_s,
            "merge": statistics.median(merge_t),
            "flush": statistics.median(flush_t),
            "naive": statistics.median(naive_t),
            "pull": statistics.median(pull_t),
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)


def bench_postgres(dsn: str, runs: int, n_warm: int, n_hot: int) -> list[dict[str, Any]]:
    """The owner's row, then a teammate's (a login role made by ``init_team``)."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    from rolling_graph.warm.pg_team import init_team

    rows, tag = [], uuid.uuid4().hex[:8]
    role = f"rg_bench_{tag}"
    schemas = [f"rg_bench_{tag}", f"rg_bench_team_{tag}"]
    try:
        rows.append(bench_backend("postgres", dsn, schemas[0], runs, n_warm, n_hot))
        with open_store(dsn, Path(tempfile.gettempdir()), schema=schemas[1]) as admin:
            init_team(admin, [role])
        teammate = make_conninfo(dsn, user=role)
        rows.append(
            bench_backend(
                "pg-team", dsn, schemas[1], runs, n_warm, n_hot, as_url=teammate, mixed=True
            )
        )
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warm-nodes", type=int, default=100_000)
    ap.add_argument("--hot-nodes", type=int, default=1_000)
    ap.add_argument("--only", choices=("sqlite", "postgres"))
    args = ap.parse_args()
    rows = []
    if args.only != "postgres":
        rows.append(bench_backend("sqlite", "", None, args.runs, args.warm_nodes, args.hot_nodes))
    if args.only != "sqlite":
        with postgres() as dsn:
            rows += bench_postgres(dsn, args.runs, args.warm_nodes, args.hot_nodes)
    hot_edges = len(hot_doc(0, args.hot_nodes, args.warm_nodes)["edges"])
    print(
        f"reconcile {args.hot_nodes:,} hot nodes / {hot_edges:,} edges into a warm graph;"
        f" median of {args.runs} runs (goal ≤ 1 s)"
    )
    print(
        f"{'backend':<9} {'warm nodes':>10} {'warm edges':>10} {'merge':>9} {'flush':>9}"
        f" {'naive 1-row':>11} {'speed-up':>8} {'pull':>7} {'goal':>5}"
    )
    for row in rows:
        ok = "ok" if row["flush"] <= 1.0 else "MISS"
        print(
            f"{row['backend']:<9} {row['warm_nodes']:>10,} {row['warm_edges']:>10,}"
            f" {row['merge'] * 1000:>7.0f}ms {row['flush'] * 1000:>7.0f}ms"
            f" {row['naive'] * 1000:>9.0f}ms {row['naive'] / row['merge']:>7.1f}x"
            f" {row['pull'] * 1000:>5.0f}ms {ok:>5}"
        )
    by = {r["backend"]: r for r in rows}
    if "sqlite" in by and "postgres" in by:
        print(
            f"postgres / sqlite merge time: {by['postgres']['merge'] / by['sqlite']['merge']:.2f}x"
        )
    if "pg-team" in by:
        own, team = by["postgres"], by["pg-team"]
        print(
            "pg-team / postgres (teammate under row-level security, routed flush):"
            + "".join(f" {k} {team[k] / own[k]:.2f}x" for k in ("merge", "flush", "pull"))
        )
    print("(fill: " + ", ".join(f"{r['backend']} {r['fill_s']:.1f}s" for r in rows) + ")")


if __name__ == "__main__":
    main()
