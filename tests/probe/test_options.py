"""Choices among what the agent offered, with invented exchanges: a reply that echoes one
option's headline, one side of an "A, or B?" question, the whole line of a picked option, and
the last block of options in a long message."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import intent, options
from tests.probe.helpers import kinds, say

GARDEN = """Here is what I found about the irrigation timer.

How should the schedule be stored?
1. **Store it in the EEPROM** - survives power cuts, limited writes
2. **Keep it in RAM** - simplest, lost on reboot
3. **Fetch it from the hub** - needs Wi-Fi at boot

Which one do you want?"""


def test_reply_echoing_one_option_is_that_decision() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "eeprom storage please, power cuts happen a lot here", before=GARDEN)
    (label,) = kinds(sess, "decision")
    assert label.startswith("Option 1: Store it in the EEPROM")
    summary = kinds(sess, "decision")[label].summary
    assert "survives power cuts" in summary  # the option's description after the dash


def test_echo_needs_one_clear_option() -> None:
    assert options.echoed("store it somewhere", intent.offered_options(GARDEN)) is None
    assert options.echoed("what does EEPROM stand for?", intent.offered_options(GARDEN)) is None
    assert options.echoed("keep it in ram", intent.offered_options(GARDEN)) == "2"


# The agent's next steps, not a choice: the message asks nothing.
STEPS = """The migration script is ready. Please run it from your terminal:

    ./migrate.sh --apply

Once it has run, we'll:
1. Drop the temporary tables
2. Check that the row counts look right
3. Tag the release

Let me know when it's done."""


def test_a_reply_that_repeats_a_step_the_agent_will_take_picks_nothing() -> None:
    assert (
        options.echoed(
            "done, check the row counts look right", intent.offered_options(STEPS), STEPS
        )
        is None
    )
    sess = HotSession.in_memory("s")
    say(sess, "done, please check that the row counts look right and carry on", before=STEPS)
    assert not kinds(sess, "decision")
    # The same list asked about, on a line of its own before it, is a choice.
    asked = STEPS.replace("Once it has run, we'll:", "Would you like me to:").replace(
        "\n\nLet me know when it's done.", ""
    )
    assert options.asks(asked) and not options.asks(STEPS)
    assert (
        options.echoed("check the row counts look right", intent.offered_options(asked), asked)
        == "2"
    )


def test_last_block_of_options_is_the_question_answered() -> None:
    text = (
        "### Option 1: Rewrite the parser\nlong story\n### Option 2: Patch the lexer\nmore\n\n"
        "Before that, where should logs go?\n1. Log to stderr\n2. Log to a rotating file\n"
    )
    assert intent.offered_options(text) == {"1": "Log to stderr", "2": "Log to a rotating file"}


def test_one_side_of_an_or_question() -> None:
    before = (
        "The old cron entry still exists. Should I delete the cron entry, or keep it as a fallback?"
    )
    sess = HotSession.in_memory("s")
    say(sess, "keep it as fallback", before=before)
    decisions = kinds(sess, "decision")
    assert list(decisions) == ["Keep it as a fallback"]
    assert "cron entry" in decisions["Keep it as a fallback"].summary


def test_another_way_offered_after_the_question_is_a_side() -> None:
    # "Q? Or if you'd like me to X instead, I can": the offer after the question is the other side
    before = (
        "Understood, the theme is yours. What's the download link for the theme archive? Or if "
        "you'd like me to use the copy in the vendor folder instead, I can do that at `vendor/`."
    )
    sides, _ = options.alternatives(before)
    assert sides == [
        "What's the download link for the theme archive",
        "use the copy in the vendor folder",
    ]
    sess = HotSession.in_memory("s")
    say(sess, "vendor copy", before=before)
    assert list(kinds(sess, "decision")) == ["Use the copy in the vendor folder"]
    # "Q? Or would you like …?": the offer is the closing question itself
    before = "The index is rebuilt. Shall I rerun the import now? Or would you like to check the mapping first?"
    assert options.alternatives(before)[0] == ["rerun the import now", "check the mapping first"]
    # an offer after a question that already has two sides, or after a question about a fact,
    # adds none
    before = "Should I merge it, or wait? Or would you like me to close it?"
    assert options.alternatives(before)[0] == []
    before = "Have you created the bucket yet? Or would you like me to create it for you?"
    assert options.alternatives(before)[0] == []


def test_or_question_without_a_clear_side_is_no_decision() -> None:
    before = "Want me to bump the version and tag it, or draft the changelog first?"
    sess = HotSession.in_memory("s")
    say(sess, "bump the version, tag it, then draft the changelog", before=before)  # both
    say(sess, "why would we tag it?", before=before)  # a question
    before = "I fixed the flaky test. Want me to push the branch, or help with anything else?"
    say(sess, "nothing else for now", before=before)  # an open-ended side
    assert kinds(sess, "decision") == {}


def test_a_question_about_what_happened_offers_no_sides() -> None:
    # "Have you …, or …?" asks for a fact: the reply that gives it picks nothing
    before = (
        "Here are the commands.\n\nQuestion for you: Have you created the mirror bucket yet, "
        "or would you like me to wait while you do that?"
    )
    sess = HotSession.in_memory("s")
    say(sess, "s3://kite-mirror-eu", before=before)
    say(sess, "the mirror bucket is ready", before=before)
    assert kinds(sess, "decision") == {}
    # a heading before a question that does offer two ways is not part of either side
    sides, _ = options.alternatives(
        "Done. Next step: should I keep the cache in Redis, or move it to Postgres?"
    )
    assert sides == ["keep the cache in Redis", "move it to Postgres"]


KILN = """Two ways to control the kiln ramp:

**A. Fixed steps** - one table of set points per glaze
**B. PID loop** - smoother, needs tuning

Which approach do you prefer? I'd suggest **A** for now."""


def test_a_letter_judged_good_anywhere_in_a_long_clause_picks_it() -> None:
    sess = HotSession.in_memory("s")
    reply = "the tuning worries me a little but to answer your question B seems like the right call"
    say(sess, reply, before=KILN)
    assert [d for d in kinds(sess, "decision") if d.startswith("Option B: PID loop")]


def test_numbered_questions_are_not_options() -> None:
    text = "Before I start:\n1. Is the kiln on the same network?\n2. Do you have the API key?\n"
    assert intent.offered_options(text) == {}


def test_a_reply_in_numbered_points_does_not_pick_option_one() -> None:
    steps = "Try this:\n1. Start the kiln in test mode\n2. Watch the ramp log\n3. Report back"
    sess = HotSession.in_memory("s")
    say(sess, "1. the log never shows the second ramp step 2. the fan kept running", before=steps)
    assert kinds(sess, "decision") == {}
    assert options.numbered_reply("1.A 2. B") is False  # short answers per question


def test_a_skill_run_from_the_prompt_is_a_task() -> None:
    sess = HotSession.in_memory("s")
    say(sess, 'claude "/audit-deps Which packages in the lockfile are unmaintained? Be brief."')
    say(sess, "/publish-docs Deploy the handbook site to the staging bucket")
    tasks = kinds(sess, "task")
    assert any(t.startswith("Audit deps: Which packages in the lockfile") for t in tasks), tasks
    assert any(t.startswith("Deploy the handbook site") for t in tasks), tasks


def test_an_approving_first_sentence_approves_the_proposal() -> None:
    before = (
        "Here is the plan.\n\n**Move the nightly export to the worker**\n\n"
        "The worker already holds the queue, so the cron script goes away.\n\n"
        "Does that match what you had in mind?"
    )
    sess = HotSession.in_memory("s")
    say(sess, "yes, that makes sense. And the old cron script can be deleted then?", before=before)
    assert "Approved: Move the nightly export to the worker" in kinds(sess, "decision")
    sess = HotSession.in_memory("s")
    say(sess, "yes, but keep the cron script for a week.", before=before)  # not a plain approval
    assert not [d for d in kinds(sess, "decision") if d.startswith("Approved")]


def test_ok_approves_the_option_the_agent_called_its_take() -> None:
    text = (
        "Two ways to handle the late fees:\n\n1. **Waive them** - simplest\n"
        "2. **Charge a flat 5 euros** - matches the paper form\n\n"
        "My take: **Option 2** keeps the office consistent. Which do you prefer?"
    )
    assert intent.recommended(text, intent.offered_options(text)) == "2"
    sess = HotSession.in_memory("s")
    say(sess, "ok, fine by me", before=text)
    assert list(kinds(sess, "decision")) == ["Option 2: Charge a flat 5 euros"]


LOOM = """The loom controller keeps timing out.

### Option 1: Flash the stock firmware
Quick, loses the custom ramps.

### Option 2: Use MicroPython Scheduler (Experimental)
Keeps the ramps, needs a reflash.

**Which would you like:**
1. **Flash the stock firmware now**
2. **Wait for the vendor patch**
"""


def test_a_shortened_choice_takes_the_option_it_abbreviates() -> None:
    assert options.expanded_option("mpy sched exp", LOOM) is None  # not its initials
    assert options.expanded_option("MicroPython sched", LOOM) == (
        "Use MicroPython Scheduler (Experimental)"
    )
    sess = HotSession.in_memory("s")
    say(sess, "use mp sched", before=LOOM)
    (label,) = kinds(sess, "decision")
    assert label == "Use MicroPython Scheduler"
    assert "use mp sched" in kinds(sess, "decision")[label].summary


def test_a_reply_that_negates_an_option_does_not_pick_it() -> None:
    opts = intent.offered_options(LOOM)
    assert options.echoed("flash the stock firmware", opts, LOOM) == "1"
    assert options.echoed("never flash the stock firmware", opts, LOOM) is None
    assert options.echoed("no, flash the stock firmware", opts, LOOM) == "1"


def test_asked_to_choose_a_hedged_answer_still_chooses() -> None:
    ask = "We could cache the tiles in IndexedDB or keep them in memory. Which would you prefer?"
    assert options.asks_to_choose(ask)
    assert not options.asks_to_choose("I cached the tiles. The map loads in 2 seconds now.")
    reply = "I guess we should keep them in memory for now (or maybe IndexedDB later)"
    assert options.unhedged(reply) == "we should keep them in memory"
    sess = HotSession.in_memory("s")
    say(sess, reply, before=ask)
    assert list(kinds(sess, "decision")) == ["Keep them in memory"]
    unasked = HotSession.in_memory("s")
    say(unasked, reply, before="I cached the tiles. The map loads in 2 seconds now.")
    assert not kinds(unasked, "decision")  # unasked, a hedge stays a hedge


FONTS = """A few fonts fit a dyslexia-friendly reader:

| Font | Why |
|------|-----|
| **[Lexend](https://example.org/lexend)** | wide spacing |
| **[Atkinson Hyperlegible](https://example.org/ah)** | distinct letter shapes |
| **OpenDyslexic** | weighted bottoms |

Shall I wire one of these into the settings page?

Sources:
- [Lexend](https://example.org/lexend)
"""


def test_naming_one_of_the_listed_things_picks_it() -> None:
    assert options.named_item("wire in atkinson hyperlegible", FONTS) == (
        "Atkinson Hyperlegible",
        ["Lexend", "Atkinson Hyperlegible", "OpenDyslexic"],
    )
    sess = HotSession.in_memory("s")
    say(sess, "add lexend please", before=FONTS)
    assert "Use Lexend" in kinds(sess, "decision")


def test_naming_two_or_none_or_unasked_picks_nothing() -> None:
    assert options.named_item("lexend or opendyslexic, not sure", FONTS) is None
    assert options.named_item("make the margins wider", FONTS) is None
    told = FONTS.replace("Shall I wire one of these into the settings page?", "Done.")
    assert options.named_item("add lexend please", told) is None


def test_a_line_pasted_back_to_discuss_is_not_a_pick() -> None:
    plan = (
        "To support offline mode we would:\n1. Cache the tiles in IndexedDB\n"
        "2. Queue edits while offline\n3. Replay the queue when the socket reconnects\n"
    )
    reply = "3. Replay the queue when the socket reconnects\n\nwhat happens to edits that conflict?"
    assert options.quoted_back(reply, plan)
    assert not options.quoted_back("3. replay it please", plan)  # short: a pick
    sess = HotSession.in_memory("s")
    say(sess, reply, before=plan)
    assert not kinds(sess, "decision")
    picked = HotSession.in_memory("s")
    say(picked, "3", before=plan + "\nWhich one first?")
    assert list(kinds(picked, "decision")) == [
        "Option 3: Replay the queue when the socket reconnects"
    ]


def test_sides_in_the_statement_a_preference_question_closes() -> None:
    before = "I could keep the upload queue in SQS or in a Postgres table. Which do you prefer?"
    sides, question = options.alternatives(before)
    assert sides == ["I could keep the upload queue in SQS", "in a Postgres table"]
    assert "upload queue" in question
    sess = HotSession.in_memory("s")
    say(sess, "postgres, we already run it", before=before)
    (node,) = kinds(sess, "decision").values()
    assert "Postgres" in node.label and "upload queue" in node.summary
    # a statement without alternatives before the question gives no sides
    assert options.alternatives("The queue is ready. Which do you prefer?") == ([], "")


# A long message whose lists restart: headings of options it tried, a status list, steps in a
# code block, lettered ways out, then the question being asked (the shape of
# M-Thisness__M-Claude's terminal repair and of saross__trap-extraction's long reports).
RESTARTING = """## Option 3 Results: cache warm-up

### Option 2: Pin the resolver version
Tried it; no change.

### Option 3: Warm the cache at boot
Helped a little.

### What we fixed:
1. **Lockfile regenerated** for the workspace
2. **Registry mirror added** for the CI runners
3. **Node upgraded** to the current LTS
4. **Most installs succeed** on the first try

```bash
# 1. stop the runners
# 2. clear the cache
# 3. start the runners
```

**Option A: Clear the cache by hand**
**Option B: Live with it**

**Should we:**
1. **Move on to the release notes** (recommended) - installs are good enough
2. **Rebuild the runner images** - for a clean slate
3. **Try other options**

What would you like to do?"""


def test_the_list_that_ends_last_is_the_one_asked_about() -> None:
    assert intent.offered_options(RESTARTING) == {
        "1": "Move on to the release notes (recommended)",
        "2": "Rebuild the runner images",
        "3": "Try other options",
    }
    sess = HotSession.in_memory("s")
    say(sess, "2", before=RESTARTING)
    assert list(kinds(sess, "decision")) == ["Option 2: Rebuild the runner images"]


# Options put as questions under a line that hands over to them ("Would you like me to:").
OFFERED_QUESTIONS = """The schema change is written and the tests pass.

**Ready to ship! Would you like me to:**

1. **Run the migration** on staging now?
2. **Just generate the SQL** (you run it by hand)?
3. **Review the diff** before anything runs?"""


def test_questions_under_an_offer_are_options() -> None:
    assert intent.offered_options(OFFERED_QUESTIONS)["2"] == "Just generate the SQL"
    sess = HotSession.in_memory("s")
    say(sess, "1", before=OFFERED_QUESTIONS)
    assert list(kinds(sess, "decision")) == ["Option 1: Run the migration on staging"]
    # "Would you prefer: 1. …, or 2. …?" and a reply that names its number
    prefer = (
        "The manifest would be large. Would you prefer:\n\n"
        "1. Apply the March fixes now and note them in the existing manifest, or\n"
        "2. Build the full manifest first, covering every runsheet, then apply?\n"
    )
    sess = HotSession.in_memory("s")
    say(sess, "Option 2 please - build the full manifest, then apply", before=prefer)
    (label,) = kinds(sess, "decision")
    assert label.startswith("Option 2: Build the full manifest first")


def test_numbered_questions_without_an_offer_offer_nothing() -> None:
    asked = (
        "A few questions:\n1. Is Leonid a real participant or an OCR error?\n"
        "2. Is 'Sharon.' a typo for Shawn?\n3. Should I add these to the mapping?"
    )
    assert intent.offered_options(asked) == {}


def test_a_numbered_list_of_ones_own_echoes_no_option() -> None:
    fixes = (
        "The three fixes before submission:\n\n"
        "1. **Real billing service** with invoices and enforced spending caps\n"
        "2. **Usage dashboard** (even simulated)\n"
        "3. **Real customer data** in euros\n\n"
        "Want me to help you scaffold the billing service?"
    )
    spec = (
        "Build the complete billing service with:\n\n"
        "1. Invoice records storing: customer, amount, spending cap\n"
        "2. Instructions: create invoice, enforce spending cap, refund\n"
    )
    assert options.echoed(spec, intent.offered_options(fixes), fixes) == "1"
    sess = HotSession.in_memory("s")
    say(sess, spec, before=fixes)
    assert not kinds(sess, "decision")


def test_two_options_named_after_a_comma_are_both_picked() -> None:
    # "start with option 4, 5" (M-Thisness__M-Claude; "start with Option A",
    # saross__trap-extraction); the options here are invented.
    before = (
        "Options:\n1. Quick fix\n2. Switch the shell\n3. Rebase the DLLs\n4. Update the toolchain\n"
        "5. Exclude the build folder from the virus scanner\n\nWhich would you like?"
    )
    for reply in ("start with option 4, 5", "4, 5", "let's do 4 and 5"):
        sess = HotSession.in_memory("s")
        say(sess, reply, before)
        assert list(kinds(sess, "decision")) == [
            "Option 4: Update the toolchain",
            "Option 5: Exclude the build folder from the virus scanner",
        ], reply
    sess = HotSession.in_memory("s")
    say(sess, "begin with 3", before)
    assert list(kinds(sess, "decision")) == ["Option 3: Rebase the DLLs"]


def test_a_letter_after_a_comma_is_a_word_not_a_second_pick() -> None:
    before = "A) keep the cache\nB) drop the cache\n\nWhich one?"
    sess = HotSession.in_memory("s")
    say(sess, "B, a bit later though", before)
    assert list(kinds(sess, "decision")) == ["Option B: drop the cache"]
