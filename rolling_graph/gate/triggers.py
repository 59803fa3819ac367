"""The gate's trigger rules (DESIGN §3). Each returns the words that made it fire, or [].

Prompt triggers: ``new_entity``, ``domain_shift``, ``decision``, ``correction``, ``dead_man``.
Tool triggers (post-tool events only): ``tool_file`` (a file written for the first time),
``tool_command`` (a command family run for the first time), ``tool_error`` (an error in a
tool response) and ``dead_man_steps``. Tool signals are *collected* on every step but only
turn into a probe request once ``TOOL_MIN_GAP`` steps have passed since the last probe, so
tool activity adds at most one probe per 20 steps; ``dead_man_steps`` fires after
``settings.dead_man_steps`` (25) steps without a probe even if nothing else happened.
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from collections.abc import Iterable
from typing import Any

from rolling_graph.core.hook_event import EDIT_TOOLS
from rolling_graph.gate.state import GateState
from rolling_graph.nlp import DomainScore, Entity

#: Entity kinds that count as "named entities" for the new-entity trigger. Versions and CLI
#: flags are details of something already named; commands are covered by their own words.
ENTITY_KINDS = frozenset(
    {"file", "module", "package", "identifier", "url", "issue", "proper", "person", "acronym"}
)
#: Minimum steps between tool-triggered probes (≤ 1 probe per 20 tool steps).
TOOL_MIN_GAP = 20
#: The domain window must hold this many confident turns before a shift can be detected.
MIN_WINDOW = 2

_ERROR_RE = re.compile(
    r"\b(?:Traceback \(most recent call last\)|(?:[A-Z]\w*)?Error:|FAILED|command not found|"
    r"No such file or directory|Permission denied|fatal:|panic:|Exception\b)"
)


def _entity_variants(ent: Entity) -> set[str]:
    """Forms under which a node may already know this entity (files also by base name)."""
    forms = {ent.norm}
    if ent.kind == "file":
        base = os.path.basename(ent.text.rstrip("/"))
        stem = base.rsplit(".", 1)[0]
        from rolling_graph.core.slug import normalize_term

        forms |= {normalize_term(base), normalize_term(stem)}
    forms.discard("")
    return forms


def new_entities(entities: Iterable[Entity], state: GateState, known: set[str]) -> list[str]:
    """Entities not yet a node label/alias nor seen earlier in the session; remembers them."""
    words: list[str] = []
    for ent in entities:
        if ent.kind not in ENTITY_KINDS:
            continue
        forms = _entity_variants(ent)
        if not (forms & known) and not any(state.knows(f) for f in forms):
            words.append(ent.text)
        for f in forms:
            state.remember(f)
    return words


def domain_shift(score: DomainScore, state: GateState) -> list[str]:
    """The turn's confident domain differs from the dominant domain of the recent window.

    The window holds the last 5 *confident* turn domains (margin ≥ ``DOMAIN_MARGIN``);
    unconfident turns neither shift nor dilute it. A shift needs ``MIN_WINDOW`` entries and a
    strict majority in the window for the old domain."""
    if not score.confident:
        return []
    words: list[str] = []
    window = state.domain_window
    if len(window) >= MIN_WINDOW:
        dominant, count = Counter(window).most_common(1)[0]
        if count * 2 > len(window) and dominant != score.winner:
            words = [f"{dominant}->{score.winner}", *score.words.get(score.winner, ())[:5]]
    state.push_domain(score.winner)
    return words


def dead_man(state: GateState, limit: int) -> list[str]:
    """Fires on the ``limit``-th user turn in a row without a probe (counter already includes
    the current turn)."""
    if limit > 0 and state.turns_since_probe >= limit:
        return [f"{state.turns_since_probe} turns without a probe"]
    return []


# ---------------------------------------------------------------------------------------------
# Tool signals
# ---------------------------------------------------------------------------------------------


def _command_family(command: str) -> str:
    """``git commit -m x`` → ``git commit``; ``cd a && pytest -q`` → ``pytest``."""
    last = re.split(r"&&|\|\||;|\|", command)
    for part in last[::-1]:
        try:
            toks = shlex.split(part, comments=True)
        except ValueError:
            toks = part.split()
        toks = [t for t in toks if "=" not in t or t.startswith("-")]
        if not toks or toks[0] in {"cd", "echo", "sleep", "true", "export"}:
            continue
        head = os.path.basename(toks[0])
        sub = toks[1] if len(toks) > 1 and re.fullmatch(r"[a-z][\w-]*", toks[1]) else ""
        if head in {"python", "python3", "node", "bash", "sh", "uv", "npx"} and sub:
            return f"{head} {sub}"[:60]
        return f"{head} {sub}".strip()[:60]
    return ""


def _response_text(resp: Any, limit: int = 4000) -> str:
    if resp is None:
        return ""
    if isinstance(resp, str):
        return resp[:limit]
    if isinstance(resp, dict):
        parts = [resp.get(k) for k in ("stderr", "error", "stdout", "content", "output")]
        return "\n".join(p for p in parts if isinstance(p, str))[:limit]
    if isinstance(resp, list):
        return "\n".join(_response_text(r, limit) for r in resp[:20])[:limit]
    return ""


def tool_error(tool_response: Any) -> list[str]:
    """An error in a tool response: an explicit error flag or an error line in the output."""
    if isinstance(tool_response, dict):
        if tool_response.get("is_error") is True or tool_response.get("success") is False:
            return ["is_error"]
        if isinstance(tool_response.get("error"), str) and tool_response["error"].strip():
            return [tool_response["error"].strip().splitlines()[0][:80]]
        if tool_response.get("interrupted") is True:
            return ["interrupted"]
    m = _ERROR_RE.search(_response_text(tool_response))
    return [m.group(0)] if m else []


def tool_signals(
    tool_name: str, tool_input: dict[str, Any], tool_response: Any, state: GateState
) -> list[tuple[str, str]]:
    """(signal name, word) pairs for one post-tool step; remembers files and commands."""
    out: list[tuple[str, str]] = []
    path = tool_input.get("file_path") or tool_input.get("notebook_path") or ""
    if isinstance(path, str) and path:
        from rolling_graph.core.slug import normalize_term

        if path not in state.files:
            state.files.append(path)
            del state.files[:-2000]
            if tool_name in EDIT_TOOLS:
                out.append(("tool_file", path))
        state.remember(normalize_term(os.path.basename(path)))
    command = tool_input.get("command")
    if tool_name == "Bash" and isinstance(command, str) and command.strip():
        family = _command_family(command)
        if family and family not in state.commands:
            state.commands.append(family)
            del state.commands[:-500]
            out.append(("tool_command", family))
    for word in tool_error(tool_response):
        out.append(("tool_error", word))
    return out
