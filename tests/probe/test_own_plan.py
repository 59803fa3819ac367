"""The person's own plan stated as a fact ("I'll host it on render.com"), with invented
prompts: a decision; what they will not do, a need, a question or a relative clause is not.
A sentence that decides and then asks for work gives a decision and a task, not one node."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import decisions
from tests.probe.helpers import kinds, say


def test_the_persons_own_plan_is_a_decision() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "the printer works again\nwe'll ship the firmware over USB tomorrow")
    assert "Ship the firmware over USB tomorrow" in kinds(sess, "decision")
    sess = HotSession.in_memory("s")
    say(sess, "order the spare belts, I'll fit them at the weekend")
    (label,) = kinds(sess, "decision")
    assert label == "Fit them at the weekend"
    assert "spare belts" in kinds(sess, "decision")[label].summary


def test_what_the_person_will_not_do_or_asks_is_no_plan() -> None:
    assert decisions.own_plan("I'll be away on Monday") is None
    assert decisions.own_plan("we'll need a bigger bucket") is None
    assert decisions.own_plan("will we keep the old pump?") is None
    assert decisions.own_plan("I will not rewire the board") is None
    # The subject must open its clause: a relative clause describes, it does not decide.
    assert decisions.own_plan("make a copy which we'll archive on the NAS") is None
    assert decisions.own_plan("then I will archive it on the NAS") == (
        "Archive it on the NAS",
        "it on the NAS",
    )
    # A plan on a condition commits to nothing; what the person does for the agent is no
    # choice of how the work is done.
    assert decisions.own_plan("check the pump, and if not, we'll order a new one") is None
    assert decisions.own_plan("If the belts slip, I will fit new ones") is None
    assert decisions.own_plan("send me the log, then I'll give you the wiring diagram") is None


def test_a_decision_and_the_work_after_it_are_two_nodes() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "let's defer the export to next sprint - open a ticket for it in the tracker")
    assert list(kinds(sess, "decision")) == ["Defer the export to next sprint"]
    assert list(kinds(sess, "task")) == ["Open a ticket for it in the tracker"]
    alone = HotSession.in_memory("s")
    say(alone, "let's defer the export to next sprint")
    assert list(kinds(alone, "decision")) == ["Defer the export to next sprint"]
    assert not kinds(alone, "task")  # one commitment, one node


def test_a_label_is_not_cut_inside_a_quote_or_a_parenthesis() -> None:
    said = 'let\'s use "night mode" for the reader, and "day mode" for the editor'
    assert decisions.unclipped(
        'Use night mode" for the reader', 'night mode" for the reader', said
    ) == (
        'Use "night mode" for the reader',
        '"night mode" for the reader',
    )
    said = 'I want the same badge for "Draft", "Sent", "Paid"'
    assert decisions.unclipped('Want the same badge for "Draft', 'the same badge for "Draft', said)[
        0
    ] == ('Want the same badge for "Draft"')
    assert decisions.whole_clause("tabs (left, right, top) for the panel, then") == (
        "tabs (left, right, top) for the panel"
    )


def test_wanting_something_to_happen_is_a_request_not_a_choice() -> None:
    said = "I want every invoice (paid, open, void) to show its due date"
    assert decisions.unclipped("Have every invoice (paid", "every invoice (paid", said) is None
    sess = HotSession.in_memory("s")
    say(sess, said)
    assert not kinds(sess, "decision")


def test_wanting_or_preferring_a_thing_reads_as_the_choice() -> None:
    # the label is an imperative, not the person's sentence without its subject
    sess = HotSession.in_memory("s")
    say(sess, "I prefer the env var")
    say(sess, "I want a coloured dot")
    assert set(kinds(sess, "decision")) == {"Use the env var", "Have a coloured dot"}


def test_giving_something_a_name_is_a_decision() -> None:
    assert decisions.naming("- name the script /tide:fetch") == (
        "Name the script /tide:fetch",
        "/tide:fetch",
    )
    assert decisions.naming('call it "Harbour Watch".') == (
        'Call it "Harbour Watch"',
        '"Harbour Watch"',
    )
    assert decisions.naming("call the pilot station twice") is None  # no name, an errand
    sess = HotSession.in_memory("s")
    say(sess, "let's name the service TideTables")
    assert "Name the service TideTables" in kinds(sess, "decision")


def test_code_marks_do_not_stay_in_a_label() -> None:
    said = "use `rg` to search"
    assert decisions.unclipped("Use rg` to search", "rg` to search", said) == (
        "Use rg to search",
        "rg to search",
    )


def test_the_means_set_apart_in_parentheses_is_a_choice() -> None:
    assert decisions.means("rebuild the index tonight (with Tantivy 0.22)") == (
        "Use Tantivy 0.22",
        "Tantivy 0.22",
    )
    assert decisions.means("rebuild the index (with care)") is None  # names nothing
    assert decisions.means("rebuild the index with Tantivy") is None  # not set apart
    sess = HotSession.in_memory("s")
    say(sess, "deploy the preview (via Fly.io)")
    assert "Use Fly.io" in kinds(sess, "decision")


def test_a_plan_to_deliberate_chooses_nothing() -> None:
    # "we'll discuss what to do next", "we'll decide how to proceed" (saross__trap-extraction),
    # "lets see if …" (M-Thisness__M-Claude): the choice is still to be made
    assert decisions.own_plan("yes, please commit, then we'll discuss what to do next") is None
    assert decisions.own_plan("tell me what you find, and we'll decide how to proceed") is None
    assert decisions.own_plan("we'll see, then we'll flash the firmware over USB") == (
        "Flash the firmware over USB",
        "the firmware over USB",
    )
    sess = HotSession.in_memory("s")
    say(sess, "tell me what you find, and we'll figure out which pump to order")
    assert not kinds(sess, "decision")
