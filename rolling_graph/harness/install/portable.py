"""The program a hook command runs, per scope. A project's files are shared through the
repository, so when ``rolling-graph`` on this machine's PATH is this very program, they name
it bare (``rolling-graph hook``), as every teammate's PATH finds it; otherwise they name this
environment's absolute paths (the hook client at the interpreter floor, ``python -I -S``), and
the install says so with the fix (put it on PATH, install again). User and local scope always
name absolute paths (they work whatever PATH the client starts hooks with). Standard library
only."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

PROGRAM = "rolling-graph"
SHARED_SCOPES = ("project",)


def this_program() -> Path:
    return Path(sys.executable).parent / PROGRAM


def on_path_is_this() -> bool:
    """Whether ``rolling-graph`` on PATH is this environment's console script."""
    found = shutil.which(PROGRAM)
    if found is None:
        return False
    mine = this_program()
    try:
        return not mine.exists() or Path(found).resolve() == mine.resolve()
    except OSError:
        return False


def scope_executable(scope: str) -> str | None:
    """The executable to write for ``scope``: the bare name for a shared scope when PATH
    finds this program, else None (the installers' default: the absolute path)."""
    return PROGRAM if scope in SHARED_SCOPES and on_path_is_this() else None


def path_note(scope: str) -> str | None:
    """A line for the install output when a shared scope's files had to name this machine's
    absolute path."""
    if scope not in SHARED_SCOPES or on_path_is_this():
        return None
    found = shutil.which(PROGRAM)
    where = f"PATH finds {found}, not this one" if found else "rolling-graph is not on PATH"
    return (
        f"note: the project's files name paths of this machine ({where}): teammates cannot run "
        f"them; put {this_program().parent} on PATH (or `pipx install rolling-graph`) and install "
        "again to write the portable `rolling-graph`"
    )
