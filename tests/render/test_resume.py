"""The "where we left off" block (rolling_graph.render.resume) on hand-made warm data."""

from __future__ import annotations

from datetime import UTC, datetime

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.observe.worktree_changes import Changes
from rolling_graph.render.resume import display_name, render_resume
from rolling_graph.warm.records import WarmEdge, WarmNode
from rolling_graph.warm.resume import ResumeData

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def wn(nid: str, label: str, kind: str | None = None, w: float = 0.5, **kw: object) -> WarmNode:
    return WarmNode(id=nid, label=label, domain="project", weight=w, kind=kind, **kw)  # type: ignore[arg-type]


def data(previous: list[WarmNode], earlier: list[WarmNode] = (), edges=()) -> ResumeData:  # type: ignore[assignment]
    d = ResumeData("proj", "sess-1234abcd", T0, 3, list(previous), list(earlier), list(edges))
    for i, n in enumerate([*previous, *earlier]):
        d.weights[n.id] = n.weight
        d.rank[n.id] = 10.0 - i * 0.01  # in the order given
    return d


PREVIOUS = [
    wn(
        "ship-resume",
        "Ship the resume block",
        "task",
        attrs={"status": "in_progress", "due": "friday"},
    ),
    wn("write-tests", "Write the e2e test", "task", attrs={"status": "pending"}),
    wn("fix-login", "Fix login redirect", "task", attrs={"status": "completed"}),
    wn("use-bento", "Use Bento", "decision", summary="deliverability"),
    wn("use-resend", "Use Resend", "decision"),
    wn("no-mocks", "Never mock PostgreSQL", "correction"),
    wn("render-py", "…/rolling_graph/render.py", "file", summary="edited 2×"),
    wn(
        "pytest",
        "pytest",
        "tool",
        summary="command run 3×; last: pytest -x failed with ImportError",
    ),
]
SUPERSEDES = [WarmEdge("use-bento", "supersedes", "use-resend", 0.9)]


def test_sections_in_order_with_status_and_supersession() -> None:
    text, ids = render_resume(data(PREVIOUS, edges=SUPERSEDES), budget=800)
    lines = text.splitlines()
    assert lines[0].startswith("Rolling memory from earlier sessions, where we left off")
    assert "sess-123" in lines[0] and "2026-03-01 12:00 UTC" in lines[0]
    heads = [ln.split(":", 1)[0] for ln in lines[1:]]
    order = ["Open tasks", "Completed last time", "Decisions in force", "Corrections"]
    assert [h for h in heads if h in order] == order
    assert "[in progress] Ship the resume block (due friday)" in text
    assert "[pending] Write the e2e test" in text
    assert "Completed last time: Fix login redirect." in text
    assert "Use Bento (supersedes Use Resend): deliverability" in text
    # The replaced decision is never presented as current.
    assert text.count("Use Resend") == 1 and "(supersedes Use Resend)" in text
    assert {"ship-resume", "use-bento", "no-mocks", "render-py"} <= set(ids)
    assert "Files last touched: rolling_graph/render.py." in text
    assert "Unresolved: pytest (" in text


def test_fills_the_budget_and_never_exceeds_it() -> None:
    earlier = [wn(f"n{i}", f"Concept{i:03d}", "entity", w=0.4) for i in range(400)]
    for budget in (200, 500, 800):
        text, ids = render_resume(data(PREVIOUS, earlier, SUPERSEDES), budget=budget)
        assert estimate_tokens(text) <= budget
        assert estimate_tokens(text) >= budget - 15  # filled: the names take what is left
        assert "From earlier sessions: Concept000, Concept001" in text
        assert len(ids) == len(set(ids))


def test_previous_and_earlier_share_the_filler() -> None:
    prev = [wn(f"p{i}", f"Previous{i:03d}", "entity") for i in range(300)]
    earlier = [wn(f"e{i}", f"Earlier{i:03d}", "entity") for i in range(300)]
    text, _ = render_resume(data(prev, earlier), budget=800)
    also = next(ln for ln in text.splitlines() if ln.startswith("Also from the last session"))
    rest = next(ln for ln in text.splitlines() if ln.startswith("From earlier sessions"))
    assert len(also) > len(rest) > len(also) / 3  # the last session first, not alone


def test_names_that_add_no_word_are_skipped() -> None:
    prev = [
        wn("a", "commitHash", "entity", w=0.9),
        wn("b", "tc.Message", "entity", w=0.8),
        wn("c", "tc.CommitHash", "entity", w=0.7),  # only words already said
        wn("d", "Starlink", "entity", w=0.6),
    ]
    text, ids = render_resume(data(prev), budget=800)
    assert "tc.CommitHash" not in text and "Starlink" in text and "c" not in ids


def test_changes_since_named_briefly() -> None:
    changes = Changes(
        commits=["abc1234 Fix the flaky test"], more_commits=2, files=["src/app.py"],
        uncommitted=["notes.md"],
    )  # fmt: skip
    text, _ = render_resume(data(PREVIOUS), changes, budget=800)
    assert "Committed since then: 1 (+2 more): abc1234 Fix the flaky test." in text
    assert "Files changed since then: src/app.py, notes.md." in text


def test_nothing_to_say_is_empty() -> None:
    assert render_resume(ResumeData("proj"), Changes(), budget=800) == ("", [])


def test_display_names_of_paths() -> None:
    assert display_name(wn("x", "~/Developer/proj/src/app.py", "file")) == "src/app.py"
    assert display_name(wn("y", "…/a/b.md", "file")) == "a/b.md"
    assert display_name(wn("z", "Use Bento", "decision")) == "Use Bento"


def test_header_without_a_previous_session() -> None:
    d = data([], [wn("a", "Alpha", "entity")])
    d.previous_session = None
    text, _ = render_resume(d, budget=300)
    assert text.splitlines()[0] == "Rolling memory from earlier sessions of this project:"
    assert "Alpha" in text


def test_the_task_in_progress_is_never_cut_by_newer_pending_ones() -> None:
    from datetime import timedelta

    doing = wn("rewrite", "Rewrite history", "task", attrs={"status": "in_progress"}, last_seen=T0)
    newer = [
        wn(
            f"t{i}",
            f"Pending chore number {i}",
            "task",
            attrs={"status": "pending"},
            last_seen=T0 + timedelta(minutes=i + 1),
        )
        for i in range(10)
    ]
    text, _ = render_resume(data([*newer, doing]), budget=800)
    line = next(ln for ln in text.splitlines() if ln.startswith("Open tasks:"))
    assert line.startswith(
        "Open tasks: [in progress] Rewrite history; [pending] Pending chore number 9"
    )
    assert line.count("[pending]") == 7  # eight at most, the latest pending ones after it


def test_pending_tasks_of_one_session_newest_first_not_by_name() -> None:
    """Tasks flushed by one session share its last flush time: those first seen at a later
    flush (asked after a compaction) go first, and the cap drops the oldest, whatever their
    names."""
    from datetime import timedelta

    flushed = T0 + timedelta(hours=1)

    def asked(i: int, when: str, first: datetime) -> WarmNode:
        return wn(
            f"{'z' if when == 'after' else 'a'}{i}",  # by id, the older would go first
            f"Asked {when} the compaction {i}",
            "task",
            attrs={"status": "pending"},
            first_seen=first,
            last_seen=flushed,
        )

    old = [asked(i, "before", T0) for i in range(6)]
    new = [asked(i, "after", flushed) for i in range(4)]
    text, _ = render_resume(data([*old, *new]), budget=800)
    line = next(ln for ln in text.splitlines() if ln.startswith("Open tasks:"))
    assert all(f"Asked after the compaction {i}" in line for i in range(4))
    assert line.index("Asked after") < line.index("Asked before")
    assert line.count("[pending]") == 8  # two of the six older ones cut
