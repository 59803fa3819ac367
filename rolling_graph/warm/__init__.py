"""The warm graph: persistent memory across sessions (DESIGN §6).

``open_store(url, home)`` picks the backend from a URL:

- ``None`` or ``""``            → SQLite at ``<home>/warm.sqlite3`` (the zero-set-up default)
- ``sqlite:///abs/path.db``     → SQLite at ``/abs/path.db`` (like ``file:///``);
  ``sqlite:rel/path.db``        → SQLite relative to ``home``; ``sqlite:///:memory:`` → private
- ``postgresql://…``/``postgres://…`` (or a libpq ``key=value`` string) → PostgreSQL

Backends are imported only when chosen, so importing this package stays cheap and never
imports psycopg.

May import: core, config, paths.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from rolling_graph.warm.base import (
    DraftError,
    WarmStore,
    WarmStoreError,
    WarmStoreUnavailable,
)
from rolling_graph.warm.merge import (
    DEFAULT_PARAMS,
    MergeParams,
    effective_weight,
    make_batch,
    merge_edge,
    merge_node,
    prepare_batch,
    warm_decay,
)
from rolling_graph.warm.records import (
    DEFAULT_SCOPE,
    GraduationCandidate,
    GraduationDraft,
    HotEdge,
    HotNode,
    MergeBatch,
    MergeResult,
    ReconciliationRecord,
    WarmBranches,
    WarmCounts,
    WarmEdge,
    WarmNode,
)

DEFAULT_SQLITE_NAME = "warm.sqlite3"

__all__ = [
    "DEFAULT_PARAMS",
    "DEFAULT_SCOPE",
    "DraftError",
    "GraduationCandidate",
    "GraduationDraft",
    "HotEdge",
    "HotNode",
    "MergeBatch",
    "MergeParams",
    "MergeResult",
    "ReconciliationRecord",
    "WarmBranches",
    "WarmCounts",
    "WarmEdge",
    "WarmNode",
    "WarmStore",
    "WarmStoreError",
    "WarmStoreUnavailable",
    "effective_weight",
    "make_batch",
    "merge_edge",
    "merge_node",
    "open_store",
    "prepare_batch",
    "sqlite_path",
    "warm_decay",
]


def sqlite_path(url: str | None, home: Path) -> str | None:
    """The SQLite file a URL names, or ``None`` when the URL is not a SQLite one."""
    if not url or not url.strip():
        return str(Path(home).expanduser() / DEFAULT_SQLITE_NAME)
    url = url.strip()
    if not url.lower().startswith("sqlite:"):
        return None
    rest = url[len("sqlite:") :]
    if rest.startswith("//"):
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"a sqlite URL has no host: {url!r}")
        path = unquote(parts.path)
        if path in ("/:memory:", ":memory:"):
            return ":memory:"
        if not path or path == "/":
            raise ValueError(f"sqlite URL without a path: {url!r}")
        # sqlite:///abs and sqlite:////abs both mean /abs
        return "/" + path.lstrip("/")
    if rest == ":memory:":
        return ":memory:"
    path = Path(unquote(rest)).expanduser()
    return str(path if path.is_absolute() else Path(home).expanduser() / path)


def check_url(url: str | None, home: Path) -> None:
    """Raise ``ValueError`` for a warm store URL no store understands (before any work)."""
    if sqlite_path(url, home) is not None:
        return
    assert url is not None
    lowered = url.strip().lower()
    if not (
        lowered.startswith(("postgresql://", "postgres://"))
        or ("=" in lowered and "://" not in lowered)
    ):
        raise ValueError(
            f"unsupported warm store URL scheme: {url.split(':', 1)[0]!r}; use sqlite:///PATH "
            "or postgresql://…"
        )


def open_store(
    url: str | None,
    home: Path,
    *,
    params: MergeParams | None = None,
    schema: str | None = None,
    migrate: bool = True,
    batch: bool = False,
) -> WarmStore:
    """Open (and by default migrate) the warm store named by ``url``.

    ``schema`` is the PostgreSQL schema to keep the tables in (ignored for SQLite); ``batch``
    (a replay's many flushes) leaves SQLite's WAL checkpoint to the store's close.
    Raises ``WarmStoreUnavailable`` when the store cannot be reached, so that the caller
    can queue the flush in its outbox; ``ValueError`` for a URL it does not understand.
    """
    path = sqlite_path(url, home)
    store: WarmStore
    if path is not None:
        from rolling_graph.warm.sqlite import SQLiteWarmStore

        store = SQLiteWarmStore(path, params=params, batch=batch)
    else:
        assert url is not None
        check_url(url, home)
        from rolling_graph.warm.postgres import PostgresWarmStore

        store = PostgresWarmStore(url.strip(), schema=schema, params=params)
    store.open()
    if migrate:
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
    return store
