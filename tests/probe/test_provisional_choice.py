"""A choice made for the time being is a choice: "keep X for now", "skip X for now" under a
heading that names the act ("Decided: …"), while "for now" after a topic switch still makes no
decision; "not worth X" gives a reason, it rejects no thing called "worth". Invented
exchanges, through the offline probe."""

from __future__ import annotations

import pytest

from tests.helpers import kinds_and_supersedes

BEFORE = (
    "Moving the report job to the scheduler service means a second process in production and "
    "a message broker. The report itself would not change."
)


def _graph(prompt: str) -> tuple[dict[str, str], set[tuple[str, str]]]:
    return kinds_and_supersedes(BEFORE, prompt)


@pytest.mark.parametrize(
    ("prompt", "label"),
    [
        (
            "Decided: keep the systemd timer for now, not worth a broker for one job.",
            "Keep the systemd timer",
        ),
        ("Decision: skip the scheduler service for now.", "Skip the scheduler service"),
        ("ok, stick with the nightly script for now", "Stick with the nightly script"),
    ],
)
def test_a_choice_for_the_time_being_is_a_decision(prompt: str, label: str) -> None:
    kinds, sup = _graph(prompt)
    assert kinds.get(label) == "decision", kinds
    assert not any(target.lower() == "worth" for _, target in sup), sup


def test_for_now_after_a_topic_switch_is_still_no_decision() -> None:
    kinds, _ = _graph("let's switch to the docs for now")
    assert "decision" not in kinds.values(), kinds
