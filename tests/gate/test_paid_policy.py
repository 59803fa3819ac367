"""The paid-probe policy (rolling_graph/gate/paid.py): corrections at once, the first detection
at once, other judgement triggers coalesced by a gap, a dead-man switch, tool events never."""

from __future__ import annotations

from rolling_graph.gate.paid import PaidPolicy, PaidState


def run(policy: PaidPolicy, prompts: list[set[str]], state: PaidState | None = None) -> list[str]:
    state = state or PaidState()
    out = []
    for detected in prompts:
        taken = policy.on_prompt(state, detected, gate_due=bool(detected))
        out.append(taken[0] if taken else "")
    return out


def test_correction_is_paid_at_once_every_time() -> None:
    p = PaidPolicy(gap_turns=6, dead_man_turns=15)
    got = run(p, [{"decision"}, {"correction"}, {"correction"}, set(), {"correction"}])
    assert got == ["first", "correction", "correction", "", "correction"]


def test_other_triggers_wait_for_the_gap_and_are_taken_together() -> None:
    p = PaidPolicy(gap_turns=4, dead_man_turns=0)
    state = PaidState()
    got = run(p, [{"new_entity"}, {"decision"}, {"domain_shift"}, set(), {"new_entity"}], state)
    assert got == ["first", "", "", "", "gap"]
    # a gap with nothing detected since does not pay
    assert run(p, [set()] * 8, state) == [""] * 8


def test_taken_triggers_are_handed_to_the_probe() -> None:
    p = PaidPolicy(gap_turns=3, dead_man_turns=0)
    state = PaidState(calls=1)
    assert p.on_prompt(state, {"decision"}, True) is None
    assert p.on_prompt(state, {"new_entity"}, True) is None
    assert p.on_prompt(state, set(), False) == ("gap", ["decision", "new_entity"])
    assert state.pending == [] and state.turns_since == 0 and state.calls == 2


def test_dead_man_after_quiet_turns() -> None:
    p = PaidPolicy(gap_turns=4, dead_man_turns=5)
    got = run(p, [set()] * 11, PaidState(calls=1))
    assert got == ["", "", "", "", "dead_man", "", "", "", "", "dead_man", ""]


def test_tool_events_never_pay_in_judgement_mode() -> None:
    p = PaidPolicy()
    state = PaidState()
    assert all(p.on_tool(state, gate_due=True) is None for _ in range(50))
    assert state.calls == 0


def test_always_mode_pays_whenever_the_gate_says() -> None:
    p = PaidPolicy(mode="always")
    state = PaidState()
    assert p.on_tool(state, gate_due=True) == ("gate", [])
    assert p.on_tool(state, gate_due=False) is None
    assert run(p, [{"decision"}, set(), {"new_entity"}], state) == ["gate", "", "gate"]


def test_pre_compact_pays_only_for_pending_judgement() -> None:
    p = PaidPolicy(gap_turns=10)
    state = PaidState(calls=1)
    assert p.on_pre_compact(state) is None  # nothing said since the last paid probe
    p.on_prompt(state, {"decision"}, True)
    assert p.on_pre_compact(state) == ("pre_compact", ["decision"])


def test_state_round_trips_and_tolerates_junk() -> None:
    s = PaidState(turns_since=3, calls=2, pending=["decision"])
    assert PaidState.from_dict(s.as_dict()) == s
    assert PaidState.from_dict("junk") == PaidState()
    assert PaidState.from_dict({"pending": "x"}).pending == []
