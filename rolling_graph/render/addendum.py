"""What the harness's compaction summary left out: a short addendum to the compaction block.

Claude Code runs SessionStart(compact) before its summary can be read (the summary reaches the
transcript, and PostCompact, after the hooks), so the compaction block cannot know what the
summary says. The first event after it that reads the transcript (the next prompt or finished
tool step) sees the summary, and what it injects reaches the model in the same request as the
block. The addendum lists, within :data:`SHARE` of the budget, the names that neither the
summary nor the block says: the names of the last turns first (newest first), then the graph's
items by weight. It is a separate injection, measured separately (``bench/recovery.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rolling_graph.core.model import HotGraph
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.render.lod import unsaid_names
from rolling_graph.render.work import is_noise

HEAD = "Also from this session, not in the summary above: "
SHARE = 0.2  # of the block's budget: 160 of 800 tokens


def _candidates(graph: HotGraph, in_play: Sequence[str]) -> list[str]:
    """The names of the last turns, then the graph's items by weight (tasks, decisions and
    corrections have their own lines in the block; the summary tells their story)."""
    superseded = set(graph.superseded_by())
    nodes = sorted(
        (
            n
            for n in graph.nodes.values()
            if n.id not in superseded
            and not is_noise(n)
            and n.kind not in ("task", "decision", "correction")
        ),
        key=lambda n: (-n.weight, -n.last_activated, n.id),
    )
    return [*in_play, *(n.label for n in nodes)]


def addendum(graph: HotGraph, summary: str, block: str, in_play: Sequence[str], budget: int) -> str:
    """The addendum within ``budget`` tokens ("" when the summary and block name everything)."""
    picked = unsaid_names(
        _candidates(graph, in_play),
        f"{summary}\n{block}",
        HEAD,
        lambda line: estimate_tokens(line) <= budget,
    )
    return HEAD + ", ".join(picked) + "." if picked else ""
