"""One harness hook event, normalized (:class:`HookEvent`), and why the gate fired on one
(:class:`Trigger`). Plain data: the context plugins share while handling an event, and the
hand-offs between them, are declared with the hooks in :mod:`rolling_graph.pipeline.hookspecs`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EventKind = Literal["session_start", "prompt_submit", "tool_use", "pre_compact", "session_end"]

# Tool names as the adapters normalize them (Claude Code's): the tools that write a file, and
# those that touch one by its path.
EDIT_TOOLS = frozenset(["Edit", "Write", "MultiEdit", "NotebookEdit", "Create"])
FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit", "Read")


@dataclass
class HookEvent:
    """One harness event, independent of the harness's payload format."""

    kind: EventKind
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    prompt: str | None = None  # prompt_submit
    tool_name: str | None = None  # tool_use
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_response: Any = None
    phase: str = "post"  # tool_use: pre | post
    source: str | None = None  # session_start: startup | resume | clear | compact
    trigger: str | None = None  # pre_compact: manual | auto
    reason: str | None = None  # session_end
    timestamp: float | None = None  # wall time (seconds); replay passes the transcript's clock
    harness: str = "claude-code"
    # False for harnesses that never send SessionEnd (Codex): the warm plugin then leaves a
    # "pending final flush" marker at start, which the next start or `recover` finishes.
    session_end_expected: bool = True
    raw: dict[str, Any] = field(default_factory=dict)
    # Transcript events since the previous hook event (assistant text…), when the caller has
    # them at hand (replay); live hooks read them from ``transcript_path`` incrementally.
    context_events: list[Any] = field(default_factory=list)
    # Set once its texts went through the privacy boundary (rolling_graph.privacy.boundary); what the
    # plugins see is always redacted.
    redacted: bool = False


@dataclass(frozen=True)
class Trigger:
    """Why the gate fired: the trigger's name and the words that made it fire."""

    name: str  # new_entity | domain_shift | decision | correction | dead_man | tool_* | plugin rule names
    words: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "words": list(self.words)}
