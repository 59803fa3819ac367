"""Reading a file a person names (a memory file to seed, a transcript to replay): UTF-8, or
UTF-16/32 with a byte-order mark; binary data is refused with one clear line."""

from __future__ import annotations

import codecs
from pathlib import Path

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
SNIFF = 8192


class NotText(ValueError):
    """The file holds binary data (or an encoding we cannot tell)."""


def decode(data: bytes, path: Path | str) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                break
    if b"\x00" not in data[:SNIFF]:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    raise NotText(f"{path} is not a text file (binary data, or an encoding other than UTF-8/16)")


def read_text(path: Path | str) -> str:
    """The file's text (see the module's doc); :class:`NotText` when it is not text."""
    return decode(Path(path).read_bytes(), path)


def not_a_transcript(path: Path) -> str | None:
    """Why ``path`` cannot be a transcript (empty, binary), or None."""
    with open(path, "rb") as fh:
        head = fh.read(SNIFF)
    if not head.strip():
        return "the file is empty: not a transcript"
    if b"\x00" in head:
        return "binary data: not a transcript (give a client's transcript: JSONL, a Claude Code export or an aider history)"
    return None
