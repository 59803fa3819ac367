"""Correction shapes read from the structure of the agent's messages and of the person's
reply, with invented exchanges: a statement that introduces a list stands for its items, a
thing no longer wanted followed by what is wanted instead."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import claims
from tests.probe.helpers import say, superseded

LINKED = (
    "The exporter now writes the invoice first, then the ledger row.\n\n"
    "Each ledger row points back both ways:\n"
    "- Row → invoice: `invoice_ref` column\n"
    "- Invoice → row: `ledger_row_id` field\n\n"
    "Handy for audits."
)


def test_a_statement_introducing_a_list_carries_its_items() -> None:
    got = claims.with_items("Each ledger row points back both ways:", LINKED)
    assert "ledger_row_id field" in got and "invoice_ref column" in got
    assert "Handy" not in got  # the list ends at the blank line
    # a statement that introduces nothing is itself
    assert claims.with_items("Handy for audits.", LINKED) == "Handy for audits."


def test_refusing_what_a_list_added_supersedes_the_statement_with_its_items() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "no, take that out, an auditor could treat it as permanent", before=LINKED)
    pairs = superseded(sess)
    target = next(
        n for n in sess.graph.nodes.values() if n.label.startswith("Agent: Each ledger row")
    )
    assert target.label in pairs.values(), pairs
    assert "ledger_row_id" in (target.summary or "")


def test_a_thing_no_longer_wanted_and_what_is_wanted_instead() -> None:
    before = "Done. Each row now reads:\n★ Tuesday: cloudy, 12°C\n☆ Friday: sunny, 18°C"
    sess = HotSession.in_memory("s")
    say(sess, "I don't want ★ or ☆ anymore. I want the weekday in bold like the header", before)
    pairs = superseded(sess)
    old = [t for s, t in pairs.items() if s.startswith("I don't want")]
    assert old and "★" in old[0], pairs
    corr = next(n for n in sess.graph.nodes.values() if n.label.startswith("I don't want"))
    assert "weekday in bold" in (corr.summary or "")  # what is wanted instead


def test_what_follows_a_rejection_is_not_always_what_is_wanted_instead() -> None:
    from rolling_graph.probe.offline.corrections import wanted_instead

    prompt = "I don't want the pager alerts anymore. Why did the disk fill up?"
    assert wanted_instead("I don't want the pager alerts anymore.", prompt) == ""
    prompt = "I don't want the pager alerts anymore. I want a daily email digest."
    got = wanted_instead("I don't want the pager alerts anymore.", prompt)
    assert got == "I want a daily email digest."
    prompt = "I don't want the pager alerts anymore. I don't want emails either."
    assert wanted_instead("I don't want the pager alerts anymore.", prompt) == ""


PROPOSAL = (
    "Yes! We can spot renamed photos between two syncs:\n\n"
    "**At each sync, compare:**\n"
    "- the previous `album_index`\n"
    "- the folder as it is now\n\n"
    "Photos only in `renamed_paths` → moved, not new.\n\n"
    "Want me to build this?"
)


def test_denied_ability_answers_what_the_agent_said_can_be_done() -> None:
    got = claims.denied_ability("but you couldn't spot a photo edited in place", [PROPOSAL])
    assert got == "We can spot renamed photos between two syncs:"
    assert claims.names_after(got, PROPOSAL) == ["album_index", "renamed_paths"]
    # another verb, or a question, or nothing said to be possible: no match
    assert claims.denied_ability("but you couldn't upload them twice", [PROPOSAL]) is None
    assert claims.denied_ability("couldn't we spot them by hash?", [PROPOSAL]) is None
    assert claims.denied_ability("you can't spot it", ["The folder is synced."]) is None


def test_but_you_couldnt_supersedes_the_proposal_with_its_names() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "but you couldn't spot a photo edited in place", before=PROPOSAL)
    pairs = superseded(sess)
    old = next(n for n in sess.graph.nodes.values() if n.label.startswith("Agent: We can spot"))
    assert old.label in pairs.values(), pairs
    assert "renamed_paths" in (old.summary or "")


def test_a_correction_label_is_the_persons_words_not_the_output_pasted_after_them() -> None:
    from rolling_graph.probe.offline.corrections import said_part

    assert said_part("lint these ● Linter(check api.ts) │ done") == "lint these"
    assert said_part("just use the staging bucket") == "just use the staging bucket"
    assert said_part("no ● Linter(check api.ts)") == "no ● Linter(check api.ts)"  # no words
    sess = HotSession.in_memory("s")
    say(
        sess,
        "No, lint these ● Linter(check api.ts) ● Linter(check db.ts)",
        before="I'll run the linter on every file in the monorepo.",
    )
    labels = {n.label for n in sess.graph.nodes.values() if n.kind == "correction"}
    assert "Lint these" in labels, labels


def test_a_hedge_after_not_rejects_nothing() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "ok, not sure if the logs help, but I'm glad we found the cause", before="Fixed.")
    assert superseded(sess) == {}
    sess = HotSession.in_memory("s")
    say(sess, "use pnpm, not npm", before="I switched the scripts to npm.")
    assert any(old.lower() == "npm" for old in superseded(sess).values())
