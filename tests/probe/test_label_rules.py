"""Labels a reader trusts: the label rules (labels.label_problems) on invented labels, the
repairs (labels.tidy), and every decision label the offline probe makes on every shared
transcript (each read as a dialogue: the person's prompts with the agent's text before them)."""

from __future__ import annotations

import pytest

from rolling_graph.eval.dialogue import exchanges, replay_dialogue
from rolling_graph.probe.offline.labels import MAX_LABEL, label_problems, statement_label, tidy
from rolling_graph.transcripts import UnsupportedFormatError
from tests.shared_data import manifest_rows, require_shared_data


@pytest.mark.parametrize(
    "label",
    [
        "Use Alembic for migrations",
        "Keep timestamps in UTC",
        "Option B: Nested under strategy options",
        "Region: eu-west-1",
        "Don't store tokens in local storage",  # a negative imperative tells, it does not ask
        "Approved: Move the cron job into the worker",
        "Host it on render.com",
        "Dark mode: no",  # a yes-or-no answer is a value
        "Retry the upload or not",  # a "not" that ends a clause of its own leaves nothing open
    ],
)
def test_labels_a_reader_trusts_pass(label: str) -> None:
    assert label_problems(label) == []


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        ("Should we use Alembic for migrations?", "a question"),
        ("Is the cache shared between workers", "a question"),
        ("One thing though, the cache", "opens with a lead-in"),
        ("Can you fix the importer", "opens with a lead-in"),
        ("Use Traceback (most recent call last)", "pasted output"),
        ("Use config = {retries: 3}", "pasted output"),
        ("Approved: I'd rewrite the parser", "the agent's voice"),
        ("Use the same template for the", "cut mid-phrase"),
        ('Want "Matin" icon like the "Journée', "cut mid-phrase"),
        ("Use it", "names nothing"),
        ("Do that tomorrow", "names nothing"),
        ("Don't you think the cache is warm", "a question"),
        ("It should be after the redirect", "not an imperative"),
        ("Use ultrathink i want a fully working system", "a clause, not a choice"),
        ("Use we go with the queue approach", "a clause, not a choice"),
        ("We: sorry", "names nothing"),  # an answer whose key is a pronoun
        ('the fix was needed: "yes" to fixing it', "a clause, not a choice"),  # a sentence key
        ("Database: actually", "names nothing"),  # a value that only opens a correction
        ("Use to keep the settings in pyproject.toml", "a clause, not a choice"),
        ("Use " + "very " * 14 + "long names", f"longer than {MAX_LABEL} characters"),
    ],
)
def test_each_rule_finds_its_problem(label: str, problem: str) -> None:
    assert problem in label_problems(label)


@pytest.mark.parametrize(
    ("raw", "tidied"),
    [
        ("use **Redis** for the cache.", "Use Redis for the cache"),
        (
            "hmm, also keep agent lines at each prompt start",
            "Keep agent lines at each prompt start",
        ),
        ("Approved: I'd say just proceed with the inline", "Approved: Proceed with the inline"),
        ("just please confirm it's on the to-do list", "Confirm it's on the to-do list"),
        ("The settings belong in pyproject.toml", "Keep the settings in pyproject.toml"),
        ("Option B: summarize: { enabled: true", "Option B: summarize"),
        ("Use ultrathink i want a fully working system", "Use ultrathink"),
        (
            'Want "Matin" icon like the "Journée" icon that',
            'Want "Matin" icon like the "Journée" icon',
        ),
        (
            "Option 2: ✅ agents spawn with fresh context",
            "Option 2: agents spawn with fresh context",
        ),
        ("I'd also like to find out why the cache misses", "Find out why the cache misses"),
        ("I want you to restart the worker", "Restart the worker"),
        # a heading that names the act goes; one that says what the value is of stays
        ("Decision: use the managed queue", "Use the managed queue"),
        ("Final decision: go with weekly releases", "Go with weekly releases"),
        ("Region: eu-west-1", "Region: eu-west-1"),
        # what has to be done, said as a need: the work
        ("I'd say we need to split the parser module", "Split the parser module"),
        ("Need to pin the base image", "Pin the base image"),
        ("we have to keep the old endpoint", "Keep the old endpoint"),
        # where a thing is to be: a pronoun moved to the object takes the object's case, and
        # only a whole determiner opens a thing ("theme" is no "the")
        ("they should go in the shared folder", "Keep them in the shared folder"),
        ("theme colours belong in tokens.css", "Theme colours belong in tokens.css"),
    ],
)
def test_tidy_repairs_what_is_mechanical(raw: str, tidied: str) -> None:
    assert tidy(raw) == tidied
    assert label_problems(tidy(raw)) == []


@pytest.mark.parametrize(
    ("raw", "tidied"),
    [
        ("I'm pretty sure the build still fails on ARM", "The build still fails on ARM"),
        ("Im confident that you can restart the worker", "You can restart the worker"),
        ("i am certain that it runs on port 8080", "It runs on port 8080"),
    ],
)
def test_a_claims_label_drops_the_persons_certainty(raw: str, tidied: str) -> None:
    # a correction's label states a fact (not an imperative); "that" before a subject goes too
    assert tidy(raw) == tidied


def test_that_before_a_noun_stays_after_a_stance() -> None:
    # "that approach" is a noun phrase, not a clause joined by "that"
    assert tidy("I'm sure that approach works") == "That approach works"


def test_a_doubt_stays_in_the_label() -> None:
    assert tidy("I suspect the proxy broke the connection") == (
        "I suspect the proxy broke the connection"
    )


def test_a_question_is_not_repaired_into_a_decision() -> None:
    assert label_problems(tidy("Should we use Alembic?"))


@pytest.mark.shared_data
def test_every_decision_label_of_every_shared_transcript_passes_the_label_rules() -> None:
    # and no task label is cut inside a parenthesis
    data_dir = require_shared_data()
    bad: list[str] = []
    unclosed: list[str] = []
    decisions = read = made = 0
    for row in manifest_rows(data_dir):
        try:
            pairs = exchanges(row.path)
        except UnsupportedFormatError:
            continue  # not a transcript format the reader knows (notes, aider histories)
        read += 1
        res = replay_dialogue(pairs)
        for turn, label in res.decisions:
            decisions += 1
            problems = label_problems(label)
            if problems:
                bad.append(f"{row.local_file}#{turn}: {label!r} {problems}")
        # a task's label is cut to its first words, never inside a parenthesis it opens
        tasks = [n.label for n in res.graph.nodes.values() if n.kind == "task"]
        unclosed += [f"{row.local_file}: {t!r}" for t in tasks if t.count("(") > t.count(")")]
        made += len(tasks)
    assert read >= 20
    assert decisions >= 50  # the probe does make decisions to check
    assert made >= 300
    assert bad == []
    assert unclosed == []


@pytest.mark.parametrize(
    ("prompt", "label"),
    [
        (
            "Unrelated, but remind me to book my daughter's dentist appointment for Tuesday.",
            "Book my daughter's dentist appointment for Tuesday",
        ),
        (
            "btw I need to pick up my son from football practice at the community centre on Friday",
            "Pick up my son from football practice at the community centre on Friday",
        ),
    ],
)
def test_an_aside_keeps_its_whole_clause(prompt: str, label: str) -> None:
    graph = replay_dialogue([("Done.", prompt)]).graph
    personal = [n.label for n in graph.nodes.values() if n.domain == "personal"]
    assert label in personal, personal


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("No, that's not it — the queue was drained in May.", "The queue was drained in May"),
        ("not the v1 table — call it accounts, the export reads that", "Call it accounts"),
        ("It should be before — only paid invoices count.", "Only paid invoices count"),
        ("the worker owns the lock, not the API — move the retry there", "Move the retry there"),
        # words that only open a correction are no label: the clause after them is
        ("oh, my apologies, the import runs nightly", "The import runs nightly"),
        ("hold on, the cache lives in Redis", "Keep the cache in Redis"),
        # a comma inside parentheses ends no clause
        (
            "not the cron job — run the import (parse, then load) by hand",
            "Run the import (parse, then load) by hand",
        ),
        # "what I meant was …" only announces the correction; a whole quotation is its words
        ("what I meant was use the staging db", "Use the staging db"),
        (
            "no, what I actually meant to ask was 'please rerun the nightly job'",
            "Rerun the nightly job",
        ),
        # the person's certainty is no label: the claim after it is
        (
            "I'm pretty sure the migration never ran on staging",
            "The migration never ran on staging",
        ),
    ],
)
def test_a_corrections_label_is_the_clause_that_says_what_instead(
    sentence: str, label: str
) -> None:
    assert statement_label(sentence) == label


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # a statement put to the agent to confirm is said, not asked: the mark and tag go
        ("we didn't write or change any tests?", "We didn't write or change any tests"),
        (
            "but then the history in the end wouldn't be linear right?",
            "The history in the end wouldn't be linear",
        ),
        ("it should be running all the time, right?", "It should be running all the time"),
        ("ok the cache is per worker, isn't it?", "The cache is per worker"),
        # a word that is a tag only after a comma ends a claim without one
        ("but the totals should be correct?", "The totals should be correct"),
        ("the totals should still match, no?", "The totals should still match"),
        # a sentence that opens as a question stays one: no clause of it states anything
        ("why did you move the config loading?", ""),
        ("is the cache per worker?", ""),
    ],
)
def test_a_statement_said_as_a_question_is_labelled_as_the_statement(
    sentence: str, label: str
) -> None:
    assert statement_label(sentence) == label


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # too long for a label: it ends before the last word within it that joins a clause
        (
            "the nightly import takes far too long to finish and should be split into smaller"
            " batches by the day",
            "The nightly import takes far too long to finish",
        ),
        (
            "the cache entries should be short enough to fit in memory since we only keep the"
            " last few hours",
            "The cache entries should be short enough to fit in memory",
        ),
        # short enough: whole
        ("the build still fails on ARM and on x86", "The build still fails on ARM and on x86"),
    ],
)
def test_a_long_statement_ends_where_a_clause_joins(sentence: str, label: str) -> None:
    assert statement_label(sentence) == label


def test_a_correction_of_the_agent_reads_as_one_in_the_block() -> None:
    from rolling_graph.render.lod import render

    res = replay_dialogue(
        [
            (
                "I fixed the cross-compile flags. The build passes on ARM now.",
                "no, the build still fails on ARM",
            )
        ]
    )
    text = render(res.graph, budget=800).text
    lines = text.splitlines()
    assert "Corrects the agent: the build still fails on ARM." in lines, text
    # Not a decision: it replaces no choice, only what the agent said.
    assert not any("still fails" in ln for ln in lines if ln.startswith("Decisions in force"))
    assert "supersedes Agent:" not in text


def test_a_denied_inability_is_labelled_by_the_claim_not_the_certainty() -> None:
    res = replay_dialogue(
        [
            (
                "I can't restart the session myself; you will need to quit and relaunch it.",
                "Im confident that you can figure out how to restart the session yourself",
            )
        ]
    )
    labels = [n.label for n in res.graph.nodes.values() if n.kind == "correction"]
    assert labels == ["You can figure out how to restart the session yourself"], labels


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # cut short, a task's label ends before the clause it would cut into
        (
            "add a banner that tells people to check the inbox for the confirmation email",
            "Add a banner",
        ),
        (
            "build a tiny demo app which reproduces the flaky upload bug on every run",
            "Build a tiny demo app",
        ),
        # short enough: the whole phrase, clause and all
        ("add a banner that tells people to check", "Add a banner that tells people to check"),
        # cut short, it does not end inside a parenthesis, on a list marker, or on a word
        # that leaves its object behind; nor inside a clause of its own
        (
            "configure the login and sudo to be passwordless(except for the disk) on each host",
            "Configure the login and sudo to be passwordless",
        ),
        (
            "check each row in the mapping sheet and (a) confirm that its file exists",
            "Check each row in the mapping sheet",
        ),
        (
            "write a release note for the importer so we can ship it on Friday",
            "Write a release note for the importer",
        ),
        (
            "show me the failing requests and I will look at the proxy logs myself",
            "Show me the failing requests",
        ),
        (
            "fix the flaky upload test in the client and the server too",
            "Fix the flaky upload test in the client",
        ),
        # a clause word too early to leave a phrase before it: the first words as before
        (
            "write that the export moved to the new scheduler last week in the notes",
            "Write that the export moved to the new scheduler",
        ),
    ],
)
def test_a_task_cut_short_ends_before_a_clause_it_cuts_into(sentence: str, label: str) -> None:
    from rolling_graph.probe.offline import speech

    assert speech.task_phrase(sentence) == label


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # the clause preferred is the choice, as "let's …" would say it
        ("I'd prefer we go with the queue approach", "Use the queue approach"),
        (
            "I'd prefer to keep the settings in pyproject.toml",
            "Keep the settings in pyproject.toml",
        ),
        ("I would prefer that we use cursor pagination", "Use cursor pagination"),
        # a thing preferred is chosen as before
        ("I'd prefer Postgres for the job queue", "Use Postgres for the job queue"),
        # a preferred clause that chooses nothing is no decision ("Use we don't touch …")
        ("I'd prefer we don't touch the config", None),
        ("I'd prefer to be asked before each push", None),
    ],
)
def test_a_preferred_clause_is_labelled_as_the_choice_it_makes(
    sentence: str, label: str | None
) -> None:
    from rolling_graph.probe.offline import speech

    found = speech.decision_phrase(sentence)
    assert (found[0] if found else None) == label


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # a choice cut short ends before the clause it would cut into, as a task's label does
        (
            "the report should be a single page that lists every failing check with its owner",
            "Make the report a single page",
        ),
        (
            "let's keep the cache layer which we added for the import jobs last week",
            "Keep the cache layer",
        ),
        # short enough: the whole phrase, its clause too
        (
            "the report should be a single page that lists failures",
            "Make the report a single page that lists failures",
        ),
    ],
)
def test_a_choice_cut_short_ends_before_a_clause_it_cuts_into(sentence: str, label: str) -> None:
    from rolling_graph.probe.offline import speech

    found = speech.decision_phrase(sentence) or speech.behaviour(sentence)
    assert found is not None and found[0] == label


@pytest.mark.parametrize(
    ("said", "label"),
    [
        # a phrase said before its clause and a comma says when or where: the clause is the label
        (
            "In that case, the export does not need the header row at all.",
            "The export does not need the header row at all",
        ),
        (
            "With the new schema, there are no duplicate rows in the import.",
            "There are no duplicate rows in the import",
        ),
        ("Since the cache is per worker, it cannot be shared.", "It cannot be shared"),
        # alone, the phrase is all there is: it stays
        ("In the end the build still fails on ARM.", "In the end the build still fails on ARM"),
    ],
)
def test_a_statement_is_the_clause_after_a_phrase_said_before_it(said: str, label: str) -> None:
    assert statement_label(said) == label


@pytest.mark.parametrize(
    ("raw", "tidied"),
    [
        # cut for length, a label ends before a phrase of means or purpose it cut short
        (
            "Option 2: Try reading the PDF summaries first to get more coverage of the seasons",
            "Option 2: Try reading the PDF summaries first",
        ),
        (
            "Make each worker run a warm-up query to understand the most common access paths",
            "Make each worker run a warm-up query",
        ),
        (
            "Keep the nightly export on the old runner for the finance team (they rely on it)",
            "Keep the nightly export on the old runner",
        ),
        # a phrase the text itself ends (a parenthesis follows) stays
        (
            "Keep the nightly export on the old runner to spare (the new one is not ready yet)",
            "Keep the nightly export on the old runner to spare",
        ),
    ],
)
def test_a_label_cut_for_length_ends_before_a_phrase_it_cut_short(raw: str, tidied: str) -> None:
    assert tidy(raw) == tidied


@pytest.mark.parametrize(
    ("said", "label"),
    [
        # "why not", "or not", "if not" end a clause: the "not" stays
        (
            "I mean this is the cleanup PR anyway so why the heck not.",
            "This is the cleanup PR anyway so why the heck not",
        ),
        ("We only need to know if it rains or not.", "We only need to know if it rains or not"),
    ],
)
def test_a_not_that_ends_a_clause_stays(said: str, label: str) -> None:
    assert statement_label(said) == label
