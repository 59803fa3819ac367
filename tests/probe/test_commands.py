"""A bare command typed as a prompt is a task, whatever its verb, with invented prompts; a
short statement, a question or a command on nothing technical is not."""

from __future__ import annotations

from rolling_graph import nlp
from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline.commands import bare_command
from tests.probe.helpers import kinds, say


def _cmd(text: str) -> str | None:
    return bare_command(text, nlp.extract_entities(text))


def test_a_verb_then_a_technical_object_is_a_command() -> None:
    assert _cmd("dig mail.example.org") == "Dig mail.example.org"
    assert _cmd("tcpdump the traffic on eth0 to capture.pcap") == (
        "Tcpdump the traffic on eth0 to capture.pcap"
    )
    sess = HotSession.in_memory("s")
    say(sess, "ping gateway.home.arpa")
    assert "Ping gateway.home.arpa" in kinds(sess, "task")


def test_statements_questions_and_plain_words_are_not_commands() -> None:
    assert _cmd("crashes in parser.rs again") is None  # an inflected verb: a report
    assert _cmd("still broken on staging.example.org") is None
    assert _cmd("nice, mail.example.org answers now") is None
    assert _cmd("dig mail.example.org?") is None
    assert _cmd("dig deeper into the budget") is None  # nothing technical to act on
    assert _cmd("ping [REDACTED_IP]") is None
    assert _cmd("keys and crash/restart loops") is None
    assert _cmd("token and logs/app.log, run it") is None  # a list of nouns, two clauses
