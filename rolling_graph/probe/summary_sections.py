"""The sections of a harness's compaction summary, read deterministically.

Claude Code's summary numbers its sections ("7. Pending Tasks:", "8. Current Work:"), pi's
uses markdown headings ("## Next Steps", "### In Progress"); both carry bulleted items. A
section is known by its title (:data:`TITLES`), any other heading ends the one before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Heading title (lower case) → the section it opens. Titles mapped to "" are known sections
# the harvest does not read (they still end the section before them).
TITLES: dict[str, str] = {
    "primary request and intent": "intent",
    "goal": "intent",
    "original request": "intent",
    "pending tasks": "pending",
    "next steps": "pending",
    "remaining tasks": "pending",
    "todo": "pending",
    "current work": "current",
    "in progress": "current",
    "all user messages": "users",
    "user messages": "users",
    "errors and fixes": "errors",
    "errors and fixes made": "errors",
    "key decisions": "decisions",
    "decisions": "decisions",
    "optional next step": "next",
    "constraints & preferences": "constraints",
    "constraints and preferences": "constraints",
    "key technical concepts": "",
    "files and code sections": "",
    "problem solving": "",
    "analysis": "",
    "summary": "",
    "progress": "",
    "done": "",
    "blocked": "",
    "critical context": "",
}
_HEADING = re.compile(
    r"^\s{0,3}(?P<hashes>#{1,4}\s+)?(?:\*\*)?\s*(?:\d{1,2}\.\s+)?(?P<title>[A-Za-z][A-Za-z &/'()-]"
    r"{1,45}?)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$"
)
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*•]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>\S.*)$")
_MARKUP = re.compile(r"\*\*|__|`")
# "None", "Nothing pending", "No explicitly pending tasks": an item that says there are none.
_NONE = re.compile(
    r"^\(?(?:none|nothing|no (?:\w+ )?(?:pending|open|remaining|outstanding))\b", re.IGNORECASE
)


@dataclass
class Sections:
    """What a summary says, by section: items (top-level bullets) and the section's text."""

    items: dict[str, list[str]] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)
    intro: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> list[str]:
        return self.items.get(name, [])


def plain(text: str) -> str:
    """A line without markdown emphasis and code quotes, on one line."""
    return " ".join(_MARKUP.sub("", text).split())


def _heading(line: str) -> str | None:
    """The section a heading line opens ("" for a known heading not read), or None."""
    m = _HEADING.match(line)
    if not m:
        return None
    title = m.group("title").strip().lower()
    if title in TITLES:
        return TITLES[title]
    # Any other markdown heading ends the section before it.
    return "" if m.group("hashes") else None


def _items(lines: list[str]) -> list[str]:
    """Top-level bullets (the section's smallest indent), continuation lines joined."""
    found = [(len(m.group("indent")), i) for i, ln in enumerate(lines) if (m := _ITEM.match(ln))]
    if not found:
        return []
    top = min(indent for indent, _ in found)
    out: list[str] = []
    heading = False  # a top item ending in ":" heads the items under it ("Optional tasks:")
    for indent, i in found:
        m = _ITEM.match(lines[i])
        assert m is not None
        text = plain(m.group("text"))
        if indent == top:
            heading = text.endswith(":")
            if not heading and not _NONE.match(text):
                out.append(text)
        elif heading and not _NONE.match(text):
            out.append(text)
    return [x for x in out if x]


def parse(summary: str) -> Sections:
    """The sections of ``summary`` that the harvest reads."""
    out = Sections()
    current: str | None = None
    body: list[str] = []

    def close() -> None:
        if current:
            out.items.setdefault(current, []).extend(_items(body))
            intro = []  # the paragraph before the section's first bullet
            for ln in body:
                if _ITEM.match(ln) or (intro and not ln.strip()):
                    break
                intro.append(ln.strip())
            if any(intro):
                out.intro.setdefault(current, plain(" ".join(intro)))
            text = plain(" ".join(ln.strip() for ln in body if ln.strip()))
            if text:
                out.text[current] = (out.text.get(current, "") + " " + text).strip()

    for line in summary.splitlines():
        opened = _heading(line)
        if opened is not None:
            close()
            current, body = opened, []
            continue
        body.append(line)
    close()
    return out


def first_sentence(text: str, limit: int = 200) -> str:
    """The first sentence of ``text`` (cut at ``limit``)."""
    m = re.match(r"(.+?[.!?])(?:\s|$)", text)
    first = m.group(1) if m else text
    return first[:limit]
