"""The compaction summary's harvest on written summaries (Claude Code's and pi's shapes), with
the real patch engine: sections, tasks merged with the graph's, the current work in progress,
decisions held to the person's words and superseding what they name, errors as attributes,
and the switch; in the real engine, live (dict events) as in replay (event objects)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rolling_graph.core.model import HotGraph
from rolling_graph.core.patch import PatchSource, apply_patch
from rolling_graph.observe.observers import active_task
from rolling_graph.probe.summary_harvest import harvest
from rolling_graph.probe.summary_sections import parse

CLAUDE = """This session is being continued from a previous conversation.

Analysis:
1. The user asked for a CSV export.
2. **Decision**: User chose the streaming writer instead of pandas for the export

Summary:
1. Primary Request and Intent:
   - Add a CSV export of invoices, due Friday

4. Errors and fixes:
   - **UnicodeEncodeError in export.py**: names with accents broke the writer. Fixed by opening the file with encoding utf-8-sig.

6. All user messages:
   - "Add a CSV export of the invoices please"
   - "Use the streaming writer, not pandas, pandas is too heavy here"

7. Pending Tasks:
   - Add a test for accented customer names
   - Document the export endpoint in the README
   - Optional follow-ups:
     - Paginate the invoices query

8. Current Work:
   Immediately before this summary request, I was wiring the export button in invoices.html to the new endpoint. The button now posts to /export.

9. Optional Next Step:
   Run the tests.
"""

PI = """## Goal
Move the reflow calls into one module.

## Progress
### Done
- [x] Wrote the plan

### In Progress
- [ ] Fixing 8 failing tests after renaming output.reconcile

## Key Decisions
- **Three named seams**: window, topology, outputs.

## Next Steps
1. Retarget the test patches to reflow.outputs
2. Delete stale bytecode
"""


def _graph(*nodes: dict[str, Any]) -> HotGraph:
    g = HotGraph(session_id="s", turn=3)
    ops = [{"op": "add", "path": f"/nodes/{n['id']}", "value": n, "reason": "seed"} for n in nodes]
    if ops:
        assert apply_patch(g, ops, source=PatchSource("test")).applied
    return g


def _apply(g: HotGraph, summary: str, prompts: list[str]) -> Any:
    got = harvest(g, summary, prompts)
    assert got.patch is not None
    res = apply_patch(g, got.patch, source=PatchSource("summary", "summary.v1"))
    assert res.applied, res.error
    return got


def test_sections_of_both_shapes() -> None:
    s = parse(CLAUDE)
    assert s.get("pending") == [
        "Add a test for accented customer names",
        "Document the export endpoint in the README",
        "Paginate the invoices query",
    ]
    assert s.intro["current"].startswith("Immediately before this summary request")
    assert len(s.get("users")) == 2 and len(s.get("errors")) == 1
    p = parse(PI)
    assert p.get("pending") == [
        "Retarget the test patches to reflow.outputs",
        "Delete stale bytecode",
    ]
    assert p.get("current") == ["Fixing 8 failing tests after renaming output.reconcile"]
    assert p.get("decisions") == ["Three named seams: window, topology, outputs."]


def test_tasks_current_work_decision_and_errors_enter_the_graph() -> None:
    g = _graph(
        {"id": "use-pandas-for-the-export", "label": "Use pandas for the export",
         "domain": "project", "kind": "decision"},
        {"id": "export-py", "label": "app/export.py", "domain": "technical", "kind": "file"},
        {"id": "invoices-html", "label": "templates/invoices.html", "domain": "technical",
         "kind": "file"},
        {"id": "old-task", "label": "Sketch the invoices page", "domain": "project",
         "kind": "task", "attrs": {"status": "in_progress"}},
    )  # fmt: skip
    got = _apply(g, CLAUDE, [])
    tasks = {n.id: n for n in g.nodes.values() if n.kind == "task"}
    labels = " | ".join(n.label for n in tasks.values())
    assert "Add a test for accented customer names" in labels
    assert "Paginate the invoices query" in labels
    active = active_task(g)
    assert active is not None and active.id == got.current
    assert active.label.startswith("Wiring the export button in invoices.html"), active.label
    assert (tasks["old-task"].attrs or {}).get("status") == "pending"  # one in progress
    assert f"{active.id}|uses|invoices-html" in g.edges  # the files it names, with the task
    decisions = [n for n in g.nodes.values() if n.kind == "decision" and "streaming" in n.label]
    assert len(decisions) == 1
    edges = {(e.source, e.target) for e in g.edges.values() if e.relationship == "supersedes"}
    assert (decisions[0].id, "use-pandas-for-the-export") in edges
    attrs = g.nodes["export-py"].attrs or {}
    assert attrs["error"].startswith("UnicodeEncodeError") and "utf-8-sig" in attrs["fix"]


def test_a_second_summary_merges_instead_of_duplicating() -> None:
    g = _graph()
    _apply(g, CLAUDE, [])
    before = {n.id for n in g.nodes.values() if n.kind in ("task", "decision")}
    again = CLAUDE.replace("Add a test for accented customer names", "Add tests for accented names")
    got = harvest(g, again, [])
    if got.patch is not None:
        assert apply_patch(g, got.patch, source=PatchSource("summary")).applied
    after = {n.id for n in g.nodes.values() if n.kind in ("task", "decision")}
    assert after == before, after - before
    assert got.merged


def test_a_decision_without_the_persons_words_is_left_out() -> None:
    g = _graph()
    text = CLAUDE.replace(
        '   - "Use the streaming writer, not pandas, pandas is too heavy here"\n', ""
    )
    got = harvest(g, text, ["Add a CSV export of the invoices please"])
    assert not any("streaming" in n for n in got.added.get("decision", []))
    assert any("person's words" in why for _, why in got.refused)
    got = harvest(g, text, ["go with the streaming writer instead of pandas for the export"])
    assert got.added["decision"], got.refused  # the prompts are the person's words too


def test_pi_summary_in_progress_and_next_steps() -> None:
    g = _graph()
    got = _apply(g, PI, [])
    active = active_task(g)
    assert active is not None and "Fixing 8 failing tests" in active.label
    assert len(got.pending) == 2


def _transcript(path: Path, summary: str) -> None:
    """A Claude Code transcript ending in a compaction: the boundary and the summary line."""
    lines = [
        {"type": "system", "subtype": "compact_boundary", "uuid": "u1", "sessionId": "s",
         "timestamp": "2026-03-12T14:20:00.000Z", "compactMetadata": {"trigger": "auto"}},
        {"type": "user", "isCompactSummary": True, "uuid": "u2", "sessionId": "s",
         "timestamp": "2026-03-12T14:20:01.000Z",
         "message": {"role": "user", "content": summary}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _tasks_after_summary(home: Path, transcript: Path, *, replay: bool, on: bool) -> list[str]:
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.pipeline.engine import Engine
    from rolling_graph.transcripts.events import CompactSummary

    eng = Engine(load_settings(home=home, warm="", summary_harvest=on), replay=replay)
    try:
        eng.handle(HookEvent(kind="session_start", session_id="s"))
        eng.handle(
            HookEvent(
                kind="tool_use", session_id="s", phase="post", tool_name="Read",
                tool_input={"file_path": "/p/app/export.py"}, tool_response="ok",
                transcript_path=str(transcript),
                # Replay hands the summary over on the event; live, the feed reads the file.
                context_events=[CompactSummary(CLAUDE)] if replay else [],
            )
        )  # fmt: skip
        g = eng.store.load("s").graph
        return sorted(n.label for n in g.nodes.values() if n.kind == "task")
    finally:
        eng.close()


def test_the_engine_harvests_live_and_in_replay_and_the_switch_turns_it_off(
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript, CLAUDE)
    replay = _tasks_after_summary(tmp_path / "r", transcript, replay=True, on=True)
    live = _tasks_after_summary(tmp_path / "l", transcript, replay=False, on=True)
    off = _tasks_after_summary(tmp_path / "o", transcript, replay=True, on=False)
    assert "Paginate the invoices query" in replay
    assert live == replay
    assert "Paginate the invoices query" not in off


def test_a_pending_item_said_as_a_need_is_the_work() -> None:
    from rolling_graph.probe.summary_harvest import task_text

    assert task_text("Need to commit and push the release branch") == (
        "Commit and push the release branch"
    )
    assert task_text("We need to rerun the migration on staging.") == (
        "Rerun the migration on staging"
    )
    assert task_text("Needed fixes are listed in TODO.md") == "Needed fixes are listed in TODO.md"


def test_a_long_pending_item_is_cut_at_its_last_clause_that_fits() -> None:
    # Compaction summaries' items run long (AlexandreVassard__will-it-rain, entireio__cli,
    # marot__spotter, ElixirTrials__medgemma-hackathon): the label keeps whole clauses, not
    # words cut off by "…"; the summary keeps the item.
    from rolling_graph.probe.offline.labels import shortened

    item = (
        "Execute Phase 3: Convert 5 sync .invoke() calls to await .ainvoke(), update tests "
        "and the fixtures that mock them"
    )
    assert (
        shortened(item, 80) == "Execute Phase 3: Convert 5 sync .invoke() calls to await .ainvoke()"
    )
    # not at a heading's colon nor early: what follows a heading is the work
    heading = "Phase 4: Add per-entity timing and retry count to the ground node spans in MLflow"
    assert shortened(heading + " traces", 80) == heading[:79].rstrip() + "…"
    assert shortened("Fix the lint warnings", 80) == "Fix the lint warnings"
    summary = CLAUDE.replace(
        "   - Document the export endpoint in the README\n",
        "   - Document the export endpoint in the README (the path, the query parameters, "
        "the CSV columns and their encoding)\n",
    )
    g = _graph()
    _apply(g, summary, [])
    labels = [n.label for n in g.nodes.values() if n.kind == "task"]
    assert "Document the export endpoint in the README" in labels


def _summary(current: str, pending: str, next_step: str) -> str:
    return (
        "Summary:\n1. Primary Request and Intent:\n   - Ship the billing page\n\n"
        f"7. Pending Tasks:\n{pending}\n\n8. Current Work:\n   {current}\n\n"
        f"9. Optional Next Step:\n   {next_step}\n"
    )


def test_current_work_that_reports_work_done_is_not_the_task_in_progress() -> None:
    # The summary's "Current Work" often says what was just finished (entireio__cli "Just
    # created the test file …", ElixirTrials__medgemma-hackathon "… has been fully rewritten",
    # SWORDIntel__claude-backups "I had just completed running …"): the work in progress is
    # the next step it names, when that asks for work, else none. Invented exchanges.
    from rolling_graph.probe.summary_harvest import current_work, reports_done

    done = [
        "I completed the schema migration and its verification.",
        "Just created the test file billing_test.go with tests for the proration.",
        "Fixed the flaky retry test that failed after the merge.",
        "The invoice template was just redesigned and the server was restarted.",
        "The ROADMAP.md has been fully rewritten with the new milestones.",
        "I had just re-added the nolint comment to util.go.",
        "Step 2 was handed to a subagent.",
        "The expired-token test had just been added and the suite passed.",
    ]
    ongoing = [
        "Fixing the proration rounding in billing.py.",
        "The most recent work was wiring the export button to the endpoint.",
        "The last change was in billing.py: rounding to cents.",
        "Run the migration on staging.",
        "Proceed with the webhook retries.",
        "Embed the chart in the dashboard.",
    ]
    from rolling_graph.probe.summary_harvest import task_text

    assert [x for x in done if not reports_done(task_text(x))] == []
    assert [x for x in ongoing if reports_done(task_text(x))] == []
    assert reports_done("I've just added the retry to the upload")  # a contraction too

    asks = "Run the billing tests and lint to verify the change: bash cd app && make test"
    s = parse(_summary(done[1], "   - Update the README", asks))
    assert current_work(s) == "Run the billing tests and lint to verify the change"
    lead = "The next step should be to push the branch and open the PR."
    assert current_work(parse(_summary(done[0], "", lead))) == lead
    waits = "Wait for the reviewer's feedback on the new layout."
    assert current_work(parse(_summary(done[3], "", waits))) == ""
    assert current_work(parse(_summary(ongoing[0], "", waits))) == ongoing[0]

    g = _graph()
    got = _apply(g, _summary(done[1], "   - Update the README", asks), ["Ship the billing page"])
    active = active_task(g)
    assert active is not None and active.id == got.current
    assert active.label.startswith("Run the billing tests and lint"), active.label


def test_a_lead_in_without_the_work_reads_the_items_under_it() -> None:
    from rolling_graph.probe.summary_harvest import current_work

    text = _summary(
        "Immediately before this summary request, I was:\n"
        "   - Testing the export script against the staging data\n"
        "   - Writing its README section",
        "",
        "Commit the script.",
    )
    assert current_work(parse(text)) == "Testing the export script against the staging data"


def test_a_pending_item_about_the_person_or_saying_none_is_no_task() -> None:
    # "The user may want to verify this works" (entireio__cli), "User has not yet provided
    # feedback on the redesigned UI", "No explicitly pending tasks" (Aley3567__cutesticky):
    # notes, not the agent's work. Invented items of those shapes.
    pending = (
        "   - No explicit pending tasks\n"
        "   - The user might want to rename the columns later\n"
        "   - User has not yet reviewed the new invoice layout\n"
        "   - User settings page: add the currency picker\n"
        "   - Add the currency picker to the settings page"
    )
    s = parse(_summary("Fixing the proration rounding.", pending, "Run the tests."))
    assert len(s.get("pending")) == 4  # "No explicit pending tasks" says there are none
    g = _graph()
    got = _apply(g, _summary("Fixing the proration rounding.", pending, "Run the tests."), [])
    labels = sorted(n.label for n in g.nodes.values() if n.kind == "task")
    assert got.notes == [
        "The user might want to rename the columns later",
        "User has not yet reviewed the new invoice layout",
    ]
    assert not [x for x in labels if "user might" in x.lower() or "not yet" in x]
    assert any(x.startswith("User settings page") for x in labels), labels
