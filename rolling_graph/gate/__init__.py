"""The heuristic gate: decides, cheaply and synchronously, whether a probe should run.

On every user prompt :meth:`Gate.evaluate_prompt` runs the spaCy layer
(:mod:`rolling_graph.nlp`) and the trigger rules (:mod:`rolling_graph.gate.triggers`):
``new_entity``, ``domain_shift``, ``decision``, ``correction``, ``dead_man`` and any rules
registered by plugins through the ``register_gate_rules`` hookspec. On every post-tool event
:meth:`Gate.evaluate_tool` collects cheaper signals (files written, new command families,
errors) and a step-based dead-man switch.

**Detection and scheduling are separate.** ``decision.triggers`` is what the gate *detected*
on this turn (measured for precision/recall on the labelled set); ``decision.probe`` says
whether a probe is due *now*. Detected triggers are kept pending in the state and coalesced
into the next probe, which is due when

- a correction is detected (a superseded decision must not be rendered as current for long),
- or it is the session's first detection (the opening prompt names the task),
- or at least ``probe_gap_turns`` user turns (default 5) passed since the last probe and
  something is pending,
- or ``dead_man_turns`` (8) quiet turns passed (the dead-man switch).

Nothing detected is lost: the probe reads every turn since the last probe, so deferring only
batches the work. This keeps real sessions near the spec's 10–15 probes per 60 turns while
decision and correction *detection* keeps its recall. The gate plugin puts the detected
triggers into ``ctx.triggers`` and sets ``ctx.probe_due``; the probe plugin queues a probe when
``ctx.probe_due`` is set, so the gate resets its counters exactly when a probe is due.

State (:class:`~rolling_graph.gate.state.GateState`) is passed in and updated in place; the
plugin loads and saves it as ``gate.json`` in the session directory.

May import: core, nlp.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.hook_event import Trigger
from rolling_graph.gate import triggers as rules
from rolling_graph.gate.state import GateState

__all__ = ["Gate", "GateDecision", "GateRule", "GateState", "Trigger"]


class GateRule:
    """Protocol-like base for third-party rules (``register_gate_rules``): ``name`` and
    ``check(text, doc, state, graph) -> list[str] | None`` (the words, or None/[])."""

    name: str = "rule"

    def check(self, text: str, doc: Any, state: GateState, graph: Any) -> list[str] | None:
        raise NotImplementedError


@dataclass
class GateDecision:
    """One gate decision: which triggers fired on which words, and what the gate saw."""

    kind: str  # prompt | tool
    turn: int
    step: int
    triggers: list[Trigger] = field(default_factory=list)
    domain: str = ""
    margin: float = 0.0
    entities: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)  # tool signals seen (fired or pending)
    probe: bool = False  # a probe is due now (detected triggers may wait; see module doc)
    coalesced: list[Trigger] = field(default_factory=list)  # pending triggers this probe takes

    @property
    def fired(self) -> bool:
        """Whether this decision asks for a probe now."""
        return self.probe

    @property
    def detected(self) -> bool:
        return bool(self.triggers)

    def names(self) -> set[str]:
        return {t.name for t in self.triggers}

    def as_log(self) -> dict[str, Any]:
        return {
            "type": "gate",
            "kind": self.kind,
            "turn": self.turn,
            "step": self.step,
            "fired": self.fired,
            "triggers": [t.as_dict() for t in self.triggers],
            "coalesced": [t.as_dict() for t in self.coalesced],
            "domain": self.domain,
            "margin": self.margin,
            "entities": self.entities[:20],
            "signals": self.signals[:20],
        }


STRONG_TRIGGERS = frozenset({"correction"})


def _grouped(entries: list[str]) -> list[Trigger]:
    grouped: dict[str, list[str]] = {}
    for entry in entries:
        name, _, words = entry.partition(":")
        grouped.setdefault(name, []).extend(w for w in words.split(",") if w)
    return [Trigger(n, _uniq(ws)) for n, ws in grouped.items()]


def _uniq(words: Iterable[str], limit: int = 8) -> tuple[str, ...]:
    out: list[str] = []
    for w in words:
        w = str(w)[:80]
        if w and w not in out:
            out.append(w)
    return tuple(out[:limit])


class Gate:
    """Stateless apart from the shared spaCy pipeline; safe to share across sessions."""

    def __init__(
        self,
        *,
        model: str = "",
        dead_man_turns: int = 8,
        dead_man_steps: int = 25,
        probe_gap_turns: int = 5,
        rules: Iterable[Any] = (),
        log_error: Callable[[str, BaseException], None] | None = None,
    ) -> None:
        self.model = model
        self.dead_man_turns = dead_man_turns
        self.dead_man_steps = dead_man_steps
        self.probe_gap_turns = probe_gap_turns
        self.rules = list(rules)
        self._log_error = log_error

    @classmethod
    def from_settings(cls, settings: Any, rules: Iterable[Any] = ()) -> Gate:
        return cls(
            model=getattr(settings, "spacy_model", ""),
            dead_man_turns=getattr(settings, "dead_man_turns", 8),
            dead_man_steps=getattr(settings, "dead_man_steps", 25),
            probe_gap_turns=getattr(settings, "probe_gap_turns", 5),
            rules=rules,
        )

    def warm_up(self) -> None:
        """Build the spaCy pipeline now (the worker does this at start, off the hot path)."""
        from rolling_graph.nlp import get_nlp

        get_nlp(self.model)

    # -- prompts
    def evaluate_prompt(
        self, text: str, state: GateState, known_terms: set[str] | None = None, graph: Any = None
    ) -> GateDecision:
        """Decide for one user prompt; advances ``state`` (turn, counters, memories)."""
        from rolling_graph import nlp

        known = known_terms or set()
        state.turn += 1
        decision = GateDecision("prompt", state.turn, state.step)
        text = text if isinstance(text, str) else ""
        doc = nlp.analyse(text, self.model) if text.strip() else None
        fired: list[Trigger] = []
        if doc is not None:
            ents = nlp.entities_from_doc(doc)
            decision.entities = [e.text for e in ents]
            if words := rules.new_entities(ents, state, known):
                fired.append(Trigger("new_entity", _uniq(words)))
            score = nlp.classify_domain(text, self.model, doc=doc)
            decision.domain, decision.margin = score.winner, score.margin
            if words := rules.domain_shift(score, state):
                fired.append(Trigger("domain_shift", _uniq(words)))
            if words := nlp.decision_cues(text):
                fired.append(Trigger("decision", _uniq(words)))
            if words := nlp.correction_cues(text):
                fired.append(Trigger("correction", _uniq(words)))
        for rule in self.rules:
            try:
                words = rule.check(text, doc, state, graph)
            except Exception as err:  # noqa: BLE001 - a plugin rule must not break the gate
                if self._log_error:
                    self._log_error(getattr(rule, "name", "rule"), err)
                continue
            if words:
                fired.append(Trigger(str(getattr(rule, "name", "rule")), _uniq(words)))
        decision.triggers = fired
        state.turns_since_probe += 1
        for t in fired:
            entry = f"{t.name}:{','.join(t.words[:3])}"
            if entry not in state.pending_prompt:
                state.pending_prompt.append(entry)
        del state.pending_prompt[:-40]
        due = bool(fired) and (
            any(t.name in STRONG_TRIGGERS for t in fired)
            or state.probes == 0
            or state.turns_since_probe >= self.probe_gap_turns
        )
        if not due and state.pending_prompt and state.turns_since_probe >= self.probe_gap_turns:
            due = True  # something detected earlier has waited long enough
        if not due and (words := rules.dead_man(state, self.dead_man_turns)):
            decision.triggers = [*fired, Trigger("dead_man", tuple(words))]
            due = True
        if due:
            decision.coalesced = _grouped(state.pending_prompt)
            state.probed()
        decision.probe = due
        return decision

    # -- tools
    def evaluate_tool(
        self,
        tool_name: str,
        tool_input: dict[str, Any] | None,
        tool_response: Any,
        state: GateState,
        phase: str = "post",
    ) -> GateDecision:
        """Decide for one tool event. Only ``post`` events count as steps and can fire."""
        decision = GateDecision("tool", state.turn, state.step)
        if phase != "post":
            return decision
        state.step += 1
        state.steps_since_probe += 1
        decision.step = state.step
        signals = rules.tool_signals(
            tool_name or "",
            tool_input if isinstance(tool_input, dict) else {},
            tool_response,
            state,
        )
        for name, word in signals:
            entry = f"{name}:{word}"
            if entry not in state.pending_tool:
                state.pending_tool.append(entry)
        del state.pending_tool[:-50]
        decision.signals = [f"{n}:{w}" for n, w in signals]
        fired: list[Trigger] = []
        if state.pending_tool and state.steps_since_probe >= rules.TOOL_MIN_GAP:
            grouped: dict[str, list[str]] = {}
            for entry in state.pending_tool:
                name, _, word = entry.partition(":")
                grouped.setdefault(name, []).append(word)
            fired = [Trigger(n, _uniq(ws)) for n, ws in grouped.items()]
        elif self.dead_man_steps > 0 and state.steps_since_probe >= self.dead_man_steps:
            fired = [Trigger("dead_man_steps", (f"{state.steps_since_probe} steps",))]
        decision.triggers = fired
        if fired:
            state.probed()
            state.tool_probes += 1
            decision.probe = True
        return decision
