"""Installs that leave no trace: one backup per file, byte-for-byte restores, no leftovers.

Every installer writes through :func:`rolling_graph.harness.install.claude_code.write_text`, which backs a
file up once, before rolling-graph first changes it, as ``<name>.rolling-graph-backup`` (a file
that did not exist gets no backup). Uninstall then hands the file's new content to
:func:`settle`, which picks the least visible way back:

- nothing but ours was in the file and it had no backup (install created it): delete it, and
  the client folders left empty (``.claude/commands``, ``.codex``, ``.gemini``…);
- the content equals the backup's (nothing else changed since install): move the backup back,
  byte for byte (comments, indentation and key order included);
- someone changed the file since: write the new content and keep the one backup.

Standard library only (the hooks' installers must not pull in the package's heavy parts).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

SUFFIX = ".rolling-graph-backup"
# Folders an installer may create (and so may remove once empty): the clients' config folders.
CLIENT_DIRS = frozenset(
    {".claude", "commands", ".codex", ".gemini", ".github", "hooks", ".copilot"}
)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def backup_once(path: Path) -> Path | None:
    """Copy ``path`` aside unless it is absent or already backed up. Returns a new backup."""
    copy = backup_path(path)
    if not path.exists() or copy.exists():
        return None
    shutil.copy2(path, copy)
    return copy


def atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def prune_dirs(folder: Path) -> None:
    """Remove ``folder`` and its parents while they are empty client folders."""
    stops = {Path.home().absolute(), Path.cwd().absolute()}
    folder = folder.absolute()
    while folder.name in CLIENT_DIRS and folder not in stops:
        try:
            folder.rmdir()
        except OSError:  # not empty (or not ours to remove): stop here
            return
        folder = folder.parent


def remove_created(path: Path) -> None:
    """Delete a file rolling-graph created, then the client folders it leaves empty."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    prune_dirs(path.parent)


def settle(
    path: Path, text: str, *, empty: bool, same: Callable[[str], bool]
) -> tuple[str, Path | None]:
    """Put ``path`` back after our entries were taken out; ``text`` is what is left, ``empty``
    says nothing else is in it, ``same(backup_text)`` whether the backup holds the same.

    Returns (what was done: "removed" | "restored" | "written", the backup kept or None)."""
    copy = backup_path(path)
    if copy.exists():
        try:
            original = copy.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            original = None
        if original is not None and same(original):
            os.replace(copy, path)
            return "restored", None
        atomic_write(path, text)
        return "written", copy
    if empty:
        remove_created(path)
        return "removed", None
    atomic_write(path, text)
    return "written", None
