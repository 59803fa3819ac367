"""Is a remembered file or symbol still true? Checked against the work tree when a block that
follows a lost context (a new session's "where we left off", a compaction's) is rendered.

A resumed agent trusts what its memory names; a function deleted or a file moved since the
session that learned it would send it looking for what is gone (issue 30; GitHub Copilot's
memory checks each memory's code citation against the current code before using it). So, for
technical nodes anchored in the work tree:

* a file node (``kind == "file"``, its label a path relative to the project) still exists; if
  not, git may say it was renamed (a committed or staged rename): then it is shown under its
  new path, "lib/b.py (renamed since from a.py)", else as "src/a.py (removed since)";
* a symbol an edit defined (an ``entity`` whose summary says "defined in <file>", as the
  observers write it) is still defined there, by the same definition patterns that found it,
  in a bounded read of the file; an identifier linked ``part-of`` a file by the probe only
  needs to still appear in it. If not, it is left out.

Cheap and bounded: one ``stat`` per file, one read of at most ``MAX_READ`` bytes per file,
git only when a file is missing, and a deadline (``Settings.freshness_budget_ms``) after which
the rest stays as it was, counted as unchecked. What was checked is reported (``render
--why``). A node that cannot be resolved (outside the project, a shortened path) is left as is.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolling_graph.core.project import git_env

MAX_READ = 512 * 1024  # bytes of one file read to find a definition
MAX_ANCHORS = 80  # nodes checked at most per block
REMOVED = "removed since"
_DEFINED_IN = re.compile(r"^defined in (?P<path>\S+) \(turn \d+\)")
_IDENT = re.compile(r"[A-Za-z_][\w.]*\w")


@dataclass
class Freshness:
    """What the check found: notes for nodes to mark, ids to leave out, and the figures."""

    removed: set[str] = field(default_factory=set)  # file nodes whose file is gone
    renamed: dict[str, str] = field(default_factory=dict)  # file node id -> new relative path
    gone: set[str] = field(default_factory=set)  # symbol nodes no longer defined: left out
    stale_labels: set[str] = field(default_factory=set)  # names a block must not repeat
    checked: int = 0
    unchecked: int = 0  # anchors left as they were when the deadline passed
    elapsed_ms: float = 0.0
    budget_ms: int = 0

    @property
    def stale(self) -> bool:
        return bool(self.removed or self.renamed or self.gone)

    def label(self, nid: str, label: str) -> str:
        """The label to show: a renamed file under its new path (the old name, without its
        directory, in the note: a shortened path keeps its last parts), a removed one marked."""
        if nid in self.renamed:
            old = label.rstrip("/").rsplit("/", 1)[-1]
            return f"{self.renamed[nid]} (renamed since from {old})"
        return f"{label} ({REMOVED})" if nid in self.removed else label

    def report(self) -> str:
        """One line for ``render --why``."""
        return (
            f"Checked against the work tree: {self.checked} files and symbols;"
            f" {len(self.removed)} files removed, {len(self.renamed)} renamed,"
            f" {len(self.gone)} symbols no longer defined, {self.unchecked} unchecked"
            f" ({self.elapsed_ms:.0f} ms of {self.budget_ms} ms)."
        )


def _git(root: str, timeout: float, *args: str) -> str:
    try:
        proc = subprocess.run(
            ["git", "-C", root, *args],
            capture_output=True,
            text=True,
            timeout=max(timeout, 0.05),
            env=git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def history(root: str, timeout: float) -> tuple[dict[str, str], set[str]]:
    """(old path -> newest path, deleted paths), as git recorded them: renames and deletions
    of the last 200 commits, then those of the index and the work tree."""
    moved: dict[str, str] = {}
    deleted: set[str] = set()
    log = _git(
        root, timeout, "log", "-M", "--diff-filter=DR", "--name-status", "--format=", "-n200"
    )
    status = _git(root, timeout, "status", "--porcelain")
    pairs = []
    for ln in reversed(log.splitlines()):  # oldest first, so that a→b then b→c gives a→c
        parts = ln.split("\t")
        if parts[0].startswith("R") and len(parts) == 3:
            pairs.append(parts[1:])
        elif parts[0] == "D" and len(parts) == 2:
            deleted.add(parts[1])
    for ln in status.splitlines():
        if ln[:1] == "R" and " -> " in ln:
            pairs.append(ln[3:].split(" -> ", 1))
        elif "D" in ln[:2]:
            deleted.add(ln[3:].strip().strip('"'))
    for pair in pairs:
        old, new = (p.strip().strip('"') for p in pair)
        for k, v in list(moved.items()):
            if v == old:
                moved[k] = new
        moved[old] = new
    return moved, deleted


def _path(label: str, root: Path, cwd: Path) -> Path | None:
    """The file a label names, or None when it cannot be told (a shortened or odd path)."""
    label = label.strip()
    if not label or "…" in label or label.startswith("~") or "\n" in label:
        return None
    p = Path(label)
    if p.is_absolute():
        return p if root in p.parents else None
    return cwd / p


def _read(path: Path, cache: dict[Path, Any]) -> list[Any] | None:
    """[text, whether it was cut, the names it defines (scanned on first need)]: each file is
    read once per check."""
    if path not in cache:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_READ + 1)
        except OSError:
            cache[path] = None
        else:
            cache[path] = [data[:MAX_READ].decode("utf-8", "replace"), len(data) > MAX_READ, None]
    return cache[path]


def defines(
    path: Path, name: str, strict: bool = True, cache: dict[Path, Any] | None = None
) -> bool | None:
    """Whether ``path`` still defines ``name`` (``strict``: by a definition pattern, else it is
    named at all); None when that cannot be told (unreadable, or larger than the bounded read
    and not found in it)."""
    got = _read(path, {} if cache is None else cache)
    if got is None:
        return None
    text, cut, names = got
    if name in text:  # a substring search first: the definition patterns only where it is
        if not strict:
            return True
        if names is None:
            from rolling_graph.observe.tool_events import CONSTANT, DEFINES

            names = got[2] = {m.group(1) for rx in (DEFINES, CONSTANT) for m in rx.finditer(text)}
        if name in names:
            return True
    return None if cut else False


def _symbol_files(nodes: list[Any], edges: Iterable[Any]) -> dict[str, tuple[str, bool]]:
    """symbol node id -> (the label of its file, whether an observer saw it defined there)."""
    labels = {n.id: n.label for n in nodes if getattr(n, "kind", None) == "file"}
    names = {n.id for n in nodes if _IDENT.fullmatch(n.label.strip())}
    out: dict[str, tuple[str, bool]] = {}
    for n in nodes:
        m = _DEFINED_IN.match(n.summary or "") if getattr(n, "kind", None) == "entity" else None
        if m is not None and n.id in names:
            out[n.id] = (m.group("path"), True)
    for e in edges:
        if e.relationship == "part-of" and e.target in labels and e.source in names:
            out.setdefault(e.source, (labels[e.target], False))
    return out


def _recency(node: Any) -> float:
    """A hot node's turn or a warm node's last sighting, as one sortable number."""
    seen = getattr(node, "last_seen", None)
    if seen is not None:
        return float(seen.timestamp())
    return float(getattr(node, "last_activated", 0) or 0)


def isdir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def check(nodes: Iterable[Any], edges: Iterable[Any], cwd: str | None, budget_ms: int) -> Freshness:
    """Check the file and symbol nodes among ``nodes`` (objects with id, label, kind, summary)
    against the work tree at ``cwd``; never raises, never runs past ``budget_ms`` by more
    than one file read or one git call."""
    fresh = Freshness(budget_ms=budget_ms)
    started = time.perf_counter()
    nodes = list(nodes)
    files = _symbol_files(nodes, edges)
    anchors = [n for n in nodes if getattr(n, "kind", None) == "file" or n.id in files]
    # The most recent first: what a block names when the check cannot cover every node.
    anchors.sort(key=_recency, reverse=True)
    anchors = anchors[:MAX_ANCHORS]
    # A work tree that is not here (a transcript replayed from another machine) says nothing.
    if not cwd or budget_ms <= 0 or not anchors or not os.path.isabs(cwd) or not isdir(cwd):
        fresh.unchecked = len(anchors)
        return fresh
    from rolling_graph.core.project import work_tree

    root = work_tree(cwd) or Path(cwd)
    try:
        _run(fresh, anchors, files, root, Path(cwd), started)
    except Exception:  # noqa: BLE001 - a check that fails leaves the block as it was
        fresh.unchecked = len(anchors) - fresh.checked
    stale = fresh.gone | fresh.removed | set(fresh.renamed)
    fresh.stale_labels = {n.label.strip() for n in anchors if n.id in stale}
    fresh.elapsed_ms = (time.perf_counter() - started) * 1000
    return fresh


def _run(
    fresh: Freshness,
    anchors: list[Any],
    files: dict[str, tuple[str, bool]],
    root: Path,
    cwd: Path,
    started: float,
) -> None:
    deadline = started + fresh.budget_ms / 1000
    moved: dict[str, str] | None = None  # asked of git once, when a file is missing
    deleted: set[str] = set()
    cache: dict[Path, Any] = {}
    for i, n in enumerate(anchors):
        left = deadline - time.perf_counter()
        if left <= 0:
            fresh.unchecked = len(anchors) - i
            return
        label, strict = (n.label, True) if n.kind == "file" else files[n.id]
        path = _path(label, root, cwd)
        if path is None:
            continue
        fresh.checked += 1
        if path.exists():
            if n.kind != "file" and defines(path, n.label.strip(), strict, cache) is False:
                fresh.gone.add(n.id)
            continue
        if moved is None:
            moved, deleted = history(str(root), left) if (root / ".git").exists() else ({}, set())
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        new = moved.get(rel)
        # Gone for sure when git saw it go, or its directory is still there; a path that
        # never was in this tree (a shortened one from outside the project) is left as is.
        if new is None and rel not in deleted and not path.parent.is_dir():
            fresh.checked -= 1
            continue
        if n.kind != "file":
            # The symbol's file moved: the symbol is still current if the new file defines it.
            if new is None or defines(root / new, n.label.strip(), strict, cache) is False:
                fresh.gone.add(n.id)
        elif new is not None:
            fresh.renamed[n.id] = os.path.relpath(root / new, cwd).replace(os.sep, "/")
        else:
            fresh.removed.add(n.id)


_ADDED = re.compile(r"(?P<sep>; )?added (?P<names>[^;]+)")  # as observers write it


def _kept_names(m: re.Match[str], gone: set[str]) -> str:
    names = [n for n in m.group("names").split(", ") if n.strip().rstrip("…") not in gone]
    return f"{m.group('sep') or ''}added {', '.join(names)}" if names else ""


def _summary(text: str | None, fresh: Freshness, gone: list[str], moved: dict[str, str]) -> Any:
    """A summary without the names no longer defined ("added a, b" of a file) and with a moved
    file's new path ("defined in <old>")."""
    if not text:
        return text
    if gone:
        text = _ADDED.sub(lambda m: _kept_names(m, set(gone)), text)
    for old, new in moved.items():
        text = text.replace(f"defined in {old} ", f"defined in {new} ")
    return text


def _relabel(nodes: dict[str, Any], fresh: Freshness, update: Any) -> dict[str, Any]:
    gone = [nodes[i].label.strip() for i in fresh.gone if i in nodes]
    moved = {nodes[i].label: new for i, new in fresh.renamed.items() if i in nodes}
    out = {}
    for nid, n in nodes.items():
        if nid in fresh.gone:
            continue
        label = fresh.label(nid, n.label)
        summary = _summary(n.summary, fresh, gone, moved)
        attrs = n.attrs
        if attrs and attrs.get("added") and gone:  # the names a file's edits added
            added = _summary("added " + attrs["added"], fresh, gone, {})
            attrs = (
                {**attrs, "added": added[len("added ") :]}
                if added
                else {k: v for k, v in attrs.items() if k != "added"}
            )
        if label != n.label or summary != n.summary or attrs != n.attrs:
            n = update(n, label=label, summary=summary, attrs=attrs)
        out[nid] = n
    return out


def fresh_graph(graph: Any, fresh: Freshness) -> Any:
    """A view of a hot graph to render: symbols no longer defined left out (with their edges
    and their names in summaries), removed and renamed files relabelled. The session's graph
    itself is not changed."""
    if not fresh.stale:
        return graph
    nodes = _relabel(graph.nodes, fresh, lambda n, **kw: n.model_copy(update=kw))
    edges = {k: e for k, e in graph.edges.items() if e.source in nodes and e.target in nodes}
    return type(graph).model_construct(
        session_id=graph.session_id, turn=graph.turn, nodes=nodes, edges=edges
    )


def fresh_resume(data: Any, fresh: Freshness) -> Any:
    """The same for the "where we left off" data (``warm.resume.ResumeData``)."""
    import dataclasses

    if not fresh.stale:
        return data
    everything = {n.id: n for n in (*data.previous, *data.earlier)}
    kept = _relabel(everything, fresh, dataclasses.replace)
    return dataclasses.replace(
        data,
        previous=[kept[n.id] for n in data.previous if n.id in kept],
        earlier=[kept[n.id] for n in data.earlier if n.id in kept],
    )
