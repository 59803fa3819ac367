"""Replies that contradict the agent's claims, with invented exchanges: a failure reported
after a success claim, figures other than the agent's, a numbered reply answering the agent's
numbered points; and the agent's text a probe already took still answers the next prompt."""

from __future__ import annotations

from pathlib import Path

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession
from rolling_graph.probe.base import ProbeRequest, TurnDigest
from rolling_graph.probe.buffer import buffer_assistant, buffer_prompt, consume_buffer, load_buffer
from rolling_graph.probe.offline import build_patch, claims, corrections
from rolling_graph.probe.runner import build_request
from tests.probe.helpers import say, superseded

REPORT = (
    "I rewired the thermostat relay and reflashed the firmware.\n"
    "Use the dashboard to watch the temperature.\n"
    "The boiler now stays on schedule.\n"
    "Everything is fixed and the heating is working again!"
)


def test_a_failure_after_a_success_claim_supersedes_that_claim() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "hmm, the radiator still doesn't heat at night", before=REPORT)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: Everything is fixed") for v in pairs.values()), pairs
    claim = next(n for n in sess.graph.nodes.values() if n.label.startswith("Agent: Every"))
    assert "stays on schedule" in (claim.summary or "")  # the other claims, in its summary
    assert "dashboard" not in (claim.summary or "")  # an instruction claims nothing


def test_failure_shapes_and_what_is_not_one() -> None:
    for reply in (
        "it still crashes when I open the settings page",
        "the printer doesn't work at all",
        "nope, it hangs on the splash screen",
        "sure it's working, fix it",
        "this is broken on my phone",
        "I still see the old banner on the landing page",
        "the scanner doesn't seem to respond",
        "now I get a permission error on the spool folder",
        "still broken",
        "nope, same error",
    ):
        assert claims.reports_failure(reply, REPORT), reply
    for reply in (
        "great, now add a holiday mode",
        "I want to show the humidity too",  # "want" is no negation
        "the agent list is still there, good",
        "the timer still works after the reboot",
        "if we drop the cache, is there still a race?",  # asks
        "Status: ● NOT RUNNING (optional)",  # pasted output, not said
        # what would have happened is no report of what did
        "the files are scans, so a text search would not have worked",
        "that couldn't have passed with the old fixtures",
    ):
        assert not claims.reports_failure(reply, REPORT), reply
    # no success claim before it: a plain description of a problem
    assert not claims.reports_failure("it crashes on start", "I looked at the crash log.")


def test_a_question_with_other_figures_supersedes_the_agents_count() -> None:
    before = (
        "The invoice total is correct:\n\n| field | value |\n|---|---|\n| `lines` | 312 |\n\n"
        "The discount is 15% as configured."
    )
    sess = HotSession.in_memory("s")
    say(sess, "why does the accounting export say 298 lines", before=before)
    pairs = superseded(sess)
    assert any("312" in v for v in pairs.values()), pairs
    assert claims.quantity_claim("why does it say 298 lines", before) == "`lines` | 312"


def test_figures_that_are_no_contradiction() -> None:
    before = "I added 3 retries to the uploader. The tests pass."
    assert claims.other_quantity("the server answered 503 this time", before)
    assert not claims.other_quantity("add 5 more retries to the downloader", before)  # work
    assert not claims.other_quantity("how many retries do we need?", before)  # asks
    assert not claims.other_quantity("keep the 3 retries", before)  # the agent's own figure
    assert not claims.other_quantity("Memory: 386 MB", before)  # pasted output
    assert not claims.other_quantity("the server answered 503", "")  # nothing claimed
    # a number after a noun that numbers its instances names a thing: it counts nothing
    assert not claims.other_quantity("Runs 512 to 518 all green", before)
    assert not claims.other_quantity("CI run 4410 on the branch failed again", before)
    assert not claims.other_quantity("line 343 still has it", before)
    assert claims.other_quantity("it failed 4 times on the branch", before)  # a count


def test_a_numbered_reply_answers_the_agents_numbered_points() -> None:
    before = (
        "To check the kiosk:\n\n1. **Boot it** — the welcome screen should appear within 5 s.\n"
        "2. **Scan a ticket** — the gate opens and logs the entry.\n"
        "3. **Power off** — the queue is flushed to disk."
    )
    prompt = "1. the welcome screen only shows after a tap\n2. gate opens fine"
    assert claims.answered_point("the welcome screen only shows after a tap", prompt, before) == (
        "Boot it — the welcome screen should appear within 5 s."
    )
    assert claims.answered_point("gate opens fine", "gate opens fine", before) is None


def test_the_agents_text_a_probe_took_still_answers_the_next_prompt(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    sess = HotSession.in_memory("s")
    buffer_prompt(store, "s", 1, "tidy the invoice templates")
    buffer_assistant(store, "s", 1, "I'll delete every template older than a year.")
    consume_buffer(store, "s", load_buffer(store, "s")["seq"])  # probed mid-turn
    buffer_prompt(store, "s", 2, "no, archive the old templates")
    built = build_request(sess, store)
    assert built is not None
    req, _ = built
    assert req.before.startswith("I'll delete every template")
    ops = build_patch(req)["ops"]
    edges = [op["path"] for op in ops if "|supersedes|" in op["path"]]
    assert any("agent-i-ll-delete-every-template" in e for e in edges), edges


def test_a_correction_about_nothing_named_denies_the_closing_success_claim() -> None:
    before = (
        "Both exports ran. The CSV and the PDF exports are working now.\n"
        "You can find the two files under reports/2024."
    )
    sess = HotSession.in_memory("s")
    say(sess, "no, nobody has uploaded any receipts yet", before=before)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: The CSV and the PDF exports") for v in pairs.values()), pairs
    # the agent ends by announcing its next step: that is what the correction answers
    plan = before + "\nLet me also email the PDF to the finance team:"
    assert corrections._contradicted_claim("or wait for the audit first", plan) == (
        "Let me also email the PDF to the finance team:"
    )


def test_the_agents_headings_are_not_its_statements() -> None:
    before = (
        "Why The Export Failed\n\n"
        "The exporter read the old schema.\n\n"
        "What I Should Have Done\n\n"
        "I should have checked the schema version first.\n"
        "I checked NVMe Controller Health\n"
        "✅ Export Fixed And Verified"
    )
    assert claims.statements(before) == [
        "The exporter read the old schema.",
        "I should have checked the schema version first.",
        "I checked NVMe Controller Health",
        "✅ Export Fixed And Verified",  # a status line, not a heading: a claim
    ]


def test_a_claim_after_a_courtesy_opener_is_labelled_by_the_claim() -> None:
    before = (
        "I can't reach the mirror. No problem - let's use the vendored copy of the parser instead."
    )
    sess = HotSession.in_memory("s")
    say(sess, "wait, the vendored copy of the parser is two years old", before=before)
    assert "Agent: let's use the vendored copy" in superseded(sess).values()


def test_an_assumption_denied_about_a_thing_rejects_that_thing() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Metal won't always be there, fall back to OpenGL on old Macs", before="Built.")
    assert "Metal" in superseded(sess).values(), superseded(sess)


def test_quoted_wording_replaced_by_the_wording_it_should_have() -> None:
    prompt = (
        'The toast on the checkout page is confusing. It says "Retry later" but the payment '
        'went through. It should be changed to "Payment received".'
    )
    assert claims.old_wording('It should be changed to "Payment received".', prompt) == (
        "Retry later"
    )
    assert claims.old_wording("The toast on the checkout page is confusing.", prompt) is None
    sess = HotSession.in_memory("s")
    say(sess, prompt, before="I added the toast to the checkout flow. All tests pass.")
    pairs = superseded(sess)
    assert '"Retry later"' in pairs.values(), pairs


def test_a_refusal_answers_what_the_agent_said_it_would_do() -> None:
    before = (
        "The label printer driver fails to install on the kiosk image. It seems the "
        "driver package is getting stuck on a missing font.\nLet me drop the printer step "
        "from the image build for now:"
    )
    assert corrections._contradicted_claim("no, I want every device usable", before) == (
        "Let me drop the printer step from the image build for now:"
    )
    # without the refusal, the statement the reply is about wins
    assert corrections._contradicted_claim("the driver package needs the font", before) == (
        "It seems the driver package is getting stuck on a missing font."
    )


def test_a_flat_statement_of_the_opposite_polarity_contradicts_the_agent() -> None:
    before = (
        "Two caveats remain.\nA rebase in the web editor drops the signed-off lines.\n"
        "The mobile app keeps them."
    )
    assert claims.contradicted_statement("the web editor rebase keeps signed-off lines", before)
    sess = HotSession.in_memory("s")
    say(sess, "the web editor rebase keeps signed-off lines", before=before)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: A rebase in the web editor") for v in pairs.values()), pairs
    # the same polarity agrees; a question asks; a long description is no flat contradiction
    assert not claims.contradicted_statement("the mobile app keeps signed-off lines", before)
    assert not claims.contradicted_statement("does the web editor rebase keep lines?", before)
    long = "the web editor rebase keeps signed-off lines when you tick the box under settings"
    assert not claims.contradicted_statement(long, before)


def test_a_condition_in_the_agent_statement_asserts_nothing() -> None:
    before = (
        "The staging bucket isn't currently reachable.\n"
        "Next step: we can upload the archive once the staging bucket is reachable."
    )
    assert claims.asserted("we can upload the archive once the staging bucket is reachable") == (
        "we can upload the archive  "
    )
    # the supposed state does not agree with the person: the flat denial contradicts
    found = claims.contradicted_statement("staging bucket is reachable, please retry", before)
    assert found == "The staging bucket isn't currently reachable."
    # the same state asserted outright still agrees: no conflict
    agreeing = before + "\nThe staging bucket is reachable from the runner."
    assert not claims.contradicted_statement("staging bucket is reachable, please retry", agreeing)


def test_a_reversal_undoes_the_work_the_agent_reported() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Let's use a sidebar for the filters.")
    before = (
        "Done. The sidebar now holds the filters. I also added sticky headers to the price "
        "table while I was there.\nShould I commit this?"
    )
    say(sess, "hmm, let's roll back, the old layout was clearer", before=before)
    pairs = superseded(sess)
    assert any(v.startswith("Agent: I also added sticky headers") for v in pairs.values()), pairs
    assert claims.work_done("The build is green. Should I commit?") is None


def test_two_names_said_to_be_separate_supersede_the_one_name_the_agent_used() -> None:
    before = (
        "I added the alert rule for every shard:\n"
        "```yaml\ntargets: [ledger, archive, search]\n```\n"
        "Alerts now fire when a shard lags."
    )
    sess = HotSession.in_memory("s")
    say(sess, "careful: ledger-primary and ledger-replica are distinct shards", before=before)
    pairs = superseded(sess)
    assert pairs.get("Careful: ledger-primary and ledger-replica are distinct shards") == (
        "ledger"
    ), pairs
    # not told apart, or the agent already named both, or never named their common part
    assert claims.split_name("ledger-primary and ledger-replica both lag", before) is None
    named = before + "\nledger-primary and ledger-replica share it."
    assert claims.split_name("ledger-primary and ledger-replica are distinct", named) is None
    assert claims.split_name("vault-a and vault-b are different shards", before) is None
    assert claims.split_name("ledger-primary and ledger-replica are distinct", "") is None


def test_you_can_answers_what_the_agent_said_it_cannot_do_a_message_earlier(
    tmp_path: Path,
) -> None:
    store = HotStore(tmp_path)
    sess = HotSession.in_memory("s")
    buffer_prompt(store, "s", 1, "deploy the new thumbnails")
    buffer_assistant(store, "s", 1, "I can't reboot the render box from here. Please do it.")
    buffer_prompt(store, "s", 2, "what are these warnings?")
    buffer_assistant(store, "s", 2, "Those warnings come from the colour profile loader.")
    consume_buffer(store, "s", load_buffer(store, "s")["seq"])
    buffer_prompt(store, "s", 3, "I'm sure you can reboot it over ssh yourself")
    built = build_request(sess, store)
    assert built is not None
    req, _ = built
    assert req.earlier.startswith("I can't reboot") and req.before.startswith("Those warnings")
    edges = [op["path"] for op in build_patch(req)["ops"] if "|supersedes|" in op["path"]]
    assert any("agent-i-can-t-reboot-the-render-box" in e for e in edges), edges


def test_what_denies_an_inability_and_what_does_not() -> None:
    msgs = ["We cannot resize the volume while it is mounted.", "The backup finished."]
    said = "pretty sure you can resize the volume live on this filesystem"
    assert claims.denied_inability(said, msgs) == msgs[0]
    for other in (
        "can you resize the volume live?",  # a question asks
        "you can't resize it, right, skip it",  # agrees
        "you can also rename the bucket",  # about nothing the agent could not do
        "resize the volume live",  # no 'you can'
    ):
        assert claims.denied_inability(other, msgs) is None, other


def _reply(user: str, before: str, earlier: str) -> dict[str, str]:
    """One prompt through the offline probe, with the agent's last two messages."""
    sess = HotSession.in_memory("s")
    turn = sess.advance_turn()
    req = ProbeRequest("s", turn, [TurnDigest(turn, user)], before=before, earlier=earlier)
    assert sess.apply(build_patch(req), PatchSource("offline", "offline.v1")).applied
    return superseded(sess)


def test_a_correction_about_the_message_before_the_last_supersedes_a_statement_of_it() -> None:
    earlier = (
        "I wrapped the photo upload in a retry loop that backs off exponentially.\n"
        "The gallery page is unchanged."
    )
    before = "Sure. The thumbnails now render in a three-column grid on the gallery page."
    reply = "no, the photo upload retry loop never backs off"
    pairs = _reply(reply, before, earlier)
    assert any(v.startswith("Agent: I wrapped the photo upload") for v in pairs.values()), pairs
    # sharing only a little more with the older message: the last message stays the answer
    pairs = _reply("no, the gallery upload is still slow", before, earlier)
    assert not any(v.startswith("Agent: I wrapped") for v in pairs.values()), pairs


def test_a_statement_introducing_a_command_keeps_the_command() -> None:
    # "To X:" then a code block: what the agent proposed is in the block
    before = (
        "The upload is staged.\n\nTo push it past the checks:\n```bash\n# from the repo\n"
        "cd ~/site\ngit push --force origin main\n```\n\nThat's all."
    )
    assert claims.with_items("To push it past the checks:", before) == (
        "To push it past the checks: · cd ~/site · git push --force origin main"
    )
    sess = HotSession.in_memory("s")
    say(sess, "don't push it past the checks, never force the push", before=before)
    nodes = {n.label: n for n in sess.graph.nodes.values()}
    old = [nodes[t] for t in superseded(sess).values() if t in nodes]
    assert any("--force" in (n.summary or "") for n in old), superseded(sess)
