"""One normalized event stream for every transcript format.

Readers (one module per format: ``claude_code_format``, ``codex_format``, ``pi_format``,
``claude_code_export_format``, ``aider_format``…) turn harness-specific lines into the frozen
events below. Every event carries ``timestamp`` (timezone-aware ``datetime`` or ``None``) and
``uuid`` (the harness's line id where it has one) as keyword-only fields, so the positional
fields of each event are just its payload.

Vocabulary:

- ``UserPrompt``: text a person typed and sent (``queued=True`` when it was typed while the
  agent was busy and delivered mid-turn).
- ``SlashCommand``: a ``/name args`` command the person ran (``/compact``, ``/model x``, or a
  skill such as ``/grill-me some args``). Kept apart from prompts: the wrapper text is the
  harness's, and built-in commands are not requests to the model.
- ``UserShellCommand``: a ``!command`` the person ran in the harness's shell escape.
- ``CommandOutput``: output the harness printed for a slash or shell command.
- ``Interrupt``: the person stopped the agent (Esc / Ctrl-C).
- ``AssistantText``, ``Thinking``, ``ToolUse``, ``ToolResult``: the agent's side.
- ``CompactBoundary`` then ``CompactSummary``: a compaction; text before the last boundary is
  no longer in the model's live context.
- ``SessionTitle``: a title the harness or person gave the session.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar


@dataclass(frozen=True, slots=True)
class TranscriptEvent:
    """Base of all events; ``timestamp`` and ``uuid`` are keyword-only and optional."""

    timestamp: datetime | None = field(default=None, kw_only=True)
    uuid: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class UserPrompt(TranscriptEvent):
    """Text typed by a person (harness wrappers, IDE and reminder tags stripped)."""

    text: str
    queued: bool = False


@dataclass(frozen=True, slots=True)
class SlashCommand(TranscriptEvent):
    """A slash command run by the person: ``name`` without the slash, ``args`` as typed."""

    name: str
    args: str = ""


@dataclass(frozen=True, slots=True)
class UserShellCommand(TranscriptEvent):
    """A shell command the person ran through the harness (Claude Code ``!cmd``)."""

    command: str


@dataclass(frozen=True, slots=True)
class CommandOutput(TranscriptEvent):
    """What the harness printed for a slash/shell command; ``stream`` is stdout or stderr."""

    text: str
    stream: str = "stdout"


@dataclass(frozen=True, slots=True)
class Interrupt(TranscriptEvent):
    """The person interrupted the agent; ``during_tool_use`` when a tool call was cut off."""

    during_tool_use: bool = False


@dataclass(frozen=True, slots=True)
class AssistantText(TranscriptEvent):
    """Visible text from the model. ``message_id`` groups blocks of one API message."""

    text: str
    message_id: str | None = None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class Thinking(TranscriptEvent):
    """Model reasoning in the clear (encrypted/redacted reasoning is not emitted)."""

    text: str
    message_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolUse(TranscriptEvent):
    """A tool call; ``input`` is the decoded argument object (``{"input": raw}`` if not JSON)."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    message_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult(TranscriptEvent):
    """The result of ``tool_use_id``; list content is flattened to text (images as ``[image]``)."""

    tool_use_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class CompactBoundary(TranscriptEvent):
    """A compaction happened here; ``trigger`` is ``auto``/``manual`` where recorded."""

    trigger: str | None = None
    pre_tokens: int | None = None
    post_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class CompactSummary(TranscriptEvent):
    """The summary that replaced the compacted history in the model's context."""

    text: str


@dataclass(frozen=True, slots=True)
class SessionTitle(TranscriptEvent):
    """A session title; ``source`` is ``summary``, ``custom-title``, ``ai-title`` (Claude Code)
    or ``session-info`` (pi's ``/name``)."""

    text: str
    source: str


@dataclass(slots=True)
class ReadStats:
    """What a reader saw. Counters only grow; ``merge`` adds another read's counts."""

    lines_read: int = 0
    #: non-empty lines that were not a JSON object (damaged by redaction, comments…)
    invalid_lines: int = 0
    #: ``isSidechain`` lines (subagent conversations) set aside
    sidechain_lines: int = 0
    #: ``isMeta`` lines and other harness-authored user lines (skill bodies, caveats…)
    meta_lines: int = 0
    #: user lines injected by the harness, not typed: task notifications, bare IDE tags…
    injected_lines: int = 0
    #: harness-made assistant lines (``model == "<synthetic>"``: API errors, rate limits)
    synthetic_lines: int = 0
    #: blocks/prompts seen again (streaming repeats, history copied by ``--resume``)
    duplicates_dropped: int = 0
    #: lines per line type (Claude Code ``type``; Codex ``type/payload.type``; plain ``role``)
    by_type: Counter[str] = field(default_factory=Counter)
    #: line types this reader does not know (also in ``by_type``); ignored
    unknown_types: Counter[str] = field(default_factory=Counter)
    #: the earliest and latest line times read, set-aside lines included: a file of
    #: harness lines only (``isMeta``) has no event, but its lines still say when it was written
    first_time: datetime | None = None
    last_time: datetime | None = None

    def saw_time(self, ts: datetime | None) -> None:
        if ts is None:
            return
        if self.first_time is None or ts < self.first_time:
            self.first_time = ts
        if self.last_time is None or ts > self.last_time:
            self.last_time = ts

    @property
    def time_span(self) -> tuple[datetime | None, datetime | None]:
        return self.first_time, self.last_time

    def merge(self, other: ReadStats) -> None:
        for name in (
            "lines_read",
            "invalid_lines",
            "sidechain_lines",
            "meta_lines",
            "injected_lines",
            "synthetic_lines",
            "duplicates_dropped",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.by_type.update(other.by_type)
        self.unknown_types.update(other.unknown_types)
        self.saw_time(other.first_time)
        self.saw_time(other.last_time)


E = TypeVar("E", bound=TranscriptEvent)


@dataclass(slots=True)
class Transcript:
    """A whole transcript read at once: events in file order, stats, detected format."""

    path: Path
    format: str
    events: list[TranscriptEvent]
    stats: ReadStats

    def of_type(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def user_prompts(self) -> list[UserPrompt]:
        return self.of_type(UserPrompt)

    @property
    def tool_uses(self) -> list[ToolUse]:
        return self.of_type(ToolUse)

    @property
    def compactions(self) -> list[CompactBoundary]:
        return self.of_type(CompactBoundary)
