"""Which adapter module speaks for which harness. Standard library only (hook path).

An adapter module exposes ``NAME``, ``event_name(payload, hint)``, ``parse_payload(payload,
hint)`` → HookEvent | None (raises ``PayloadError``) and ``format_output(event_name, context)``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini_cli",
    "copilot": "copilot_cli",
}
DEFAULT = "claude-code"


def get(harness: str | None) -> ModuleType:
    """The adapter module for ``harness`` (the default, Claude Code, for ``None``/"")."""
    name = harness or DEFAULT
    if name not in MODULES:
        raise KeyError(f"unknown harness {name!r}; known: {', '.join(MODULES)}")
    return importlib.import_module(f"rolling_graph.harness.adapters.{MODULES[name]}")
