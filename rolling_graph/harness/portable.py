"""The program a hook command runs, per scope: a project's files are shared through the
repository, so they name ``rolling-graph`` as every teammate's PATH finds it, never the
absolute path of one person's virtual environment. User and local scope keep this
environment's absolute path (it works whatever PATH the client starts hooks with).
Standard library only."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

PROGRAM = "rolling-graph"
SHARED_SCOPES = ("project",)


def scope_executable(scope: str) -> str | None:
    """The executable to write for ``scope``: the bare name for shared scopes, else None
    (the installers' default: this environment's console script)."""
    return PROGRAM if scope in SHARED_SCOPES else None


def this_program() -> Path:
    return Path(sys.executable).parent / PROGRAM


def path_note(scope: str) -> str | None:
    """A line for the install output when the bare name does not run this program here."""
    if scope not in SHARED_SCOPES:
        return None
    found = shutil.which(PROGRAM)
    mine = this_program()
    if found is None:
        return (
            f"note: the project's hooks run `{PROGRAM}` from PATH, and it is not on this "
            f"machine's PATH: add {mine.parent} to PATH (or `pipx install rolling-graph`)"
        )
    try:
        same = mine.exists() and Path(found).resolve() == mine.resolve()
    except OSError:
        same = False
    if not same and mine.exists():
        return f"note: `{PROGRAM}` on PATH is {found}, not this environment's {mine}"
    return None
