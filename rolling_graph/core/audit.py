"""The session's append-only audit log (JSONL): every patch, rejection, decay step and turn.

Every change to a hot graph is recorded here in normalized form, so the graph can be rebuilt
from the log when its JSON file is lost or corrupt.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rolling_graph.paths import open_private


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: dict[str, Any]) -> None:
        self._write(self._line(record))

    @staticmethod
    def _line(record: dict[str, Any]) -> str:
        record.setdefault("time", utc_now())
        return json.dumps(record, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"

    def _write(self, line: str) -> None:
        """Append ``line`` (one record, or several in a row) in one write call."""
        # One write call per record with O_APPEND: concurrent appenders never interleave lines.
        fd = open_private(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        try:
            # A SIGKILL can tear a large write (the kernel stops between pages), leaving a last
            # line with no newline: this record then starts a line of its own, instead of being
            # glued to the torn one and lost with it.
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = "\n" + line
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)

    __call__ = append

    def records_from(self, offset: int) -> list[dict[str, Any]]:
        """Readable records starting at byte ``offset`` (a record boundary written by us)."""
        try:
            with self.path.open("rb") as fh:
                fh.seek(offset)
                data = fh.read()
        except OSError:
            return []
        out = []
        for raw in data.splitlines():
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out

    def records(self, holding: str = "") -> Iterator[dict[str, Any]]:
        """All readable records; a torn last line (crash mid-append) is skipped. With
        ``holding`` (ASCII letters), only those whose line may hold it in a string: the others
        are not parsed (no JSON escape but ``\\u`` makes a letter)."""
        if not self.path.exists():
            return
        word = holding.encode()
        with self.path.open("rb") as fh:
            for raw in fh:
                if word not in raw and b"\\u" not in raw:
                    continue
                try:
                    rec = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if isinstance(rec, dict):
                    yield rec
