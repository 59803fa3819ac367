"""Replay the hand-labelled user turns (tests/fixtures/gate_labels.jsonl) through the gate.

Shared by ``tests/gate/test_gate_eval.py`` and ``bench/gate_rates.py``. Each labelled session
is replayed in turn order with a fresh :class:`GateState` and an empty graph (the probe is not
run, so "known" entities are the ones seen earlier in the session).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolling_graph.gate import Gate, GateState
from rolling_graph.transcripts import ToolResult, ToolUse, UserPrompt, read_transcript

LABELS = Path(__file__).resolve().parents[1] / "fixtures" / "gate_labels.jsonl"
TRIGGERS = ("new_entity", "domain_shift", "decision", "correction")


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    misses: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def evaluate(rows: list[dict[str, Any]] | None = None, gate: Gate | None = None) -> dict[str, Any]:
    rows = rows if rows is not None else load_labels()
    gate = gate or Gate()
    sessions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        sessions[row["source"]].append(row)
    scores = {t: Score() for t in TRIGGERS}
    fired_turns = 0
    for turns in sessions.values():
        state = GateState()
        for row in sorted(turns, key=lambda r: r["turn"]):
            decision = gate.evaluate_prompt(row["text"], state, set())
            fired_turns += decision.fired
            names = decision.names()
            for t in TRIGGERS:
                want, got = bool(row["labels"][t]), t in names
                s = scores[t]
                tag = f"{row['source']}#{row['turn']}: {row['text'][:70]!r}"
                if want and got:
                    s.tp += 1
                elif got:
                    s.fp += 1
                    s.false_alarms.append(tag)
                elif want:
                    s.fn += 1
                    s.misses.append(tag)
                else:
                    s.tn += 1
    return {"scores": scores, "turns": len(rows), "fired": fired_turns}


def table(result: dict[str, Any]) -> str:
    lines = [
        "| trigger | positives | tp | fp | fn | precision | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in result["scores"].items():
        lines.append(
            f"| {name} | {s.tp + s.fn} | {s.tp} | {s.fp} | {s.fn} | {s.precision:.2f} | {s.recall:.2f} |"
        )
    lines.append(
        f"\nturns {result['turns']}, gate fired on {result['fired']} "
        f"({result['fired'] / max(1, result['turns']):.0%})"
    )
    return "\n".join(lines)


def replay_rates(path: Path, gate: Gate) -> dict[str, Any]:
    """Replay one transcript's real prompts and tool steps, interleaved in transcript order,
    through one gate state (as the hook sees them); count prompt and tool-step probes."""
    state = GateState()
    uses: dict[str, ToolUse] = {}
    turns = fired = steps = tool_probes = 0
    per_trigger: Counter[str] = Counter()
    for ev in read_transcript(path).events:
        if isinstance(ev, UserPrompt):
            turns += 1
            d = gate.evaluate_prompt(ev.text, state, set())
            fired += d.fired
            per_trigger.update(d.names())
        elif isinstance(ev, ToolUse):
            uses[ev.tool_use_id] = ev
        elif isinstance(ev, ToolResult):
            use = uses.get(ev.tool_use_id)
            steps += 1
            resp = {"content": ev.content, "is_error": ev.is_error}
            d = gate.evaluate_tool(use.name if use else "", use.input if use else {}, resp, state)
            tool_probes += d.fired
            per_trigger.update(d.names())
    return {
        "turns": turns,
        "fired": fired,
        "steps": steps,
        "tool_probes": tool_probes,
        "triggers": per_trigger,
    }
