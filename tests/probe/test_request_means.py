"""The means a request names ("port the importer using Elixir", "check it by running `tox`"):
a choice made in passing, a decision whose summary is the request. Invented prompts."""

from __future__ import annotations

import pytest

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.instruments import request_means
from tests.probe.helpers import kinds, say


@pytest.mark.parametrize(
    ("sentence", "what"),
    [
        ("Please port the invoice importer using Elixir so it runs on the BEAM.", "Elixir"),
        (
            "I want to sync the recipes across phones using CouchDB replication",
            "CouchDB replication",
        ),
        ("could you check the fix by running `tox -e py312` on your side?", "tox -e py312"),
        ("I'd like you to write a Kotlin app that will run on the warehouse scanners", "Kotlin"),
        ("ship the release notes via Mailgun tonight", "Mailgun"),
        ("I want it in Haskell on Fly", "Haskell on Fly"),  # the form the thing is to take
        ("the parser should be written in Zig", "Zig"),
        ("do it in Kotlin please", "Kotlin"),
        ("make it a Deno script", "Deno"),
    ],
)
def test_a_request_names_what_it_is_done_with(sentence: str, what: str) -> None:
    assert request_means(sentence) == (f"Use {what}", what)


@pytest.mark.parametrize(
    "sentence",
    [
        "why are you using Memcached here?",  # a question about it, no work asked
        "the billing job already runs via Airflow",  # a statement, no request
        "merge the branch using the usual steps",  # no name: nothing chosen
        "open a Jira ticket for the flaky test",  # the artefact is no software made
        "plan the rollout for Monday using the checklist",
        "do you want it in Haskell?",  # asked, not stated
        "is it written in Zig",
        "I want it on Monday",  # a day is no name of a thing
    ],
)
def test_no_means_without_a_request_or_a_name(sentence: str) -> None:
    assert request_means(sentence) is None


def test_the_decision_carries_the_request_it_is_for() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "I want you to build a Svelte dashboard that the night shift can use on tablets.")
    node = kinds(sess, "decision")["Use Svelte"]
    assert "tablets" in node.summary and "dashboard" in node.summary
