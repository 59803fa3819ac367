"""Fire rates on the real Claude Code transcripts (pooled, real user prompts only).

The spec's target is 10–15 probes per 60 user turns: user-turn triggers must fire the probe on
15–25% of user turns, and tool-step triggers add at most one probe per 20 tool steps.
"""

from __future__ import annotations

import pytest

from rolling_graph.gate import Gate
from tests.gate.labels import replay_rates
from tests.shared_data import manifest_rows, require_shared_data

pytestmark = pytest.mark.shared_data


def test_pooled_fire_rates_on_real_transcripts() -> None:
    data = require_shared_data()
    rows = manifest_rows(data, kinds=("claude-code",))
    totals = [0, 0, 0, 0]
    for row in rows:
        r = replay_rates(data / row.local_file, Gate())
        turns, fired, steps, tool_probes = r["turns"], r["fired"], r["steps"], r["tool_probes"]
        # Per file: never more than one tool-triggered probe per 20 tool steps.
        assert tool_probes * 20 <= max(steps, 20), (row.local_file, steps, tool_probes)
        for i, v in enumerate((turns, fired, steps, tool_probes)):
            totals[i] += v
    turns, fired, steps, tool_probes = totals
    assert turns >= 150
    rate = fired / turns
    assert 0.15 <= rate <= 0.25, f"prompt-trigger fire rate {rate:.1%} over {turns} turns"
    assert tool_probes * 20 <= steps
