"""What differs between the SQL dialects of the warm store, and the row shapes they share.

Shared statements (:mod:`rolling_graph.warm._queries`) are written once with ``%s`` and
``%(name)s`` placeholders and a few ``{slots}`` filled from a :class:`Dialect`: how a
nullable text parameter is typed, how an anchor is tested, how the weight at a time is
computed in SQL, how times and JSON columns travel. The row readers below turn a row of the
shared column lists into records, whatever the dialect.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rolling_graph.warm.records import GraduationDraft, WarmEdge, WarmNode

#: the columns every read of a node selects (``node_from_row``), in this order
NODE_COLS = (
    "scope, id, label, domain, weight, summary, aliases, kind, anchor, floor,"
    " sessions_seen, first_seen, last_seen, at_floor_since, attrs"
)
NODE_WIDTH = 15
EDGE_COLS = "scope, source, relationship, target, strength, sessions_seen, first_seen, last_seen"
DRAFT_COLS = "scope, node_id, draft, status, final_text, created_at, updated_at, reviewed_at"

_NAMED = re.compile(r"%\((\w+)\)s")


@functools.lru_cache(maxsize=512)
def qmark(query: str) -> str:
    """A ``%s``/``%(name)s`` statement in SQLite's ``?``/``:name`` placeholders."""
    return _NAMED.sub(r":\1", query).replace("%s", "?")


@dataclass(frozen=True)
class Dialect:
    """The pieces of SQL and the value conversions that differ between backends."""

    name: str
    to_db: Callable[[datetime], Any]
    """A UTC time as the database stores it."""
    from_db: Callable[[Any], datetime]
    loads: Callable[[Any], Any]
    """A JSON column's value as Python (text to parse, or already parsed)."""
    text_param: str
    """A text parameter that may be NULL (PostgreSQL must be told its type)."""
    is_anchor: str
    weight_now: str
    """The node's weight at a time (``%s`` now, ``%s`` tau in days), as ``merge.warm_decay``."""
    terms_text: str
    """The normalized terms column as text (for LIKE)."""
    ilike: str
    """Case-insensitive LIKE (SQLite's LIKE already ignores ASCII case)."""
    as_int: str
    """Suffix making a boolean expression an integer."""
    for_update: str
    """Suffix locking the rows a select reads inside a write transaction."""
    sql: Callable[[str], str]
    """A shared statement in this backend's placeholders."""

    def time_or_none(self, value: datetime | None) -> Any:
        return None if value is None else self.to_db(value)

    def from_db_or_none(self, value: Any) -> datetime | None:
        return None if value is None else self.from_db(value)


def node_from_row(row: Sequence[Any], d: Dialect) -> WarmNode:
    return WarmNode(
        scope=row[0],
        id=row[1],
        label=row[2],
        domain=row[3],
        weight=float(row[4]),
        summary=row[5],
        aliases=tuple(d.loads(row[6]) or ()),
        kind=row[7],
        anchor=bool(row[8]),
        floor=float(row[9]),
        sessions_seen=int(row[10]),
        first_seen=d.from_db(row[11]),
        last_seen=d.from_db(row[12]),
        at_floor_since=d.from_db_or_none(row[13]),
        attrs=dict(d.loads(row[14]) or {}),
    )


def edge_from_row(row: Sequence[Any], d: Dialect) -> WarmEdge:
    return WarmEdge(
        scope=row[0],
        source=row[1],
        relationship=row[2],
        target=row[3],
        strength=float(row[4]),
        sessions_seen=int(row[5]),
        first_seen=d.from_db(row[6]),
        last_seen=d.from_db(row[7]),
    )


class Remembered:
    """Records made from rows, kept per store: a row read again unchanged gives back the
    record made last time instead of a new one (a session start reads the same few hundred
    nodes and edges several times, and every session start reads them again). Each hit is
    checked against the whole row, so a changed row is never answered from here. Records
    are frozen and shared: callers make changed copies (``dataclasses.replace``), never
    edit one in place. Bounded: emptied when full."""

    def __init__(self, make: Callable[[Sequence[Any], Dialect], Any], width: int) -> None:
        self.make = make
        self.width = width  # the key: the row's first columns (scope and id, or the edge key)
        self.kept: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}

    LIMIT = 20_000  # rows kept per kind: a few MB at most; when full, the next reads refill it

    def __call__(self, row: Sequence[Any], d: Dialect) -> Any:
        row = tuple(row)
        key = row[: self.width]
        hit = self.kept.get(key)
        if hit is not None and hit[0] == row:
            return hit[1]
        record = self.make(row, d)
        if len(self.kept) >= self.LIMIT:
            self.kept.clear()
        self.kept[key] = (row, record)
        return record


def draft_from_row(row: Sequence[Any], d: Dialect) -> GraduationDraft:
    return GraduationDraft(
        scope=row[0],
        node_id=row[1],
        draft=row[2],
        status=row[3],
        final_text=row[4],
        created_at=d.from_db(row[5]),
        updated_at=d.from_db(row[6]),
        reviewed_at=d.from_db_or_none(row[7]),
    )
