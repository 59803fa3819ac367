"""Rendering and injection: the last step of every event that can carry context.

Injects on SessionStart always (the agent's context was just lost or is new), on the first
context event after a compaction, and on UserPromptSubmit / PostToolUse only when the block
changed meaningfully since the last injection: a different set of surfaced nodes, or changed labels or summaries (weights alone
do not count). Names mentioned in the prompt are activated.

SessionStart gets the full block (breadth: the remaining budget lists what else was recently
active), since the agent's context was just lost; per-prompt and tool injections get the
compact block, since they repeat whenever the block changes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rolling_graph.events import EventContext
from rolling_graph.hookspecs import hookimpl

STATE = "last_block"


def _signature(rendered: Any, graph: Any) -> str:
    # Breadth lines are left out: the full block (SessionStart) and the compact one (prompts)
    # then share a signature, so the first prompt after a start does not repeat the block.
    ids = sorted(
        {
            nid
            for item in rendered.items
            if item.section not in ("count", "breadth")
            for nid in item.node_ids
        }
    )
    parts = [
        f"{nid}:{graph.nodes[nid].label}:{graph.nodes[nid].summary or ''}"
        for nid in ids
        if nid in graph.nodes
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def render_into(
    ctx: EventContext, *, prompt: str = "", force: bool = False, breadth: bool = False
) -> None:
    from rolling_graph.render import render

    sess = ctx.session
    rendered = render(
        sess.graph,
        budget=sess.params.budget,
        prompt=prompt,
        mentions=ctx.mentions,
        focus_size=sess.params.decay.focus_size,
        d_max=sess.params.decay.d_max,
        breadth=breadth,
    )
    if not rendered.text:
        return
    sig = _signature(rendered, sess.graph)
    store = ctx.engine.store
    last = store.read_state(ctx.session_id, STATE, {})
    if not force and last.get("signature") == sig:
        ctx.notes["inject_skipped"] = "unchanged"
        return
    ctx.inject = rendered.text
    ctx.inject_tokens = rendered.tokens
    state = {
        "signature": sig,
        "text": rendered.text,
        "turn": sess.graph.turn,
        "tokens": rendered.tokens,
    }
    store.write_state(ctx.session_id, STATE, state)


@hookimpl(trylast=True)
def session_start(ctx: EventContext, source: str) -> None:
    render_into(ctx, force=True, breadth=True)


@hookimpl(trylast=True)
def pre_compact(ctx: EventContext, trigger: str) -> None:
    """The agent is about to lose the block with the rest of its context: forget that it was
    delivered, so the next event that can carry context brings it back. Claude Code and Codex
    send SessionStart(compact), which injects anyway; Gemini CLI and Copilot CLI (interactive)
    do not, so there it is the next prompt or tool result. The text stays (the hook's fallback)."""
    store = ctx.engine.store
    last = store.read_state(ctx.session_id, STATE, {})
    if last.get("signature"):
        store.write_state(ctx.session_id, STATE, {**last, "signature": ""})


@hookimpl(trylast=True)
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    from rolling_graph.render import find_mentions

    mentioned = find_mentions(ctx.session.graph, prompt)
    if mentioned:
        ctx.mentions = sorted(set(ctx.mentions) | set(mentioned))
        ctx.session.activate(mentioned, strengthen=False, why="mention")
    render_into(ctx, prompt=prompt)


@hookimpl(trylast=True)
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase == "post":
        render_into(ctx)
