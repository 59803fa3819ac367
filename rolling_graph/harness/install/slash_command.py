"""The ``/graph`` slash command for Claude Code: written by ``install claude-code`` next to the
settings of the chosen scope (``~/.claude/commands/graph.md`` or ``<project>/.claude/commands/``),
removed by ``uninstall``. The plugin layout ships the same file (``hooks/claude-code/commands``).

The command runs ``rolling-graph graph`` with the session id Claude Code substitutes for
``${CLAUDE_SESSION_ID}`` and the slash command's arguments as separate words, so ``/graph``,
``/graph NODE`` and ``/graph view`` all reach one command. Standard library only.
"""

from __future__ import annotations

import os
import tempfile
from importlib import resources
from pathlib import Path

MARK = "<!-- rolling-graph /graph command"
NAME = "graph.md"


def command_path(settings_file: Path) -> Path:
    """``commands/graph.md`` beside a scope's settings file (``.claude/``)."""
    return settings_file.parent / "commands" / NAME


def command_text(executable: str) -> str:
    """The command file, running ``executable`` (quoted when it has spaces)."""
    exe = f'"{executable}"' if " " in executable else executable
    template = (resources.files(str(__package__)) / "graph_command.md").read_text("utf-8")
    return template.replace("{{RG}}", exe)


def is_ours(path: Path) -> bool:
    try:
        return MARK in path.read_text(encoding="utf-8")
    except OSError:
        return False


def install_command(path: Path, executable: str) -> bool:
    """Write (or update) our command file. A file of the same name that is not ours is kept:
    returns False then, and the caller says so."""
    if path.exists() and not is_ours(path):
        return False
    text = command_text(executable)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return True
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return True


def uninstall_command(path: Path) -> bool:
    """Remove our command file (never someone else's). Returns whether one was removed."""
    if path.exists() and is_ours(path):
        from rolling_graph.harness.install.no_trace import remove_created

        remove_created(path)  # and ``commands/`` when it is left empty
        return True
    return False
