"""Corrections with invented exchanges: "Y, not X"; push-back on the agent's last message (an
objection, "or just …", "it doesn't X, it Ys", "there's already …"); a choice or request made in
correcting tone replaces the agent's statement it answers; the statement is one of the last."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import corrections
from tests.probe.helpers import kinds, say, superseded


def test_y_not_x_supersedes_the_rejected_thing() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Compress the avatars, not the banner images.")
    assert "banner images" in superseded(sess).values()


def test_y_not_in_x_supersedes_the_object_of_the_preposition() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Store the signing keys in the vault, not in the shared drive.")
    assert "shared drive" in superseded(sess).values()


def test_something_that_already_exists_contradicts_the_agents_plan() -> None:
    before = "The import is slow.\nI'll write a new helper to parse the invoice dates."
    sess = HotSession.in_memory("s")
    say(sess, "there's already a date parser in billing/dates.py", before=before)
    old = list(superseded(sess).values())
    assert old and old[0].startswith("Agent: I'll write a new helper"), superseded(sess)


def test_or_just_replaces_the_agents_workaround() -> None:
    before = "The vendored SDK has the bug. Let me patch the vendored copy of the SDK by hand:"
    sess = HotSession.in_memory("s")
    say(sess, "or just upgrade the SDK to the fixed release", before=before)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: Let me patch the vendored") for v in pairs.values()), pairs


def test_contrast_corrects_the_agents_reading() -> None:
    before = "The kiosk app hangs on rotation, so I'll add a watchdog timer to restart the view."
    sess = HotSession.in_memory("s")
    say(sess, "it doesn't hang, it crashes to the home screen", before=before)
    pairs = superseded(sess)
    assert any("hangs on rotation" in v for v in pairs.values()), pairs


def test_a_choice_in_correcting_tone_replaces_the_agents_statement() -> None:
    before = "Done. The shopping cart now keeps its items in a browser cookie."
    sess = HotSession.in_memory("s")
    say(sess, "No, use Redis for the shopping cart.", before=before)
    pairs = superseded(sess)
    assert any(k.startswith("Use Redis") and v.startswith("Agent:") for k, v in pairs.items())


def test_no_push_back_without_an_agent_message_or_on_additions() -> None:
    assert not corrections.rejects_something("but then the cache would be cold")
    assert corrections.rejects_something("but then the cache would be cold", "I cleared it.")
    assert not corrections.rejects_something("But also add a README section", "Done.")
    assert not corrections.rejects_something("but to answer your question, B is fine", "Done.")
    assert not corrections.rejects_something("it works, it is fast", "Done.")


def test_the_claim_is_one_of_the_agents_last_statements() -> None:
    before = (
        "The greenhouse sensor logs humidity every minute. "
        "I checked the wiring of the fan relay. "
        "The relay is fine. The firmware reads the sensor on pin 4. "
        "I flashed the new build. Everything is running."
    )
    claim = corrections._contradicted_claim("no, the sensor is on pin 5", before)
    assert claim == "The firmware reads the sensor on pin 4."
    older = corrections._contradicted_claim("the humidity logs every minute are too noisy", before)
    assert older and older.startswith("The greenhouse sensor logs humidity")


def test_questions_that_ask_for_work_are_tasks() -> None:
    from tests.probe.helpers import kinds

    sess = HotSession.in_memory("s")
    say(sess, "how do we configure the label printer to be shared on the network?")
    say(sess, "restart the print server?")
    say(sess, "do we have a test for the invoice rounding?")  # a question: "do we …"
    say(sess, "how do we know the backups ran?")  # "know" asks for an answer, not work
    assert set(kinds(sess, "task")) == {
        "Configure the label printer to be shared",
        "Restart the print server",
    }


def test_requirements_shapes_and_their_owner() -> None:
    from rolling_graph.probe.offline import speech
    from tests.probe.helpers import kinds

    assert speech.constraint_phrase("keep the bundle as small as possible") == (
        "as small as possible"
    )
    assert speech.constraint_phrase("fewer round trips possible for the sync job")
    assert speech.constraint_phrase("- must be toggled by a flag, default to disabled") == (
        "must be toggled by a flag, default to disabled"
    )
    assert speech.constraint_phrase("(no need to cover the legacy importer)")
    sess = HotSession.in_memory("s")
    say(sess, "Let's use Postgres for the ledger. The schema must stay backwards compatible.")
    ledger = kinds(sess, "decision")["Use Postgres for the ledger"]
    assert "backwards compatible" in " ".join((ledger.attrs or {}).values())


def test_a_different_quantity_replaces_the_agents_proposal() -> None:
    before = "The upload times out on big files. I'd set the chunk size to 8 megabytes."
    sess = HotSession.in_memory("s")
    say(sess, "hmm, make it 32", before=before)
    pairs = superseded(sess)
    assert any(
        "chunk size to 8" in v or v.startswith("Agent: I'd set the chunk") for v in pairs.values()
    ), pairs


def test_a_quantity_the_agent_asked_about_is_replaced_too() -> None:
    before = "The nightly export keeps 7 days of backups. Should I raise it to 14 or keep 7?"
    sess = HotSession.in_memory("s")
    say(sess, "let's do 30 days", before=before)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: Should I raise it to 14") for v in pairs.values()), pairs


def test_no_counter_proposal_from_an_option_pick_or_pasted_output() -> None:
    menu = "Two ways to do it:\n1. Cache the thumbnails in memory\n2. Render them on demand"
    for prompt, before in (
        ("go with 2", menu),
        ("ok 2 then", menu),
        ("[3/9] Linking objects... 412 warnings", "The build runs in 9 steps."),
        ("error at line 88: unexpected token", "The parser reads 3 files."),
        ("make it 32", ""),  # no agent message: nothing proposed
        ("keep it at 8", "I'd set the chunk size to 8 megabytes."),  # the same number: agrees
    ):
        assert not corrections.counters_number(prompt, before), prompt


def test_no_before_a_noun_says_there_is_none_and_stays_in_the_label() -> None:
    # "no" before a noun is a determiner; before a verb or a pronoun it refuses
    assert corrections.unmarked("No deploys on Fridays.") == "No deploys on Fridays."
    assert corrections.unmarked("No unbounded retries in the worker") == (
        "No unbounded retries in the worker"
    )
    assert corrections.unmarked("no revert the last commit") == "revert the last commit"
    assert corrections.unmarked("No, use the staging bucket") == "use the staging bucket"
    assert corrections.unmarked("no I meant the other file") == "I meant the other file"
    sess = HotSession.in_memory("s")
    say(sess, "No deploys that day.", "I have scheduled the deploy for Friday the 12th.")
    labels = [n.label for n in sess.graph.nodes.values() if n.kind == "correction"]
    assert labels == ["No deploys that day"]


def test_with_nothing_to_correct_there_is_no_correction() -> None:
    # A session's first prompt, no agent message before it and nothing in the graph it could
    # overturn (ElixirTrials__medgemma-hackathon; saross__trap-extraction's first prompts after
    # an export): its complaint or comparison corrects nothing.
    for first in (
        "My builds take a long time to finish and should be more limited than a full release run.",
        "Hi, welcome back. If you open the ledger you'll see I corrected a few things, including "
        "the last open entry.",
    ):
        sess = HotSession.in_memory("s")
        say(sess, first)
        assert not kinds(sess, "correction"), first
    # the same complaint after the agent's account is a correction of it
    sess = HotSession.in_memory("s")
    say(
        sess,
        "No, the builds should be cached rather than rebuilt.",
        before="I rebuild every image on each run.",
    )
    assert kinds(sess, "correction")


def test_a_correction_asked_as_a_question_stays_one() -> None:
    # "why won't you run it?" after the agent declined (moredip__session-share); the label was
    # its first words without the object or the mark ("Why won't you run")
    sess = HotSession.in_memory("s")
    say(sess, "why won't you deploy it?", before="I won't deploy that build myself, but you can.")
    assert list(kinds(sess, "correction")) == ["Why won't you deploy it?"]
