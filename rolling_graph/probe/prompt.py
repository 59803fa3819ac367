"""Probe prompts as versioned files (``rolling_graph/prompts/probe.v1.md``), rendered strictly.

The prompt id is the file stem (``probe.v1``) and its hash the sha256 of the template text; both
go into the audit log with every patch, so a graph can always be traced to the exact prompt.
Templates use ``string.Template`` (``$name``) and a missing variable is an error, never a silent
blank. The prompts are package data, shipped once and read through :mod:`importlib.resources`,
so an installed wheel and a checkout read the same files.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from rolling_graph.core.model import DOMAINS, KINDS
from rolling_graph.probe.base import ProbeError, ProbeRequest, TurnDigest

DEFAULT_PROMPT = "probe.v3"
#: the line that ends a template's static prefix (v3 on): the bytes above it never change
#: between calls, so the backends send them first and mark them for prompt caching
STATIC_END = "<!-- static prefix ends"

# Budgets (characters) for what we send: the probe is meant to be cheap (Haiku class).
TURNS_BUDGET = 12_000
USER_MAX = 2_000
ASSISTANT_MAX = 1_200
TOOLS_MAX = 12
GRAPH_NODES_MAX = 60
GRAPH_EDGES_MAX = 40


class PromptError(ProbeError):
    """A prompt file is missing or a template variable was not supplied."""


@dataclass(frozen=True)
class Prompt:
    id: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def render(self, **variables: Any) -> str:
        """Substitute ``$name`` variables; a missing one raises :class:`PromptError`."""
        try:
            return string.Template(self.text).substitute({k: str(v) for k, v in variables.items()})
        except KeyError as err:
            raise PromptError(f"prompt {self.id}: missing variable {err.args[0]!r}") from None
        except ValueError as err:  # a stray "$" in the template
            raise PromptError(f"prompt {self.id}: bad placeholder: {err}") from None


def _prompt_files() -> Traversable:
    return resources.files("rolling_graph").joinpath("prompts")


def prompt_ids() -> list[str]:
    """The ids (file stems) of the prompts the package ships, sorted."""
    return sorted(
        f.name.removesuffix(".md") for f in _prompt_files().iterdir() if f.name.endswith(".md")
    )


@lru_cache(maxsize=16)
def load_prompt(prompt_id: str = DEFAULT_PROMPT) -> Prompt:
    res = _prompt_files().joinpath(f"{prompt_id}.md")
    if not res.is_file():
        known = ", ".join(prompt_ids())
        raise PromptError(f"no prompt {prompt_id!r} in rolling_graph/prompts/ (known: {known})")
    return Prompt(prompt_id, res.read_text(encoding="utf-8"))


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, keeping head and tail (the ask is often at the end)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = int(limit * 0.6)
    tail = max(0, limit - head - 3)
    return text[:head].rstrip() + " … " + text[len(text) - tail :].lstrip()


def format_turns(turns: list[TurnDigest], budget: int = TURNS_BUDGET) -> str:
    """Newest turns first get the budget; older ones are dropped when it runs out."""
    blocks: list[str] = []
    used = 0
    for t in reversed(turns):
        lines = [f"### Turn {t.turn}"]
        if t.user:
            lines.append("User: " + clip(t.user, USER_MAX))
        if t.tools:
            shown = t.tools[-TOOLS_MAX:]
            more = len(t.tools) - len(shown)
            lines.append(
                "Tools: "
                + "; ".join(clip(x, 160) for x in shown)
                + (f" (+{more} more)" if more else "")
            )
        if t.assistant:
            lines.append("Assistant: " + clip(t.assistant, ASSISTANT_MAX))
        block = "\n".join(lines)
        if blocks and used + len(block) > budget:
            blocks.append(f"({len(turns) - len(blocks)} older turns left out)")
            break
        blocks.append(clip(block, budget))
        used += len(block)
    return "\n\n".join(reversed(blocks)) or "(no turns)"


def format_graph(req: ProbeRequest) -> str:
    """Compact view: the heaviest nodes (focus first), then the edges among them."""
    if not req.nodes:
        return "(empty graph)"
    ranked = sorted(req.nodes, key=lambda n: (not n.focus, -n.weight, -n.last_activated, n.id))
    shown = ranked[:GRAPH_NODES_MAX]
    ids = {n.id for n in shown}
    lines = []
    for n in shown:
        mark = "*" if n.focus else " "
        alias = f" (aka {', '.join(n.aliases[:3])})" if n.aliases else ""
        retired = " [superseded]" if n.superseded else ""
        lines.append(
            f"{mark} {n.id} | {n.label}{alias} | {n.domain} | {n.kind or '-'} | {n.weight:.2f}{retired}"
        )
    if len(req.nodes) > len(shown):
        lines.append(f"  ({len(req.nodes) - len(shown)} lighter nodes not shown)")
    edges = [e for e in req.edges if e[0] in ids and e[2] in ids][:GRAPH_EDGES_MAX]
    if edges:
        lines.append("")
        lines.extend(f"  {s} --{r}--> {t}" for s, r, t in edges)
    return "\n".join(lines)


def format_triggers(triggers: list[dict[str, Any]]) -> str:
    if not triggers:
        return "(none recorded)"
    parts = []
    for t in triggers:
        words = ", ".join(str(w) for w in t.get("words", [])[:5])
        parts.append(f"{t.get('name', '?')}" + (f" ({words})" if words else ""))
    return "; ".join(parts)


def render_probe_parts(req: ProbeRequest, prompt: Prompt | None = None) -> tuple[Prompt, str, str]:
    """(prompt, static prefix, variable part). The prefix is byte-identical across calls
    (instructions, rules, examples); without a :data:`STATIC_END` line it is empty."""
    prompt = prompt or load_prompt(req.prompt_id or DEFAULT_PROMPT)
    variables = {
        "turn": req.turn,
        "triggers": format_triggers(req.triggers),
        "domains": ", ".join(DOMAINS),
        "kinds": ", ".join(KINDS),
        "relationships": ", ".join(sorted(req.relationships)),
        "max_ops": req.max_ops,
    }
    if "$graph_slice" in prompt.text:  # v3: a focused slice and tight turns (probe.focus)
        from rolling_graph.probe.focus import format_graph_slice, format_recent

        variables.update(graph_slice=format_graph_slice(req), recent=format_recent(req))
    else:
        variables.update(graph=format_graph(req), turns=format_turns(req.turns))
    text = prompt.render(**variables)
    head, marker, tail = text.partition(STATIC_END)
    if not marker:
        return prompt, "", text
    return prompt, head.rstrip() + "\n", tail.split("\n", 1)[-1].strip() + "\n"


def render_probe_prompt(req: ProbeRequest, prompt: Prompt | None = None) -> tuple[Prompt, str]:
    """The whole prompt as one text (backends without a separate static prefix)."""
    prompt, static, variable = render_probe_parts(req, prompt)
    return prompt, (static + "\n" + variable) if static else variable
