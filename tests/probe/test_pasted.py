"""Replies that paste output and add the person's own words (invented exchanges): a failure
typed after a shell prompt contradicts the agent's latest claim of a repaired state, also a
few messages back; denied work with a pasted error supersedes the thing the error names."""

from __future__ import annotations

from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.offline import build_patch, pasted
from rolling_graph.probe.runner import graph_view
from tests.probe.helpers import superseded

FIXED = (
    "✅ **Print Spooler Repaired and Working!**\n\n"
    "- **Queue**: drains in under a second\n"
    "- **Driver**: the old PCL driver is reinstalled\n\n"
    "The spooler is ready for the night batch."
)
MOVED_ON = "Now let me start on the invoice templates, several in parallel:"
LOG = (
    "[1/3] Loading drivers...✓ PCL loaded\n"
    "[2/3] Starting queue...\n"
    "⚠ queue worker exited with code 3\n"
)


def _reply(sess: HotSession, messages: list[str], prompt: str) -> None:
    """The agent's messages (oldest first), then the person's prompt, through the offline
    probe as the runner hands them over: the older ones as ``earlier`` and ``before``."""
    turn = sess.advance_turn()
    nodes, edges = graph_view(sess.graph)
    turns = [TurnDigest(turn - 1, "", assistant=messages[-1]), TurnDigest(turn, prompt)]
    older = [""] * 2 + messages[:-1]
    req = ProbeRequest("s", turn, turns, nodes, edges, before=older[-1], earlier=older[-2])
    res = sess.apply(build_patch(req), PatchSource("offline", "offline.v1"))
    assert res.applied, res.error


def test_own_words_after_a_paste() -> None:
    assert pasted.own_words(LOG + "pat@print01:~/spool$ it still dies") == "it still dies"
    assert pasted.own_words(LOG + "the queue still stops at step two") == (
        "the queue still stops at step two"
    )
    assert pasted.own_words("it still dies") is None  # nothing pasted
    assert pasted.own_words(LOG + "pat@print01:~/spool$ ") is None  # no words added
    # every line said in words: a message, not a paste
    assert pasted.own_words("the queue is fine now\nbut the scanner keeps beeping") is None


def test_a_failure_after_a_paste_contradicts_the_repair_claimed_messages_back() -> None:
    sess = HotSession.in_memory("s")
    _reply(sess, [FIXED, MOVED_ON], LOG + "pat@print01:~/spool$ [it still crashes")
    pairs = superseded(sess)
    assert pairs.get("It still crashes", "").startswith("Agent: ✅ Print Spooler Repaired"), pairs


def test_a_paste_with_words_that_report_no_failure_corrects_nothing() -> None:
    sess = HotSession.in_memory("s")
    _reply(sess, [FIXED, MOVED_ON], LOG + "pat@print01:~/spool$ [looks fine to me now")
    assert not superseded(sess)


def test_denied_work_with_a_pasted_error_supersedes_what_the_error_names() -> None:
    sess = HotSession.in_memory("s")
    moved = "Good! All indexer processes are stopped. You can launch it by hand now."
    prompt = (
        "Indexing...\n./reindex.sh: line 12: /var/run/indexer.lock: Permission denied\n"
        "you didnt change the reindex script to use the new folder"
    )
    _reply(sess, [moved], prompt)
    n = sess.graph.nodes
    olds = [
        n[e.target].label
        for e in sess.graph.edges.values()
        if e.relationship == "supersedes" and n[e.source].label.startswith("You didnt change")
    ]
    assert "/var/run/indexer.lock: Permission denied" in olds, olds


def test_never_mind_after_a_pasted_error_denies_no_work() -> None:
    sess = HotSession.in_memory("s")
    prompt = "./reindex.sh: line 12: /var/run/indexer.lock: Permission denied\nnever mind, old log"
    _reply(sess, ["Good! All indexer processes are stopped."], prompt)
    assert not any(t.startswith("/var/run") for t in superseded(sess).values())


def test_a_short_still_failing_report_reaches_back_to_the_repair_claim() -> None:
    assert pasted.still_failing("the queue still stops at step two") is not None
    assert pasted.still_failing("the queue still drains fine") is None  # no failure
    assert pasted.still_failing("it crashes on start") is None  # no "still": no claim presumed
    sess = HotSession.in_memory("s")
    _reply(sess, [FIXED, MOVED_ON], "hmm the spooler still hangs overnight")
    pairs = superseded(sess)
    assert any(t.startswith("Agent: ✅ Print Spooler Repaired") for t in pairs.values()), pairs
