"""Reader for the text Claude Code writes with ``/export`` (the terminal view, saved as .txt).

Replay only: the file is written once, at the person's request, so no live hook reads it.
There are no timestamps or ids; tool inputs are the one-line renderings the terminal shows.

The text is a sequence of blocks, each opened at column 0:

- ``> text`` (or ``❯``): what the person typed. Continuation lines follow unmarked (wrapped
  lines are not indented; an indented line is part of it too, as in a multi-line
  ``/compact`` instruction). A ``>`` line right after a non-blank line of the same prompt is a
  quote inside it; every new prompt follows a blank line. ``/name args`` ->
  ``SlashCommand``, ``!cmd`` -> ``UserShellCommand``, anything else -> ``UserPrompt``; the
  ``⎿`` lines under a command are its ``CommandOutput``; under a prompt an API error is
  counted as synthetic. ``⎿ Interrupted · What should Claude do instead?`` under any block
  (after its output, too) -> ``Interrupt`` after it.
- ``● Name(args)`` (or ``⏺``) with ``⎿`` result lines: a tool call -> ``ToolUse`` (Claude
  Code's tool name: ``Update`` is ``Edit``, ``Search`` is ``Grep``; the rendered argument
  becomes ``command``/``file_path``/…) + ``ToolResult``; ``⎿ Interrupted`` under it ->
  ``ToolResult(is_error)`` + ``Interrupt(during_tool_use=True)``. The harness's own renderings
  ``Update Todos``, ``User answered Claude's questions:``, ``User approved Claude's plan``,
  ``Updated plan`` and ``N agents finished`` are tool calls too (TodoWrite, AskUserQuestion,
  ExitPlanMode, Write, Task).
- ``● text``: ``AssistantText`` (continuation lines indented by two; the lines the terminal
  wrapped are joined again, see ``_reflowed``).
- ``═══ Conversation compacted ═══`` -> ``CompactBoundary`` (``manual`` when the ``/compact``
  that caused it is the next thing the person typed; the summary is not in the export). The
  ``⎿ Read …`` lines after it are files the harness re-attached: counted, not events.
- The welcome box / logo and ``∴ Thought for …`` lines carry nothing (counted).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from textwrap import dedent
from typing import Any

from .events import (
    AssistantText,
    CommandOutput,
    CompactBoundary,
    Interrupt,
    ReadStats,
    SlashCommand,
    ToolResult,
    ToolUse,
    TranscriptEvent,
    UserPrompt,
    UserShellCommand,
)

FORMAT = "claude-code-export"

_PROMPT = re.compile(r"^[>❯](?: |$)")
_ITEM = re.compile(r"^[●⏺] ?")
_COMPACTED = re.compile(r"^═+ *Conversation compacted")
_HEADER = re.compile(r"^(?:[╭│╰]|\s*▐▛|▝▜|\s*▘▘)")
_THINKING = re.compile(r"^[∴✻] ")
_RESULT = re.compile(r"^\s*⎿ ?")
_CALL = re.compile(r"^(?P<name>[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)?)\((?P<args>.*)$", re.DOTALL)
_MCP = re.compile(r"^(?P<server>[\w.-]+) - (?P<tool>[\w.-]+) \(MCP\)\((?P<args>.*)$", re.DOTALL)
_KEYED = re.compile(r'(\w+): ("(?:\\.|[^"\\])*"|[^,]*)')
_SLASH = re.compile(r"^/([\w:.-]+)(?:\s+(.*))?$", re.DOTALL)
_AGENTS = re.compile(r"^\d+ \w+ agents? finished")
_PLAN_PATH = re.compile(r"(~?/\S+\.md)")
_INTERRUPTED = "Interrupted"

#: rendered tool name -> (Claude Code tool name, the input field the rendered argument fills)
TOOLS = {
    "Bash": ("Bash", "command"),
    "BashOutput": ("BashOutput", "bash_id"),
    "Kill Shell": ("KillShell", "shell_id"),
    "Read": ("Read", "file_path"),
    "Reading Plan": ("Read", "file_path"),
    "Update": ("Edit", "file_path"),
    "Edit": ("Edit", "file_path"),
    "Write": ("Write", "file_path"),
    "Search": ("Grep", "pattern"),
    "Fetch": ("WebFetch", "url"),
    "Web Search": ("WebSearch", "query"),
    "Task": ("Task", "description"),
    "Explore": ("Task", "description"),
    "Plan": ("Task", "description"),
    "Skill": ("Skill", "skill"),
}
#: the harness's own renderings of a tool call (no parentheses)
RENDERED = {
    "Update Todos": "TodoWrite",
    "User answered Claude's questions:": "AskUserQuestion",
    "User approved Claude's plan": "ExitPlanMode",
    "Updated plan": "Write",
}


@dataclass(slots=True)
class _Block:
    kind: str  # prompt | item | compact | header | thinking
    lines: list[str] = field(default_factory=list)
    start: int = 0  # index of its first line in the file

    def split(self) -> tuple[list[str], list[list[str]]]:
        """(head lines, result parts): each ``⎿`` line opens a result part."""
        head: list[str] = []
        parts: list[list[str]] = []
        for line in self.lines:
            if _RESULT.match(line):
                parts.append([_RESULT.sub("", line, count=1)])
            elif parts:
                parts[-1].append(line)
            else:
                head.append(line)
        return head, parts


def looks_like_export(text: str) -> bool:
    """A Claude Code export: its welcome box, or ``●`` items at column 0 with the marks only
    the terminal view has (``⎿`` result lines, the compaction rule, a ``● Tool(…)`` call); an
    export may open mid-conversation, without the box or a prompt."""
    lines = text.splitlines()[:4000]
    if any(line.startswith("╭─── Claude Code v") or "▐▛███▜▌" in line for line in lines[:20]):
        return True
    items = [line[2:] for line in lines if line.startswith(("● ", "⏺ "))]
    if not items:
        return False
    if any(_COMPACTED.match(line) or _RESULT.match(line) for line in lines):
        return True
    return any((m := _CALL.match(item)) is not None and m.group("name") in TOOLS for item in items)


def _blocks(lines: list[str]) -> Iterator[_Block]:
    block = _Block("header")
    for i, line in enumerate(lines):
        prev_blank = i == 0 or not lines[i - 1].strip()
        kind = None
        if _PROMPT.match(line) and (block.kind != "prompt" or prev_blank):
            kind = "prompt"
        elif _ITEM.match(line):
            kind = "item"
        elif _COMPACTED.match(line):
            kind = "compact"
        elif _THINKING.match(line):
            kind = "thinking"
        elif _HEADER.match(line) and block.kind in ("header", "compact"):
            kind = "header"
        if kind is not None and (kind != "header" or block.kind != "header"):
            yield block
            block = _Block(kind, start=i)
        block.lines.append(line)
    yield block


# A line that opens an item of its own: a bullet, a number, a quote.
_LIST_LINE = re.compile(r"^\s*(?:[-*•>]|\d{1,2}[.)])\s")


def _unwrapped(raw: list[str]) -> str:
    """The typed text with the terminal's soft wraps undone. The export wraps a long prompt at
    the terminal's width and keeps the space the wrap fell on, at the end of the line or at
    the start of the next: those lines are one line. A line the person broke ends in ``\\``
    or with no space at the break, and stays a line; so does a list item."""
    out = raw[0].rstrip()
    for prev, line in zip(raw, raw[1:], strict=False):
        soft = (
            bool(prev.strip() and line.strip())
            and not prev.rstrip().endswith("\\")
            and not _LIST_LINE.match(line)
            and (prev.endswith(" ") or (line.startswith(" ") and not line.startswith("  ")))
        )
        out += f" {line.strip()}" if soft else f"\n{line.rstrip()}"
    return out


# A line the terminal never wraps into the one before: a table row or rule, a heading, a fence.
_HARD_LINE = re.compile(r"[│┃─━┌└├┼╭╰]|^\s*\||^\s*(?:#|```)")


# The terminal wraps the agent's text this many columns short of the width its item lines
# (tool calls) reach: 76 in an 80-column terminal, 136 in 140, over the shared exports.
_TEXT_MARGIN = 4
# Terminals are this wide at least: a short export whose lines never reach the edge is not
# taken for a narrow one (whose lines would then all look wrapped).
_MIN_COLUMNS = 80


def text_width(lines: list[str]) -> int | None:
    """The column the export wraps the agent's text at: the terminal's width, read off its
    widest item line (a table row may be wider, so rows are left out), less the margin."""
    widths = [len(x) for x in lines if _ITEM.match(x) and not _HARD_LINE.search(x)]
    return max(_MIN_COLUMNS, *widths) - _TEXT_MARGIN if widths else None


def _reflowed(head: list[str], width: int | None) -> str:
    """The agent's text with the terminal's wraps undone: a line joins the one before when its
    first word would not have fitted there (so the terminal, not the agent, broke it); list
    items, table rows, headings and fences keep their lines. ``head[0]`` keeps its marker."""
    body = dedent("\n".join(head[1:])).split("\n") if len(head) > 1 else []
    out = [_ITEM.sub("", head[0], count=1).strip()]
    for prev, line in zip(head, body, strict=False):
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        soft = (
            width is not None
            and bool(word and out[-1].strip())
            and not _LIST_LINE.match(line)
            and not _HARD_LINE.search(line)
            and not _HARD_LINE.search(prev)
            and len(prev.rstrip()) + 1 + len(word) > width
        )
        if soft:
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line.rstrip())
    return "\n".join(out).strip()


def _text(lines: list[str]) -> str:
    return dedent("\n".join(lines)).strip()


def _result(parts: list[list[str]]) -> tuple[str, bool]:
    """(the result text, whether an ``Interrupted`` note closed it): the note may follow
    output (a read that finished, then Esc), so it is looked for in every part."""
    texts = [_text(p) for p in parts]
    kept = [t for t in texts if not t.startswith(_INTERRUPTED)]
    return "\n".join(kept).strip(), len(kept) < len(texts)


def _args(rendered: str, field_name: str) -> dict[str, Any]:
    """The rendered argument -> an input object (``key: "value", …`` pairs when shown so)."""
    if re.match(r"^\w+: ", rendered):
        out: dict[str, Any] = {}
        for key, raw in _KEYED.findall(rendered):
            value = raw.strip()
            if value.startswith('"'):
                try:
                    value = json.loads(value)
                except ValueError:
                    value = value.strip('"')
            out[key] = value
        return out
    return {field_name: rendered}


class ExportParser:
    """Turns a whole export into events; see the module docstring for the rules."""

    def __init__(self, stats: ReadStats | None = None) -> None:
        self.stats = stats if stats is not None else ReadStats()
        self._calls = 0
        self._width: int | None = None

    def parse(self, text: str) -> list[TranscriptEvent]:
        raw = [line.replace("\xa0", " ") for line in text.splitlines()]
        lines = [line.rstrip() for line in raw]
        self.stats.lines_read += sum(1 for line in lines if line.strip())
        self._width = text_width(lines)
        events: list[TranscriptEvent] = []
        for block in _blocks(lines):
            self.stats.by_type[block.kind] += 1
            if block.kind == "prompt":
                events += self._prompt(block, raw)
            elif block.kind == "item":
                events += self._item(block)
            elif block.kind == "compact":
                parts = block.split()[1]
                _, interrupted = _result(parts)
                events += [CompactBoundary(), *[Interrupt(False)] * interrupted]
                self.stats.meta_lines += len(parts) - interrupted  # files re-attached
        return _manual_compactions(events)

    def _prompt(self, block: _Block, raw: list[str]) -> list[TranscriptEvent]:
        head, parts = block.split()
        typed_lines = raw[block.start : block.start + len(head)]
        typed_lines[0] = _PROMPT.sub("", typed_lines[0], count=1)
        typed = _unwrapped(typed_lines).strip()
        output, interrupted = _result(parts)
        if not typed:
            return []
        if (slash := _SLASH.match(typed)) is not None:
            events: list[TranscriptEvent] = [SlashCommand(slash.group(1), slash.group(2) or "")]
        elif typed.startswith("!"):
            events = [UserShellCommand(typed[1:].strip())]
        else:
            events = [UserPrompt(typed)]
            if output:
                self.stats.synthetic_lines += 1  # an API error the harness printed
            return events + [Interrupt(False)] * interrupted
        if output:
            events.append(CommandOutput(output))
        return events + [Interrupt(False)] * interrupted

    def _item(self, block: _Block) -> list[TranscriptEvent]:
        full, parts = block.split()
        head = [_ITEM.sub("", full[0], count=1), *full[1:]]
        rendered = " ".join(line.strip() for line in head).strip()
        call = self._call(rendered, bool(parts))
        output, interrupted = _result(parts)
        if call is not None:
            return self._with_result(call, output, interrupted)
        text = _reflowed(full, self._width)
        events: list[TranscriptEvent] = [AssistantText(text)] if text else []
        if output.startswith("User rejected Claude's plan"):
            events += self._with_result(self._use("ExitPlanMode", {}), output, False)
        elif output:
            self.stats.meta_lines += 1  # a harness note under the text
        return events + [Interrupt(False)] * interrupted

    def _call(self, rendered: str, has_result: bool) -> ToolUse | None:
        if (mcp := _MCP.match(rendered)) is not None:
            name = f"mcp__{mcp.group('server')}__{mcp.group('tool')}"
            return self._use(name, _args(mcp.group("args").removesuffix(")"), "input"))
        if (m := _CALL.match(rendered)) is not None and (m.group("name") in TOOLS or has_result):
            name, field_name = TOOLS.get(m.group("name"), (m.group("name"), "input"))
            return self._use(name, _args(m.group("args").removesuffix(")"), field_name))
        if rendered in RENDERED:
            return self._use(RENDERED[rendered], {})
        if _AGENTS.match(rendered):
            return self._use("Task", {"description": rendered})
        return None

    def _use(self, name: str, tool_input: dict[str, Any]) -> ToolUse:
        self._calls += 1
        return ToolUse(f"export-{self._calls}", name, tool_input)

    def _with_result(self, use: ToolUse, output: str, interrupted: bool) -> list[TranscriptEvent]:
        """The call, its result, and an ``Interrupt``: during the call when it left no output
        (its result is then the interruption, as an error), after it otherwise."""
        if use.name == "Write" and not use.input and (path := _PLAN_PATH.search(output)):
            use = replace(use, input={"file_path": path.group(1)})  # the plan file
        events: list[TranscriptEvent] = [use]
        if output:
            is_error = output.startswith(("Error", "User rejected"))
            events.append(ToolResult(use.tool_use_id, output, is_error))
        elif interrupted:
            events.append(ToolResult(use.tool_use_id, _INTERRUPTED, True))
        return events + [Interrupt(not output)] * interrupted


def _manual_compactions(events: list[TranscriptEvent]) -> list[TranscriptEvent]:
    """A compaction whose next typed input is ``/compact`` was the person's (``manual``)."""
    out = list(events)
    for i, ev in enumerate(out):
        if not isinstance(ev, CompactBoundary):
            continue
        for nxt in out[i + 1 :]:
            if isinstance(nxt, SlashCommand | UserPrompt | AssistantText | ToolUse):
                if isinstance(nxt, SlashCommand) and nxt.name == "compact":
                    out[i] = replace(ev, trigger="manual")
                break
    return out


def parse_export(text: str, stats: ReadStats | None = None) -> list[TranscriptEvent]:
    """All events of an export's text (``stats`` collects the counts)."""
    return ExportParser(stats).parse(text)


__all__ = ["FORMAT", "RENDERED", "TOOLS", "ExportParser", "looks_like_export", "parse_export"]
