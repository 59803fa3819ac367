"""Read a Claude Code session transcript (JSONL) and pull out what hooks did.

Shapes seen with Claude Code 2.1.330 (see tests/fixtures/claude_code_payloads/README.md):

* ``{"type": "attachment", "attachment": {"type": "hook_success", "hookName": "SessionStart:startup",
  "hookEvent": "SessionStart", "stdout": ..., "stderr": ..., "exitCode": 0, "command": ...,
  "durationMs": 75, "toolUseID": ...}}`` -- only written when the hook printed something;
* ``{"type": "attachment", "attachment": {"type": "hook_additional_context", "content": [str, ...],
  "hookName": "UserPromptSubmit", "hookEvent": ..., "toolUseID": ...}}``;
* errors use other ``hook_*`` attachment types (``hook_non_blocking_error``, ``hook_blocking_error``,
  ``hook_error_during_execution``, ``hook_cancelled`` ...);
* Stop hooks also leave ``{"type": "system", "subtype": "stop_hook_summary", "hookInfos":
  [{"command", "durationMs"}], "hookErrors": [...], "hookAdditionalContext": [...]}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Line = dict[str, Any]


def find_transcript(home: Path, session_id: str) -> Path:
    """Locate ``$HOME/.claude/projects/<encoded cwd>/<session_id>.jsonl``.

    Why glob: the cwd encoding (``/`` and other non-alphanumerics to ``-``) is an implementation
    detail we need not replicate.
    """
    hits = sorted((home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    if not hits:
        raise FileNotFoundError(f"no transcript for session {session_id} under {home}")
    return hits[0]


def read_transcript(path: Path) -> list[Line]:
    lines: list[Line] = []
    for raw in path.read_text().splitlines():
        raw = raw.strip()
        if raw:
            lines.append(json.loads(raw))
    return lines


@dataclass
class HookRecord:
    """One hook-related transcript record, flattened."""

    kind: str  # attachment type (hook_success, hook_additional_context, ...) or stop_hook_summary
    hook_event: str | None
    hook_name: str | None
    exit_code: int | None = None
    duration_ms: int | None = None
    command: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    contexts: list[str] = field(default_factory=list)
    raw: Line = field(default_factory=dict, repr=False)


def hook_records(lines: list[Line]) -> list[HookRecord]:
    """Every hook record of a transcript, in file order.

    A ``stop_hook_summary`` line yields one record per entry of ``hookInfos`` (durations only).
    """
    out: list[HookRecord] = []
    for line in lines:
        if line.get("type") == "attachment":
            att = line.get("attachment") or {}
            kind = str(att.get("type", ""))
            if not kind.startswith("hook_"):
                continue
            content = att.get("content")
            contexts = [str(c) for c in content] if isinstance(content, list) else []
            out.append(
                HookRecord(
                    kind=kind,
                    hook_event=att.get("hookEvent"),
                    hook_name=att.get("hookName"),
                    exit_code=att.get("exitCode"),
                    duration_ms=att.get("durationMs"),
                    command=att.get("command"),
                    stdout=att.get("stdout"),
                    stderr=att.get("stderr"),
                    contexts=contexts,
                    raw=att,
                )
            )
        elif line.get("type") == "system" and line.get("subtype") == "stop_hook_summary":
            for info in line.get("hookInfos") or []:
                out.append(
                    HookRecord(
                        kind="stop_hook_summary",
                        hook_event="Stop",
                        hook_name="Stop",
                        duration_ms=info.get("durationMs"),
                        command=info.get("command"),
                        contexts=[str(c) for c in line.get("hookAdditionalContext") or []],
                        raw=line,
                    )
                )
    return out


def hook_runs(lines: list[Line]) -> list[HookRecord]:
    """Records that stand for one finished hook process (they carry an exit code)."""
    return [r for r in hook_records(lines) if r.exit_code is not None]


def additional_contexts(lines: list[Line]) -> list[HookRecord]:
    return [r for r in hook_records(lines) if r.kind == "hook_additional_context"]


def hook_durations(lines: list[Line]) -> dict[str, list[int]]:
    """Duration (ms) of each recorded hook run, keyed by hook name (e.g. ``PostToolUse:Bash``)."""
    durations: dict[str, list[int]] = {}
    for r in hook_records(lines):
        if r.duration_ms is not None and r.kind != "stop_hook_summary":
            durations.setdefault(r.hook_name or "?", []).append(int(r.duration_ms))
    return durations
