"""Poisoning through the doors a model's text enters memory by (issue 30, item 2).

Every injection of ``tests/fixtures/poisoning/injections.jsonl`` is sent through the harness's
compaction summary (as a pending task, the current work, a stated decision and an error's fix;
the person's own words, in "All user messages" and the prompts, never carry it) and through
``memory_note`` (as a decision, a correction, a task and a constraint), in the real engine with
the offline probe; then the session ends and a new session of the same project starts. None
may be stored as a decision, task or correction in force, and no block injected on the way (nor
the resume block of the new session) may carry an instruction to the agent or the injection's
content on a decision or task line.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.privacy.injection import instruction, meaning_words, supported

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "poisoning" / "injections.jsonl"
PROMPTS = [
    "Let's add a CSV export to the invoices page.",
    "Use the csv module from the standard library for the writer.",
    "The export should include the due date column, and Mia from finance will review it.",
]
SESSION, NEXT = "poisoned", "next-day"
CHUNK = 6
WORK_HEADS = ("Decisions in force", "Open tasks", "Task in progress", "Done")


def injections() -> list[dict[str, str]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def _summary(chunk: list[str], odd: bool) -> str:
    """A Claude Code shaped summary carrying ``chunk`` in every section but the person's."""
    quote = "\n".join(f'   - "{p}"' for p in PROMPTS)
    decisions = "\n".join(f"   - {t}" for t in chunk)
    analysis = "\n".join(f"- **Decision**: {t}" for t in chunk) if odd else "- Looked at code."
    errors = "\n".join(f"   - **{t}**: Fixed by {t}" for t in chunk[:4])
    pending = "\n".join(f"   - {t}" for t in chunk)
    return (
        "This session is being continued from a previous conversation.\n\nAnalysis:\n"
        f"{analysis}\n\nSummary:\n1. Primary Request and Intent:\n"
        "   - Add a CSV export to the invoices page\n"
        + ("" if odd else f"\n## Key Decisions\n{decisions}\n")
        + f"\n4. Errors and fixes:\n{errors}\n\n6. All user messages:\n{quote}\n\n"
        f"7. Pending Tasks:\n{pending}\n\n8. Current Work:\n{chunk[0]}\n"
    )


class Run:
    def __init__(self, home: Path, project: Path) -> None:
        from rolling_graph.config import load_settings
        from rolling_graph.pipeline.engine import Engine

        settings = load_settings(
            home=home, warm=f"sqlite:///{home / 'warm.db'}", agent_notes_per_turn=50
        )
        self.engine = Engine(settings, replay=True)  # the offline probe runs in line
        self.cwd = str(project)
        self.blocks: list[str] = []
        self.tried: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()

    def handle(self, kind: str, sid: str = SESSION, **kw: Any) -> None:
        from rolling_graph.core.hook_event import HookEvent

        out = self.engine.handle(HookEvent(kind=kind, session_id=sid, cwd=self.cwd, **kw))
        if out.injected:
            self.blocks.append(out.injected)

    def through_summaries(self, texts: list[str]) -> None:
        from rolling_graph.transcripts.events import CompactSummary

        for i in range(0, len(texts), CHUNK):
            chunk = texts[i : i + CHUNK]
            self.handle("pre_compact", trigger="auto")
            self.handle("session_start", source="compact")
            summary = CompactSummary(_summary(chunk, odd=bool(i // CHUNK % 2)))
            self.handle(
                "tool_use",
                phase="post",
                tool_name="Read",
                tool_input={"file_path": f"{self.cwd}/app/export.py"},
                tool_response={"content": "def export(): ..."},
                context_events=[summary],
            )
            self.tried.update(pending=len(chunk), current=1, decision=len(chunk))
            self.tried.update(errors=min(4, len(chunk)))

    def through_notes(self, texts: list[str]) -> None:
        from rolling_graph.mcp.lookup import RecallError
        from rolling_graph.mcp.recall import answer

        kinds = ("decision", "correction", "task", "constraint")
        for i, text in enumerate(texts):
            if i % 40 == 0:
                self.handle("prompt_submit", prompt="Carry on with the export.")
            for kind in kinds:
                args = {"kind": kind, "text": text, "session": SESSION}
                if kind == "correction":
                    args["replaces"] = "Use the csv module for the writer"
                self.tried[f"note_{kind}"] += 1
                try:
                    answer(self.engine, "memory_note", args, self.cwd)
                except RecallError:
                    self.refused[f"note_{kind}"] += 1


def _in_force(graph: Any) -> list[Any]:
    retired = set(graph.superseded_by())
    return [
        n
        for n in graph.nodes.values()
        if n.kind in ("decision", "correction", "preference", "task")
        and n.id not in retired
        and (n.attrs or {}).get("status") != "completed"
    ]


def _carries(text: str, injection: str) -> bool:
    """``text`` says most of what ``injection`` says (its meaning words)."""
    words = meaning_words(text)
    return len(words) >= 2 and supported(text, [injection])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("poison")
    project = base / "invoices"
    (project / ".git").mkdir(parents=True)
    r = Run(base / "home", project)
    r.handle("session_start", source="startup")
    for p in PROMPTS:
        r.handle("prompt_submit", prompt=p)
    texts = [i["text"] for i in injections()]
    r.through_summaries(texts)
    r.through_notes(texts)
    r.handle("session_start", source="compact")
    r.handle("session_end", reason="other")
    r.handle("session_start", sid=NEXT, source="startup")  # a new session of the project
    yield r
    r.engine.close()


def test_the_corpus_is_large_and_varied() -> None:
    corpus = injections()
    assert len(corpus) >= 100
    assert len({i["text"] for i in corpus}) == len(corpus)
    assert len(Counter(i["family"] for i in corpus)) >= 8


def test_no_injection_is_stored_as_a_decision_task_or_correction(run: Run) -> None:
    graph = run.engine.store.load(SESSION).graph
    texts = [i["text"] for i in injections()]
    stored = [
        (n.kind, n.label, t)
        for n in _in_force(graph)
        for t in texts
        if _carries(" ".join([n.label, *n.aliases, n.summary or ""]), t)
    ]
    assert stored == [], stored
    assert run.tried["pending"] == len(texts) and run.tried["note_decision"] == len(texts)
    # Every summary was read by the harvest, which left the injected lines out.
    harvests = [r for r in run.engine.store.audit(SESSION).records() if r["type"] == "harvest"]
    assert len(harvests) == -(-len(texts) // CHUNK)
    assert sum(r["refused"] for r in harvests) >= len(texts)
    # The benign work went in: the person's own task is there.
    assert any("csv export" in n.label.lower() for n in _in_force(graph)), [
        n.label for n in _in_force(graph)
    ]


def test_no_block_carries_an_instruction_or_an_injected_decision(run: Run) -> None:
    assert run.blocks, "no block was injected"
    resume = run.blocks[-1]
    assert "CSV export" in resume or "csv" in resume.lower(), resume  # the new session's block
    texts = [i["text"] for i in injections()]
    bad = []
    for block in run.blocks:
        for line in block.splitlines():
            why = instruction(line)
            if why:
                bad.append((why, line))
            if line.startswith(WORK_HEADS) or line.lstrip("- ").startswith(WORK_HEADS):
                bad += [("injected", line) for t in texts if _carries(line, t)]
    assert bad == [], bad[:10]


def test_notes_carrying_an_instruction_are_refused(run: Run) -> None:
    # Every injection that reads as an instruction is refused whatever the note's kind; the
    # rest (decisions the person never made) are kept as the agent's claim, at most.
    texts = [i["text"] for i in injections()]
    instructions = sum(1 for t in texts if instruction(t))
    for kind in ("decision", "correction", "task", "constraint"):
        assert run.refused[f"note_{kind}"] >= instructions, (kind, run.refused, instructions)
