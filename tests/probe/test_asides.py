"""A personal aside, and a sentence about the work that only sounds personal (invented
exchanges through the offline probe)."""

from __future__ import annotations

from typing import Any

import pytest

from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest
from rolling_graph.probe.offline import OfflineBackend


def _added(prompt: str, known: list[tuple[str, str]]) -> list[dict[str, Any]]:
    nodes = [NodeView(id=f"n{i}", label=label, domain=domain, weight=0.5) for i, (label, domain)
             in enumerate(known)]  # fmt: skip
    req = ProbeRequest("s", 3, [TurnDigest(3, prompt)], nodes, [])
    ops = OfflineBackend().run(req).raw["ops"]
    return [op["value"] for op in ops if op["op"] == "add" and op["path"].count("/") == 2
            and op["path"].startswith("/nodes/")]  # fmt: skip


WEATHER_APP = [("DEPARTURE_HOUR", "technical"), ("OpenWeatherMap", "technical")]
DNS_WORK = [("NextDNS", "technical"), ("DNS resolver", "technical"), ("Mullvad", "project")]
PARSER_WORK = [("parse_rows", "technical"), ("Tokenizer", "technical")]


@pytest.mark.parametrize(
    ("prompt", "known"),
    [
        # a requirement of the weather app the session builds: home and work are its routes
        ("I want to check weather at departure time (home) and arrival time (work) and take "
         "the average to tell if it rains", WEATHER_APP),
        # "personal" qualifies the DNS queries the session is about
        ("what about traceability of DNS queries for personal inspection?", DNS_WORK),
    ],
)  # fmt: skip
def test_a_sentence_about_the_sessions_work_is_no_aside(prompt: str, known: list) -> None:
    added = _added(prompt, known)
    assert not [v for v in added if v["domain"] == "personal"], added


@pytest.mark.parametrize(
    "prompt",
    [
        "call the landlord about the heating at home",
        "renew my passport before the trip",
    ],
)
def test_a_sentence_about_the_persons_own_life_is_an_aside(prompt: str) -> None:
    added = _added(prompt, PARSER_WORK)
    assert [v for v in added if v["domain"] == "personal"], added
