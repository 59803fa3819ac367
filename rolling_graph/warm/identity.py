"""Whose memory: the person identity and their own scope, decided without connecting.

The person is ``settings.person`` when configured; otherwise, for a PostgreSQL store, the
database role the connection logs in as, found the way libpq finds it (the DSN's user, then
``PGUSER``, then the OS user); otherwise the OS user. Deciding it offline matters: a flush
that cannot reach the server must still be routed (and queued) under the right scope.

On a team server the role *is* the identity the database enforces (see ``pg_team``): a
configured ``person`` other than the role cannot write its personal scope there.

The project scope of a session (:func:`project_scope`) is the key of its project's warm graph.
"""

from __future__ import annotations

import getpass
import os
import re
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from rolling_graph.core.project import project_key
from rolling_graph.warm.records import DEFAULT_SCOPE, personal_scope

_KEYWORD_USER = re.compile(r"(?:^|\s)user\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")


def os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        return str(os.getuid())


def is_postgres_url(url: str | None) -> bool:
    lowered = (url or "").strip().lower()
    return lowered.startswith(("postgresql://", "postgres://")) or (
        "=" in lowered and "://" not in lowered
    )


def dsn_user(dsn: str) -> str | None:
    """The user a libpq DSN (URL or ``key=value``) names, if any."""
    dsn = dsn.strip()
    if "://" in dsn:
        parts = urlsplit(dsn)
        if parts.username:
            return unquote(parts.username)
        users = parse_qs(parts.query).get("user")
        return users[0] if users else None
    match = _KEYWORD_USER.search(dsn)
    if not match:
        return None
    value = match.group(1)
    if value.startswith("'"):
        value = value[1:-1].replace("\\'", "'").replace("\\\\", "\\")
    return value or None


def person_for(url: str | None, configured: str = "") -> str:
    """The person whose memories this configuration reads and writes."""
    if configured.strip():
        return configured.strip()
    if is_postgres_url(url):
        return dsn_user(url or "") or os.environ.get("PGUSER") or os_user()
    return os_user()


def own_scope(url: str | None, person: str) -> str:
    """The person's own scope: ``~person`` on a shared PostgreSQL store, ``""`` in SQLite
    (a SQLite file is one person's, and ``""`` is where their memories always were)."""
    return personal_scope(person) if is_postgres_url(url) else DEFAULT_SCOPE


def project_scope(
    settings: Any, cwd: str | os.PathLike[str] | None, personal: str = DEFAULT_SCOPE
) -> str:
    """The warm-graph scope of a session: ``ROLLING_GRAPH_PROJECT`` (``project =``) when set,
    else the repository's key (:func:`rolling_graph.core.project.project_key`); outside a
    repository (or without a ``cwd``), ``personal``, the person's own scope."""
    # ``~`` starts personal scopes: a project key never does. Outside a repository
    # project_key gives "", the person's own scope, which is ``personal`` ("~<person>" on a
    # shared PostgreSQL store, where "" would be a scope every teammate reads).
    configured = str(getattr(settings, "project", "") or "").strip().lstrip("~")
    return project_key(cwd, configured) or personal
