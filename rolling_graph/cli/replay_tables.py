"""The tables ``replay`` and ``eval`` print (through :mod:`rolling_graph.cli.tables`).

Drop order at a narrow terminal (highest rank first): replay — ev/s, rejected, edges,
inj tok max, probes/60; eval — the token columns, then recent=, then the summary columns.
"""

from __future__ import annotations

from typing import Any

from rolling_graph.cli.tables import Column, Table


def _f1(v: Any) -> str:
    return f"{v:.1f}"


def _f0(v: Any) -> str:
    return f"{v:.0f}"


def _f2(v: Any) -> str:
    return f"{v:.2f}" if isinstance(v, float) else str(v)


REPLAY_COLUMNS = [
    Column("file", "file", numeric=False),
    Column("user turns", "user_turns"),
    Column("tool steps", "tool_steps"),
    Column("probes", "probes"),
    Column("probes/60", "probe_rate_per_60", drop=1, fmt=_f1),
    Column("injections", "injections"),
    Column("inj tok max", "injected_tokens_max", drop=2),
    Column("nodes", "nodes"),
    Column("edges", "edges", drop=3),
    Column("rejected", "rejected_patches", drop=4),
    Column("unread", "unread_prompts", drop=4),
    Column("ev/s", "events_per_second", drop=5, fmt=_f0),
]


def summary_table(doc: dict[str, Any]) -> Table:
    overall = {**doc["overall"], "file": f"all ({doc['overall']['file']})"}
    return Table("replay summary", REPLAY_COLUMNS, [*doc["sessions"], overall], footer=1)


def _eval_columns(pos: str, budget: Any, boundaries: bool) -> list[Column]:
    cols = [
        Column("file", "file", numeric=False),
        Column(pos.replace("_", " "), pos),
        Column("terms", "target"),
        Column("block tok", "block_tokens", drop=5, fmt=_f2),
        Column("block", "block_recall", fmt=_f2),
        Column("recent=", "recent_equal_recall", drop=3, fmt=_f2),
        Column(f"recent-{budget}", "recent_budget_recall", fmt=_f2),
    ]
    if boundaries:
        cols += [
            Column("summary", "summary_recall", drop=1, fmt=_f2),
            Column("summary tok", "summary_tokens", drop=6, fmt=_f2),
            Column("summary∪block", "union_recall", drop=2, fmt=_f2),
            Column("gain", "gain", fmt=_f2),
            Column("addendum tok", "addendum_tokens", drop=7, fmt=_f2),
            Column("∪ addendum", "union_addendum_recall", drop=4, fmt=_f2),
        ]
    return cols


def eval_tables(doc: dict[str, Any]) -> list[Table]:
    """One table for real compaction boundaries, one for simulated cuts, each with its mean."""
    budget = doc["settings"]["budget"]
    specs = [
        ("compaction boundaries", "boundaries", "boundary_averages", "boundary"),
        (
            f"simulated cuts (every {doc['settings']['cut_every']} user turns)",
            "cuts",
            "cut_averages",
            "after_turn",
        ),
    ]
    tables = []
    for title, key, avg_key, pos in specs:
        avg = doc[avg_key]
        mean = {**avg, "file": f"mean of {avg['n']}", pos: ""}
        cols = _eval_columns(pos, budget, key == "boundaries")
        tables.append(Table(f"recovery at {title}", cols, [*doc[key], mean], footer=1))
    return tables
