"""Warm data keyed the old way (the folder name) moves to the project key, once.

Before :mod:`rolling_graph.core.project`, a project's warm scope was the slug of its folder name.
When a session starts in a project whose key holds nothing yet while the folder-name scope
holds data, that data is adopted (moved, all rows, one transaction): the project keeps its
memory. Unless the old scope is known to mix projects: if any session flushed under it ran
in a folder that is now another project (its cwd, kept in the session's local state,
resolves to a different key), nothing moves, because two repositories that share a folder
name must never share memory. Sessions whose folder is gone or unknown (another machine)
do not block it.

Personal scopes never move, either way: the person's own scope (``""`` in SQLite,
``~<person>`` on a shared PostgreSQL store, see ``warm.identity``) is never adopted into a
project, and a project's rows are never moved into it (outside a repository the session's
scope *is* the own scope: nothing is adopted then).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from rolling_graph.core.project import legacy_project_key, project_key
from rolling_graph.warm.base import WarmStore
from rolling_graph.warm.records import DEFAULT_SCOPE, is_personal_scope

log = logging.getLogger("rolling_graph.warm")


def _personal(scope: str, own: str) -> bool:
    return not scope or scope == own or is_personal_scope(scope)


def adopt_legacy_scope(
    store: WarmStore,
    cwd: str | None,
    key: str,
    cwd_of: Callable[[str], str | None],
    own: str = DEFAULT_SCOPE,
) -> str | None:
    """Move the folder-name scope of ``cwd`` to ``key`` when that is safe; the old scope
    when rows moved, else None. ``cwd_of(session_id)`` is a past session's cwd, if known;
    ``own`` is the person's own scope (never a source or a target)."""
    legacy = legacy_project_key(cwd)
    if _personal(key, own) or _personal(legacy, own) or legacy == key:
        return None
    if store.counts(scope=key).nodes or store.reconciliations(scope=key):
        return None
    sessions = {r.session_id for r in store.reconciliations(scope=legacy)}
    if not sessions:
        return None
    for sid in sorted(sessions):
        other = cwd_of(sid)
        if other and Path(other).exists() and project_key(other) != key:
            log.info("warm scope %r mixes projects (%s ran in %s): not adopted", legacy, sid, other)
            return None
    if store.adopt_scope(legacy, key):
        log.info("warm scope %r adopted as %r", legacy, key)
        return legacy
    return None
