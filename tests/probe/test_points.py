"""Point-by-point replies (invented exchanges): an approving point adopts the agent's suggestion
of the same number; observations, refusals and unnumbered replies adopt nothing."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.eval.dialogue import replay_dialogue
from rolling_graph.probe.offline import acts, points
from tests.probe.helpers import kinds, say

SUGGESTIONS = """Here is what I found in the retry code.

Suggested changes:

1. Cap the retry budget at five attempts
Unbounded retries kept the worker busy for an hour.

2. Move the backoff into a helper: the three call sites copy it.

3. Log each retry with its delay
So a slow upstream shows in the logs.

Should I go ahead?"""

OBSERVATIONS = """Status of the importer:

1. The CSV reader handles quoted fields
2. Dates are parsed in local time
3. Two fixtures are stale

Anything else?"""


def _decisions(before: str, prompt: str) -> list[str]:
    return [label for _, label in replay_dialogue([(before, prompt)]).decisions]


def test_approving_points_adopt_the_suggestions_of_their_number() -> None:
    got = _decisions(SUGGESTIONS, "(1) great idea; (2) no, leave the call sites; (3) perfect, yes")
    assert "Approved: Cap the retry budget at five attempts" in got
    assert "Approved: Log each retry with its delay" in got
    assert not any("backoff" in label.lower() for label in got)


def test_a_point_keeps_the_persons_words_and_the_suggestion() -> None:
    graph = replay_dialogue([(SUGGESTIONS, "1. yes, a good idea 2. later")]).graph
    decisions = [n for n in graph.nodes.values() if n.kind == "decision"]
    assert [n.label for n in decisions] == ["Approved: Cap the retry budget at five attempts"]
    assert "(1) yes, a good idea" in (decisions[0].summary or "")
    assert "Unbounded retries" in (decisions[0].summary or "")


def test_agreeing_with_observations_decides_nothing() -> None:
    assert _decisions(OBSERVATIONS, "(1) agree. (2) yes, that is fine. (3) ok") == []


def test_reply_points_need_two_points_in_order() -> None:
    assert points.reply_points("(1) great idea; (2) later") == {1: "great idea", 2: "later"}
    assert points.reply_points("use version 2. then ship") == {}
    assert points.reply_points("1. yes") == {}


def test_the_list_that_holds_every_point_is_read() -> None:
    two_lists = SUGGESTIONS + "\n\nOpen questions:\n1. Which queue?\n"
    found = points.agent_points(two_lists, {1, 2, 3})
    assert found is not None and found[3][0] == "Log each retry with its delay"


def test_good_idea_is_agreement() -> None:
    assert acts.has("B seems like a good idea", "agree") is not None
    assert acts.has("that idea is broken", "agree") is None


AUDIT = """## Critical

### 🔴 1. **Guest account enabled**
The guest account can log in locally.

### 🔴 2. **Disk encryption off on D:**
D: holds project files.

## Medium

### 🟡 3. **Firewall rules not configured**
Inbound traffic is allowed by default.

## Action plan
1. ✅ Disable the guest account
2. ✅ Encrypt every drive

Want me to apply these now?"""


def test_a_reply_to_an_audit_reads_the_points_under_their_markers() -> None:
    # the headings carry a marker before the number; the action plan after them holds only
    # points 1 and 2, so a reply to all three answers the findings
    reply = "1. keep it, it's for the kiosk\n2. D: is a scratch disk\n3. (write the rules)"
    lead, found = points.agent_list(AUDIT, {1, 2, 3})
    assert found[3][0] == "Firewall rules not configured"
    assert points.answered("D: is a scratch disk", reply, AUDIT) == found[2]
    graph = replay_dialogue([(AUDIT, reply)]).graph
    (task,) = [n for n in graph.nodes.values() if n.kind == "task"]
    assert task.label == "Write the rules"
    assert "Firewall rules not configured" in (task.summary or "")


def test_a_long_list_cut_at_its_head_still_answers_the_rest() -> None:
    cut = AUDIT.split("### 🔴 1.", 1)[1].split("\n", 2)[2]  # the message's start is gone
    _, found = points.agent_list(cut, {1, 2, 3})
    assert sorted(found) == [2, 3]
    assert points.agent_points(cut, {1, 2, 3}) is None  # adopting needs every point


REVIEW = """Three review comments are open:

### 1. Flaky retry test (CI)
The retry test sleeps.

### 2. Cache eviction race (BugBot) - cache.go:88
Two writers can evict the same key.

### 3. Docs wording
Minor.

Which would you like to address first?"""

CHECKS = """My recommendation: let me:
1. Check if the importer handles empty rows
2. Investigate the duplicate invoices
3. Update the changelog

Would you like me to proceed with these checks?"""


def test_work_named_by_a_points_number_is_that_point() -> None:
    # "let's examine 2" (entireio__cli), "please undertake #1" (saross__trap-extraction)
    sess = HotSession.in_memory("s")
    say(sess, "let's examine 2. How does eviction work?", before=REVIEW)
    assert list(kinds(sess, "task")) == ["Examine Cache eviction race"]
    sess = HotSession.in_memory("s")
    say(sess, "please undertake #1 and then we'll go from there", before=CHECKS)
    assert list(kinds(sess, "task")) == ["Check if the importer handles empty rows"]


def test_a_number_that_names_no_point_is_left_as_said() -> None:
    assert points.point_work("fix 2", "I found three issues.") is None
    assert points.point_work("fix 7", CHECKS) is None  # no point 7
    assert points.point_work("version 2", CHECKS) is None  # no verb of work
    assert points.point_work("bump it to 2.5", CHECKS) is None
