"""The tool digest: one line per tool call for what a probe reads ("Edit src/app.py (adds
parse_row) | ids: Row, parse_row"), with the key identifiers the work keeps coming back to, and
the question the agent asked through AskUserQuestion as it would have written it. Deterministic,
from the tool event alone; redacted again on the way out (a digest line joins texts)."""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.core.hook_event import FILE_TOOLS as _FILE_TOOLS
from rolling_graph.nlp.bounded import count_words
from rolling_graph.observe.tool_events import DEFINES as _DEFINES
from rolling_graph.observe.tool_events import edit_text as _edit_text
from rolling_graph.observe.tool_events import error_type as _error_type
from rolling_graph.observe.tool_events import is_error as _is_error
from rolling_graph.observe.tool_events import short_path as _rel
from rolling_graph.privacy.redact.secrets import redact

_MAX_DIGEST = 200
_MAX_IDS = 20  # identifiers named after a tool line: the ones the work keeps coming back to
_MAX_IDS_CHARS = 400
_MAX_SCAN = 6_000  # characters of an edit scanned for identifiers (a cost bound: ~2 ms)
_IDS_SEP = " | ids: "
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# Keywords and shell words a definition pattern or the identifier rules can catch.
_KEYWORDS = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "for",
        "while",
        "in",
        "case",
        "esac",
        "return",
        "true",
        "false",
        "and",
        "or",
        "not",
        "None",
        "self",
        "this",
        "new",
        "let",
        "var",
        "const",
        "def",
        "end",
        "nil",
        "null",
    ]
)


def key_identifiers(text: str) -> list[str]:
    """The identifiers a piece of code or a command is about, most telling first: names it
    defines, then dotted modules and code identifiers (the code patterns of the gate's rule
    layer, read from the characters: :func:`rolling_graph.nlp.text_entities`) by how often
    they occur. Plain words, flags and literals are left out."""
    from rolling_graph import nlp

    text = text[:_MAX_SCAN]
    if not text.strip():
        return []
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    names: dict[str, int] = {}  # proper names and acronyms of prose (docs, comments, messages)
    for ent in nlp.text_entities(text):
        if ent.kind in ("proper", "acronym") and re.fullmatch(r"[A-Z][A-Za-z0-9]{2,30}", ent.text):
            names.setdefault(ent.text, ent.start)
            continue
        if ent.kind not in ("identifier", "module"):
            continue
        # spaCy's span alignment can drag in call syntax: keep the name itself.
        m = _NAME.match(ent.text.lstrip("@:`'\"("))
        name = m.group(0) if m else ""
        if len(name) < 3 or name in _KEYWORDS or "REDACTED" in name:
            continue
        first.setdefault(name, ent.start)
    for name in first:
        counts[name] = count_words(text, name, left=".")
    defined = [
        m.group(1)
        for m in _DEFINES.finditer(text)
        if len(m.group(1)) >= 3 and m.group(1) not in _KEYWORDS
    ]
    ranked = list(dict.fromkeys(defined))
    ranked += sorted((n for n in first if n not in ranked), key=lambda n: (-counts[n], first[n], n))
    # Names a written text repeats (Twilio, JWT in a security doc) come after the code names;
    # once is not enough: title-case words open table cells and list items too.
    prose = [
        n
        for n in names
        if n not in ranked
        and n.lower() not in _KEYWORDS
        and count_words(text, n, left=".-", right="-") >= 2
    ]
    ranked += sorted(prose, key=lambda n: names[n])
    return ranked[:_MAX_IDS]


def _with_ids(line: str, ids: list[str]) -> str:
    out: list[str] = []
    size = 0
    for name in ids:
        if size + len(name) + 2 > _MAX_IDS_CHARS:
            break
        out.append(name)
        size += len(name) + 2
    return line + _IDS_SEP + ", ".join(out) if out else line


def tool_digest(
    tool_name: str, tool_input: dict[str, Any], response: Any, cwd: str | None = None
) -> str:
    """One short, redacted line per tool call: ``Edit src/app.py | ids: load_config, Settings``,
    ``Bash: pytest -q (error: KeyError)``. Edits and writes carry the key identifiers of the
    code they wrote (bounded), since those are what the work after a compaction names again."""
    inp = tool_input if isinstance(tool_input, dict) else {}
    path = inp.get("file_path") or inp.get("notebook_path") or inp.get("path")
    ids: list[str] = []
    if tool_name in _FILE_TOOLS and isinstance(path, str):
        line = f"{tool_name} {_rel(path, cwd)}"
        if tool_name != "Read":
            ids = key_identifiers(_edit_text(tool_name, inp))
    elif tool_name == "Bash" and isinstance(inp.get("command"), str):
        cmd = " ".join(inp["command"].split())
        if cwd and len(cwd) > 1:  # project paths relative, as for file tools
            cmd = cmd.replace(cwd.rstrip("/") + "/", "")
        line = "Bash: " + cmd
    elif isinstance(inp.get("pattern"), str):
        line = f"{tool_name} {inp['pattern']}" + (
            f" in {_rel(path, cwd)}" if isinstance(path, str) else ""
        )
    else:
        first = next(
            (
                v
                for k, v in inp.items()
                if isinstance(v, str) and k in ("url", "query", "description", "prompt", "skill")
            ),
            "",
        )
        line = f"{tool_name}: {' '.join(first.split())}" if first else tool_name
    line = line[:_MAX_DIGEST]
    if _is_error(response):
        kind = _error_type(response)
        line += f" (error: {kind})" if kind else " (error)"
    return redact(_with_ids(line, ids))


def asked_text(tool_input: Any) -> str:
    """What the agent asked through AskUserQuestion, as it would have written it: the first
    question with its options numbered, so that a reply typed instead ("2") picks option 2."""
    qs = tool_input.get("questions") if isinstance(tool_input, dict) else None
    if not isinstance(qs, list) or not qs or not isinstance(qs[0], dict):
        return ""
    first = qs[0]
    lines = [str(first.get("question") or "").strip()]
    for i, opt in enumerate(first.get("options") or [], 1):
        if isinstance(opt, dict) and opt.get("label"):
            desc = str(opt.get("description") or "").strip()
            lines.append(f"{i}. {opt['label']}" + (f" — {desc}" if desc else ""))
    return "\n".join(lines) if len(lines) >= 3 else ""
