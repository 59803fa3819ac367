"""The addendum after the harness's compaction summary: only what neither it nor the block says."""

from __future__ import annotations

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.render.addendum import HEAD, addendum
from tests.helpers import graph_of, node


def _names(text: str) -> list[str]:
    assert text.startswith(HEAD) and text.endswith("."), text
    return text[len(HEAD) : -1].split(", ")


def test_lists_what_neither_the_summary_nor_the_block_says_newest_first() -> None:
    g = graph_of([node("kiln-schedule", label="KilnSchedule", weight=0.9)], turn=5)
    summary = "We reworked glaze_batch.py and the GlazeBatch model; firing curves pending."
    block = "Task in progress: glaze the mugs. Files: kilns/cone6.toml (edited 2×)."
    in_play = ["cone6.toml", "ramp_rate", "GlazeBatch", "ShelfMap", "glaze_batch.py", "ramp_rate"]
    text = addendum(g, summary, block, in_play, budget=160)
    # the last turns' names first, then the graph's items; each once; nothing already said
    assert _names(text) == ["ramp_rate", "ShelfMap", "KilnSchedule"]


def test_a_name_whose_parts_are_all_said_is_not_repeated() -> None:
    g = graph_of([], turn=3)
    text = addendum(g, "the Ledger keeps entry_id", "", ["Ledger.entry_id", "payout_day"], 160)
    assert _names(text) == ["payout_day"]


def test_empty_when_everything_is_said() -> None:
    g = graph_of([node("tide-table", label="TideTable")], turn=2)
    assert addendum(g, "TideTable and moon_phase were read.", "", ["moon_phase"], 160) == ""


def test_within_budget_and_stops_at_it() -> None:
    g = graph_of([], turn=9)
    names = [f"sensor_{i:03d}" for i in range(200)]
    text = addendum(g, "", "", names, budget=60)
    assert estimate_tokens(text) <= 60
    listed = _names(text)
    assert listed == names[: len(listed)] and 3 < len(listed) < 200


def test_tasks_decisions_and_superseded_items_are_not_listed() -> None:
    g = graph_of(
        [
            node("use-redis", label="Redis", weight=0.9),
            node("use-valkey", label="Valkey", weight=0.8),
            node("ship-it", label="Ship the release", kind="task", weight=0.95),
            node("pick-valkey", label="Use Valkey for the cache", kind="decision", weight=0.95),
        ],
        [("use-valkey", "supersedes", "use-redis")],
        turn=4,
    )
    assert _names(addendum(g, "", "", [], 160)) == ["Valkey"]
