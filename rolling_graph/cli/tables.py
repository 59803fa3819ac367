"""The one table printer of the command line (``replay``, ``eval``, ``stats``, ``sessions``).

``--format`` picks the output: ``auto`` (the default) draws a table fitted to the terminal
when stdout is one, and prints plain aligned text when it is piped; ``plain``, ``tsv``,
``json`` and ``markdown`` force one (``json``: the rows as objects keyed by field name, or
one such list per table title when there are several). A number is never cut: at a narrow terminal the text
columns wrap, then the columns with the highest ``drop`` rank are left out, highest first (the
caption names them); ``plain`` and the others always print every column in full.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click

FORMATS = ("auto", "plain", "tsv", "json", "markdown")
TEXT_MIN = 12  # a text column narrower than this wraps into unreadable slivers
_BORDER = 3  # rich's "│ " + " " around each cell, plus one closing "│" per table

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="auto: a table fitted to the terminal, plain aligned text when piped; "
    "or plain | tsv | json | markdown.",
)


@dataclass(frozen=True)
class Column:
    head: str
    key: str
    numeric: bool = True  # right-aligned, never wrapped nor cut
    drop: int = 0  # at a narrow terminal the highest rank is left out first; 0: always shown
    fmt: Callable[[Any], str] | None = None  # how a value is shown (default: str, "—" for None)

    def cell(self, value: Any) -> str:
        if value is None:
            return "—"
        return self.fmt(value) if self.fmt else str(value)


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]] = field(default_factory=list)
    footer: int = 0  # the last ``footer`` rows are totals (a rule above them)

    def cells(self, columns: Sequence[Column] | None = None) -> list[list[str]]:
        cols = columns or self.columns
        return [[c.cell(r.get(c.key)) for c in cols] for r in self.rows]


def emit(tables: Sequence[Table], fmt: str = "auto") -> None:
    """Print ``tables`` to stdout in ``fmt`` (see the module's doc)."""
    if fmt == "auto":
        fmt = "rich" if sys.stdout.isatty() else "plain"
    if fmt == "json":
        docs = {t.title: [_record(t, r) for r in t.rows] for t in tables}
        doc = docs if len(tables) > 1 else next(iter(docs.values()))
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
        return
    for i, t in enumerate(tables):
        if i:
            click.echo("")
        if fmt == "rich":
            _rich(t)
        else:
            click.echo({"plain": plain, "tsv": tsv, "markdown": markdown}[fmt](t))


def _record(t: Table, row: dict[str, Any]) -> dict[str, Any]:
    return {c.key: row.get(c.key) for c in t.columns}


def plain(t: Table) -> str:
    """Aligned columns, two spaces apart, every value in full."""
    grid = [[c.head for c in t.columns], *t.cells()]
    widths = [max(len(row[i]) for row in grid) for i in range(len(t.columns))]
    lines = [t.title] if t.title else []
    for n, row in enumerate(grid):
        if t.footer and n == len(grid) - t.footer:
            lines.append("  ".join("-" * w for w in widths))
        parts = [
            v.rjust(w) if c.numeric else v.ljust(w)
            for v, w, c in zip(row, widths, t.columns, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def tsv(t: Table) -> str:
    clean = [[v.replace("\t", " ").replace("\n", " ") for v in row] for row in t.cells()]
    return "\n".join("\t".join(row) for row in [[c.head for c in t.columns], *clean])


def markdown(t: Table) -> str:
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|") for v in values) + " |"

    rule = ["---:" if c.numeric else "---" for c in t.columns]
    body = [line([c.head for c in t.columns]), line(rule), *map(line, t.cells())]
    return "\n".join(([f"### {t.title}", ""] if t.title else []) + body)


def fit(t: Table, width: int) -> tuple[list[Column], list[int], list[Column]]:
    """(columns shown, their widths, columns left out): every number whole within ``width``;
    headers wrap at their spaces, text columns take what room is left."""
    cells = t.cells()
    longest = {
        c.key: max((len(row[i]) for row in cells), default=0) for i, c in enumerate(t.columns)
    }
    word = {c.key: max(len(w) for w in c.head.split() or [""]) for c in t.columns}
    need = {
        c.key: max(longest[c.key], word[c.key])
        if c.numeric
        else max(word[c.key], min(longest[c.key], TEXT_MIN))
        for c in t.columns
    }
    shown = list(t.columns)
    dropped: list[Column] = []
    for c in sorted((c for c in t.columns if c.drop), key=lambda c: -c.drop):
        if sum(need[s.key] + _BORDER for s in shown) + 1 <= width:
            break
        shown.remove(c)
        dropped.append(c)
    widths = [need[c.key] for c in shown]
    slack = width - 1 - sum(w + _BORDER for w in widths)
    for i, c in enumerate(shown):  # room left: whole headers first, then longer text
        grow = max(0, (len(c.head) if c.numeric else max(longest[c.key], len(c.head))) - widths[i])
        widths[i] += min(grow, max(slack, 0))
        slack -= min(grow, max(slack, 0))
    return shown, widths, dropped


def _rich(t: Table) -> None:
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console()
    shown, widths, dropped = fit(t, console.width)
    cells = t.cells(shown)
    caption = f"left out at this width: {', '.join(c.head for c in dropped)}" if dropped else None
    rt = RichTable(title=t.title or None, caption=caption)
    for c, w in zip(shown, widths, strict=True):
        head = c.head if len(c.head) <= w else "\n".join(c.head.split())
        rt.add_column(
            head,
            justify="right" if c.numeric else "left",
            width=w,
            no_wrap=c.numeric,
            overflow="fold",
        )
    for n, row in enumerate(cells):
        rt.add_row(*row, end_section=bool(t.footer) and n == len(cells) - t.footer - 1)
    console.print(rt)
