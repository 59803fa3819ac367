"""What the person means, as structure: decisions (and picks among the agent's options),
corrections that supersede, tasks, people with role and deadline, asides, generic noise left out."""

from __future__ import annotations

from rolling_graph.core.session import HotSession
from rolling_graph.probe.offline import dates, speech
from rolling_graph.probe.offline import people as persons
from rolling_graph.render.lod import render_session
from tests.probe.helpers import kinds, say


def test_correction_supersedes_the_decision_and_the_entity() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Let's use Redis for the cache.")
    assert "Use Redis for the cache" in kinds(sess, "decision")
    say(sess, "Actually, use memcached instead of Redis.")
    g = sess.graph
    assert "use-memcached|supersedes|use-redis-for-the-cache" in g.edges
    assert "memcached|supersedes|redis" in g.edges
    text = render_session(sess).text
    current = [ln for ln in text.splitlines() if "Redis" in ln and "supersedes" not in ln]
    assert not current, text


def test_entity_supersedes_without_an_earlier_decision() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "The worker talks to Redis.")
    say(sess, "No, not Redis, memcached.")
    assert "memcached|supersedes|redis" in sess.graph.edges


def test_topic_switch_and_questions_are_not_decisions() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Let's switch to docs for a bit.")
    say(sess, "Should we use Postgres here?")
    say(sess, "Maybe we could use SQLite?")
    assert kinds(sess, "decision") == {}


def test_person_with_team_and_deadline_no_date_nodes() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Please add CSV export to the reports page.")
    say(sess, "Priya Raman from the platform team needs this by Friday, March 14.")
    people = kinds(sess, "person")
    assert list(people) == ["Priya Raman"]
    priya = people["Priya Raman"]
    assert "Priya" in priya.aliases and priya.domain == "relationship"
    assert priya.attrs == {"team": "platform", "needs_by": "Fri 14 March"}
    task = kinds(sess, "task")["Add CSV export to the reports page"]
    assert task.attrs and task.attrs["due"] == "Fri 14 March"
    assert f"{priya.id}|depends-on|{task.id}" in sess.graph.edges  # cross-domain
    labels = {n.label.lower() for n in sess.graph.nodes.values()}
    assert not labels & {"friday", "march", "priya"}
    say(sess, "Priya said the export must include archived rows.")
    assert list(kinds(sess, "person")) == ["Priya Raman"]  # first name is an alias


def test_pick_among_the_agents_options() -> None:
    sess = HotSession.in_memory("s")
    before = (
        "Two ways to store sessions:\n\n1. **SQLite file** - zero setup\n"
        "2. **PostgreSQL** - shared by the team\n\nWhich do you prefer?"
    )
    say(sess, "go with option 2", before)
    assert [d for d in kinds(sess, "decision") if "PostgreSQL" in d], kinds(sess, "decision")


def test_approval_takes_the_recommended_option() -> None:
    sess = HotSession.in_memory("s")
    before = (
        "| Option | Description |\n|---|---|\n| **A. Silent fallback (Recommended)** | log |\n"
        "| **B. Fail the commit** | block |\n\nI recommend **Option A**. Which do you prefer?"
    )
    say(sess, "sounds good", before)
    assert [d for d in kinds(sess, "decision") if "Silent fallback" in d]


def test_yes_to_an_offer_is_a_task() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "yes please", "The client has no retries. Want me to add retry logic to the client?")
    assert "Add retry logic to the client" in kinds(sess, "task")
    assert kinds(sess, "decision") == {}


def test_the_offer_is_the_sentence_that_asks() -> None:
    # "I can add X." states what could be done; the question after it is the offer
    before = (
        "The hook is in place. I can add the key bindings too. "
        "Want me to wire the plugin into the installer?"
    )
    for reply in ("go ahead", "sure, go for it"):
        sess = HotSession.in_memory("s")
        say(sess, reply, before=before)
        assert list(kinds(sess, "task")) == ["Wire the plugin into the installer"]


def test_tasks_and_completion() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "can you create a draft PR for the export feature?")
    say(sess, "Why is the build slow?")  # a question: no task
    tasks = kinds(sess, "task")
    assert list(tasks) == ["Create a draft PR for the export feature"]
    assert tasks["Create a draft PR for the export feature"].attrs["status"] == "in_progress"
    say(sess, "great, thanks!")
    assert kinds(sess, "task")["Create a draft PR for the export feature"].attrs["status"] == (
        "completed"
    )


def test_a_reply_that_answers_an_audit_point_by_point_keeps_each_request() -> None:
    sess = HotSession.in_memory("s")
    say(
        sess,
        "1. replace the staging keys\n2. fine as is\n3. remove the old cron entry\n"
        "4. enable the firewall log\n5. disable autostart for the updater",
        before="Audit: 1. Staging keys are old 2. Swap is small 3. A cron entry is stale …",
    )
    assert set(kinds(sess, "task")) == {
        "Replace the staging keys",
        "Remove the old cron entry",
        "Enable the firewall log",
        "Disable autostart for the updater",
    }


def test_requirement_is_an_attribute_of_the_task() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Write the release notes. Make sure to use British spelling.")
    task = kinds(sess, "task")["Write the release notes"]
    assert "British spelling" in task.attrs.get("constraint", ""), task.attrs


def test_personal_aside_lands_in_personal() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Also, remind me to book my daughter's dentist appointment for Tuesday.")
    personal = [n for n in sess.graph.nodes.values() if n.domain == "personal"]
    assert personal and any("dentist" in n.label for n in personal)
    assert not any(
        n.domain == "personal" and n.kind == "task" and "PR" in n.label for n in personal
    )


def test_generic_shell_words_are_not_entities() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "run git list and ls, then expect len to match. Maybe next Month.")
    labels = {n.label.lower() for n in sess.graph.nodes.values() if n.kind != "task"}
    assert not labels & {"git", "run", "list", "ls", "len", "expect", "maybe", "month"}


def test_correction_of_the_agents_claim() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "logread is not working", "Logs go to syslog now. The service is fixed.")
    edges = [e for e in sess.graph.edges.values() if e.relationship == "supersedes"]
    assert edges
    old = sess.graph.nodes[edges[0].target]
    assert old.label.startswith("Agent:") and "fixed" in (old.summary or "")


def test_speech_helpers() -> None:
    assert dates.deadline("we need it by tomorrow") == "tomorrow"
    assert dates.deadline("due 3rd of April") == "3 April"
    assert speech.decision_phrase("let's keep it simple for now") is None  # temporary
    assert speech.decision_phrase("I'd go with SQLite")[0] == "Use SQLite"
    assert speech.task_phrase("commit!") == "Commit"
    assert speech.task_phrase("can you explain the diff?") is None
    assert [p.name for p in persons.people("ask Tom about the migration")] == ["Tom"]
    assert persons.people("Sync the Fetch and Read tools") == []


# -- observers
