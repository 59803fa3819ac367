"""What a tool event says, read deterministically: the file it touched (relative to the project),
the code an edit wrote, whether it failed and how. Shared by the tool digest (what a probe reads)
and the observers (what enters the graph at once)."""

from __future__ import annotations

import re
from typing import Any

# Names a piece of code defines: def/class/function/defmodule/fn/const… NAME.
DEFINES = re.compile(
    r"\b(?:def|defp|defmodule|defmacro|defstruct|class|function|func|fn|interface|struct|enum|"
    r"trait|impl|type|const|let|var|module|export\s+(?:default\s+)?(?:function|class|const))"
    r"\s+([A-Za-z_][\w.]*[\w])"
)
# Module-level constants: ``MAX_RETRIES = 3``, ``const API_URL =``.
CONSTANT = re.compile(r"^\s*(?:export\s+)?(?:const\s+)?([A-Z][A-Z0-9_]{2,})\s*[:=]", re.M)
ERROR_TYPE = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Failure|Panic))\b")


def rel_path(path: str, cwd: str | None) -> str:
    """Paths relative to the project: shorter, and the same in every session of one repo.

    Windows paths (``c:\\Users\\…``, as Claude Code on Windows records them) compare
    case-insensitively and come back with forward slashes."""
    if not cwd:
        return path
    if "\\" in cwd or "\\" in path:
        p, c = path.replace("\\", "/"), cwd.replace("\\", "/").rstrip("/") + "/"
        return p[len(c) :] if p.lower().startswith(c.lower()) else p
    if path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def short_path(path: str, cwd: str | None) -> str:
    """``rel_path``, and for a path outside the project its last three parts: an absolute
    ``/Users/…`` prefix says nothing the agent needs and costs a dozen tokens a line."""
    rel = rel_path(path, cwd).replace("\\", "/")
    if rel.startswith(("/", "~")) or re.match(r"^[A-Za-z]:/", rel):
        parts = [p for p in rel.split("/") if p]
        return "/".join(parts[-3:]) if len(parts) > 4 else rel
    return rel


def is_error(response: Any) -> bool:
    if isinstance(response, dict):
        return bool(
            response.get("is_error") or response.get("error") or response.get("interrupted")
        )
    return False


def response_text(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        parts = [response.get(k) for k in ("error", "stderr", "stdout", "content", "output")]
        return "\n".join(p for p in parts if isinstance(p, str))
    if isinstance(response, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in response[:5])
    return ""


def error_type(response: Any) -> str:
    """The exception class a failing call reported (``KeyError``), if it names one."""
    m = ERROR_TYPE.search(response_text(response)[:4_000])
    return m.group(1) if m else ""


def edit_text(tool_name: str, inp: dict[str, Any]) -> str:
    """The code an edit writes (then what it replaced): where its identifiers are."""
    if tool_name == "MultiEdit" and isinstance(inp.get("edits"), list):
        chunks = [
            f"{e.get('new_string', '')}\n{e.get('old_string', '')}"
            for e in inp["edits"]
            if isinstance(e, dict)
        ]
        return "\n".join(str(c) for c in chunks)
    parts = [inp.get(k) for k in ("new_string", "content", "new_source", "old_string")]
    return "\n".join(p for p in parts if isinstance(p, str))


def written_and_replaced(tool_name: str, inp: dict[str, Any]) -> tuple[str, str]:
    """(text the edit writes, text it replaces)."""
    if tool_name == "MultiEdit" and isinstance(inp.get("edits"), list):
        edits = [e for e in inp["edits"] if isinstance(e, dict)]
        new = "\n".join(str(e.get("new_string", "")) for e in edits)
        old = "\n".join(str(e.get("old_string", "")) for e in edits)
        return new, old
    new = next(
        (inp[k] for k in ("new_string", "content", "new_source") if isinstance(inp.get(k), str)), ""
    )
    old = inp.get("old_string") if isinstance(inp.get("old_string"), str) else ""
    return new, old


_NOT_NAMES = frozenset(
    [
        "true",
        "false",
        "nil",
        "null",
        "none",
        "self",
        "this",
        "and",
        "for",
        "new",
        "let",
        "var",
        "const",
    ]
)


def defined_names(code: str, limit: int = 8) -> list[str]:
    """Functions, classes, types and constants ``code`` defines, in order of appearance."""
    out: list[str] = []
    for rx in (DEFINES, CONSTANT):
        for m in rx.finditer(code[:20_000]):
            name = m.group(1)
            if len(name) >= 3 and name not in out and name.lower() not in _NOT_NAMES:
                out.append(name)
    return out[:limit]
