"""What changed in a work tree since a moment: commits and files (git), briefly.

For the "where we left off" block: between two sessions the person (or a colleague) may have
committed, pulled or edited files, and the agent should not assume the tree it remembers.
Bounded: a few git calls with a timeout, a capped number of commits and files; outside a
repository, or when git fails, nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rolling_graph.core.project import git_output, work_tree

MAX_COMMITS = 6
MAX_FILES = 24
MAX_SUBJECT = 72


@dataclass
class Changes:
    commits: list[str] = field(default_factory=list)  # "<short sha> <subject>", newest first
    more_commits: int = 0
    files: list[str] = field(default_factory=list)  # relative to the work tree
    uncommitted: list[str] = field(default_factory=list)  # changed on disk since, not committed

    @property
    def empty(self) -> bool:
        return not (self.commits or self.files or self.uncommitted)


def changes_since(cwd: str | os.PathLike[str] | None, since: datetime | None) -> Changes:
    out = Changes()
    root = work_tree(cwd) if cwd else None
    if root is None or since is None:
        return out
    top = str(root)
    stamp = since.isoformat()
    log = git_output(top, "log", f"--since={stamp}", "--format=%h %s", f"-n{MAX_COMMITS}")
    out.commits = [_brief(ln) for ln in log.splitlines() if ln.strip()]
    if out.commits:
        count = git_output(top, "rev-list", "--count", f"--since={stamp}", "HEAD")
        out.more_commits = max(0, int(count) - len(out.commits)) if count.isdigit() else 0
        names = git_output(
            top, "log", f"--since={stamp}", "--name-status", "-M", "--format=", "-n200"
        )
        out.files = _files(names.splitlines())[:MAX_FILES]
    status = git_output(top, "status", "--porcelain", "--untracked-files=normal", strip=False)
    cutoff = since.timestamp()
    for line in status.splitlines():
        name = line[3:].split(" -> ")[-1].strip().strip('"')
        if name and name not in out.files and _modified_after(root / name, cutoff):
            out.uncommitted.append(name)
            if len(out.uncommitted) >= MAX_FILES:
                break
    return out


def _files(lines: list[str]) -> list[str]:
    """``--name-status`` lines (newest commit first) as the block says them: a rename as
    "old → new" and a deletion marked, so that neither old path reads as a file of the tree
    now; each path once, as its newest change has it."""
    seen: set[str] = set()
    out: list[str] = []
    for line in lines:
        parts = line.strip().split("\t")
        if len(parts) == 3 and parts[0].startswith(("R", "C")):
            paths, text = parts[1:], f"{parts[1]} → {parts[2]}"
        elif len(parts) == 2:
            paths, text = parts[1:], parts[1] + (" (deleted)" if parts[0] == "D" else "")
        else:
            continue
        if not seen.intersection(paths):
            out.append(text)
        seen.update(paths)
    return out


def _brief(line: str) -> str:
    line = line.strip()
    return line if len(line) <= MAX_SUBJECT else line[: MAX_SUBJECT - 1].rstrip() + "…"


def _modified_after(path: Path, cutoff: float) -> bool:
    try:
        return path.stat().st_mtime > cutoff
    except OSError:
        return True  # deleted since: a change


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for n in names:
        if n.strip():
            seen.setdefault(n.strip(), None)
    return list(seen)
