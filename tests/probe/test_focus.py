"""What a paid probe is shown (rolling_graph/probe/focus.py): a focused slice of the graph and
tight recent turns, small whatever the graph's size, and still what judgement needs: the
decision a correction replaces, the options a "go with option 2" picks from."""

from __future__ import annotations

from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest
from rolling_graph.probe.focus import (
    RECENT_BUDGET,
    SLICE_NODES,
    format_graph_slice,
    format_recent,
    slice_nodes,
)
from rolling_graph.probe.prompt import render_probe_parts


def big_graph(n: int) -> list[NodeView]:
    files = [
        NodeView(f"src-mod-{i}-py", f"src/mod_{i}.py", "technical", 0.9, kind="file")
        for i in range(n)
    ]
    light = NodeView("use-redis", "Use Redis", "technical", 0.05, kind="decision")
    redis = NodeView("redis", "Redis", "technical", 0.05, kind="entity")
    task = NodeView("add-rate-limiting", "Add rate limiting", "project", 0.6, kind="task")
    focus = NodeView("api-gateway", "API gateway", "technical", 0.3, kind="entity", focus=True)
    heavier = [
        NodeView(f"decision-{i}", f"Decision {i}", "project", 0.5, kind="decision")
        for i in range(SLICE_NODES)
    ]
    return [*files, *heavier, light, redis, task, focus]


def test_a_correction_sees_the_decision_it_replaces_in_a_big_graph() -> None:
    req = ProbeRequest(
        "s",
        40,
        [TurnDigest(40, "actually, not Redis: use Valkey")],
        nodes=big_graph(5000),
        edges=[("use-redis", "uses", "redis")],
    )
    shown = [n.id for n in slice_nodes(req)]
    assert len(shown) <= SLICE_NODES
    assert shown[0] == "api-gateway"  # the focus first
    assert "redis" in shown  # light and not in focus, but the correction names it
    assert "use-redis" in shown  # and the decision that uses it, which the correction replaces
    assert "add-rate-limiting" in shown  # the heaviest judged kinds fill the rest
    assert "decision-0" in shown and len(shown) == SLICE_NODES
    text = format_graph_slice(req)
    assert "(5004 more nodes: files, tools, lighter ones)" in text and "src-mod" not in text
    assert "  use-redis | decision | technical\n" in text  # id is the label's slug: no label
    assert "  use-redis --uses--> redis" in text


def test_named_needs_the_whole_label_and_skips_short_ones() -> None:
    nodes = [
        NodeView("ui", "UI", "technical", 0.1, kind="entity"),
        NodeView("use-postgres", "Use Postgres", "technical", 0.1, kind="entity"),
    ]
    req = ProbeRequest("s", 2, [TurnDigest(2, "the UI should use postgres")], nodes=nodes)
    assert [n.id for n in slice_nodes(req)] == ["use-postgres"]


def test_recent_turns_keep_the_offer_a_reply_picks_from() -> None:
    offer = "Options: 1. stream from the cursor; 2. build it in memory. " + "detail " * 200
    turns = [
        TurnDigest(t, f"step {t}", "long narration " * 100, ["Edit a.py"] * 9) for t in range(1, 30)
    ]
    turns += [TurnDigest(30, "can you export it?", offer), TurnDigest(31, "go with option 2")]
    req = ProbeRequest("s", 31, turns, before="I can restart the server myself.")
    text = format_recent(req)
    assert len(text) <= RECENT_BUDGET + 1_200  # the newest block may fill what is left
    assert "go with option 2" in text and "2. build it in memory" in text
    assert "older turns left out" in text
    assert "Tools (9): " in text


def test_before_text_comes_first_when_there_is_room() -> None:
    req = ProbeRequest("s", 2, [TurnDigest(2, "no, you can't")], before="I can restart myself.")
    text = format_recent(req)
    assert text.index("Before these turns the agent said") < text.index("### Turn 2")


def test_variable_part_is_small_and_the_prefix_is_the_same() -> None:
    small = ProbeRequest("s", 3, [TurnDigest(3, "let's add rate limiting")], nodes=big_graph(10))
    huge = ProbeRequest("s", 90, [TurnDigest(90, "let's add rate limiting")], nodes=big_graph(5000))
    _, s1, v1 = render_probe_parts(small)
    _, s2, v2 = render_probe_parts(huge)
    assert s1 == s2 and "$" not in s1
    assert len(v2) < len(v1) + 400  # 500x the nodes, a few more characters
