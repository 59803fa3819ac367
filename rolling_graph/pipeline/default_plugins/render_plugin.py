"""Rendering and injection: the last step of every event that can carry context.

Injects on SessionStart (the agent's context was just lost or is new; a new conversation
gets the "where we left off" block of ``rolling_graph.render.resume``; a resumed one only
what it does not already have), on the first context event after a compaction, and on
UserPromptSubmit / PostToolUse only when the block changed meaningfully since the last
injection: a different set of surfaced nodes, or changed labels or summaries (weights alone
do not count). Names mentioned in the prompt are activated.

SessionStart gets the full block (breadth: the remaining budget lists what else was recently
active), since the agent's context was just lost; per-prompt and tool injections get the
compact block, since they repeat whenever the block changes.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from rolling_graph.core.signals import inject_record
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.pipeline.hookspecs import EventContext, hookimpl
from rolling_graph.render.memo import RenderMemo

STATE = "last_block"


def _signature(rendered: Any, graph: Any, ask: str = "") -> str:
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
    parts.append(ask)  # the tools the block names: (un)registering them is a change to send
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _names_in_play(ctx: EventContext) -> list[str]:
    from rolling_graph.probe.buffer import peek_buffer
    from rolling_graph.render.in_play import names_in_play

    return names_in_play(peek_buffer(ctx.engine.store, ctx.session_id))


def _mcp_hint(ctx: EventContext) -> bool:
    """Whether the block names the MCP tools, read once per session, at its start: a render
    does not look for the registration again (``install`` while a session runs shows from the
    next SessionStart)."""
    hints: dict[str, bool] = ctx.engine.components.setdefault("mcp_hint", {})
    sid = ctx.session_id
    if ctx.event.kind == "session_start" or sid not in hints:
        from rolling_graph.harness.install.mcp import hint_enabled

        s = ctx.settings
        hints[sid] = hint_enabled(s.mcp_hint, s.home, ctx.event.harness)
    return hints[sid]


_MEMOS = 8  # sessions whose last render is kept (a worker serves a few at a time)


def _memo(ctx: EventContext) -> RenderMemo:
    """This session's :class:`RenderMemo` (the most recently used sessions' only)."""
    memos: OrderedDict[str, RenderMemo] = ctx.engine.components.setdefault(
        "render_memo", OrderedDict()
    )
    memo = memos.pop(ctx.session_id, None) or RenderMemo()
    memos[ctx.session_id] = memo
    while len(memos) > _MEMOS:
        memos.popitem(last=False)
    return memo


def _render(
    ctx: EventContext,
    graph: Any,
    budget: int,
    prompt: str,
    breadth: bool,
    names: list[str],
    ask: str,
) -> Any:
    """The block for ``graph`` now: remembered while nothing it reads has changed."""
    from rolling_graph.render.lod import render

    decay = ctx.session.params.decay
    args = (budget, prompt, tuple(ctx.mentions), decay.focus_size, decay.d_max, breadth)
    args += (tuple(names), ask)
    memo = _memo(ctx)
    rendered = memo.get(graph, args)
    if rendered is None:
        rendered = render(
            graph,
            budget=budget,
            prompt=prompt,
            mentions=ctx.mentions,
            focus_size=decay.focus_size,
            d_max=decay.d_max,
            breadth=breadth,
            in_play=names,
            ask=ask,
        )
        memo.put(graph, args, rendered)
    return rendered


def render_into(
    ctx: EventContext,
    *,
    prompt: str = "",
    force: bool = False,
    breadth: bool = False,
    replace_text: str | None = None,
    budget: int | None = None,
    fresh: Any = None,
) -> None:
    """Render and inject when changed (or ``force``). ``replace_text`` is injected instead of
    the rendered block (the "where we left off" block), while the rendered block's signature
    is kept: the first prompt then repeats nothing the start already said. ``budget`` (default:
    the session's) leaves room for what is injected beside the block. ``fresh``: what the check
    against the work tree found (:mod:`rolling_graph.render.freshness`): the block renders a view of
    the graph without what is gone."""
    from rolling_graph.render.lod import ask_line

    sess = ctx.session
    settings = ctx.settings
    names: list[str] = []
    if breadth:
        # The full block follows a lost context: add what the last turns named.
        names = _names_in_play(ctx)
    graph = sess.graph
    if fresh is not None and fresh.stale:
        from rolling_graph.render.freshness import fresh_graph

        graph = fresh_graph(graph, fresh)
        names = [n for n in names if n not in fresh.stale_labels]
    ask = ask_line(_mcp_hint(ctx), notes=settings.agent_notes)
    rendered = _render(ctx, graph, budget or sess.params.budget, prompt, breadth, names, ask)
    text = rendered.text
    if replace_text:
        # The "where we left off" block names the tools on its first line too.
        head, _, rest = replace_text.partition("\n")
        text = f"{head} {ask}\n{rest}" if ask and ask not in head else replace_text
    if not text:
        return
    sig = _signature(rendered, graph, ask)
    store = ctx.engine.store
    last = store.peek_state(ctx.session_id, STATE, {})
    # After a compaction (``pre_compact``) the agent no longer holds the block: no "unchanged".
    unchanged = last.get("signature") == sig or last.get("text") == text
    if not force and not last.get("compacted") and unchanged:
        ctx.inject_skipped = "unchanged"
        return
    ctx.inject = text
    ctx.inject_tokens = estimate_tokens(text)
    # For `stats`: what this injection surfaced outside the focus (cross-domain links). The
    # "where we left off" block is not the rendered block: it surfaced none of its items.
    record = inject_record(rendered, sess.graph, ctx.event.kind)
    if replace_text:
        record.update(block="resume", surfaced=[], cross_domain=0)
    record["tokens"] = ctx.inject_tokens
    sess.log_event(record)
    state = {"signature": sig, "text": text, "turn": sess.graph.turn, "tokens": ctx.inject_tokens}
    store.write_state(ctx.session_id, STATE, state)


@hookimpl(trylast=True)
def session_start(ctx: EventContext, source: str) -> None:
    # For `stats`: turns from a resume or compaction to the first injection.
    ctx.session.log_event(
        {"type": "session_start", "source": source, "turn": ctx.session.graph.turn}
    )
    # Resumed (``--resume``): the conversation already holds the last block; an identical
    # one would only repeat it. Compaction and clear lost the context: always inject.
    force = source != "resume"
    resume = ctx.resume
    if resume is not None:
        from rolling_graph.render.resume import render_resume

        data, changes = resume
        from rolling_graph.render.freshness import fresh_resume

        fresh = _freshness(ctx, [*data.previous, *data.earlier], data.edges)
        data = fresh_resume(data, fresh)
        text, _ = render_resume(data, changes, budget=ctx.session.params.budget)
        if text:
            render_into(ctx, force=force, breadth=True, replace_text=text)
            return
    graph = ctx.session.graph
    fresh = _freshness(ctx, graph.nodes.values(), graph.edges.values())
    render_into(ctx, force=force, breadth=True, fresh=fresh)


def _freshness(ctx: EventContext, nodes: Any, edges: Any) -> Any:
    """Whether the files and symbols a block after a lost context names are still there
    (:mod:`rolling_graph.render.freshness`), logged for ``stats``."""
    from rolling_graph.render.freshness import check

    # A replay renders the past: today's work tree is not what that session saw.
    budget = 0 if ctx.engine.replay else ctx.settings.freshness_budget_ms
    fresh = check(nodes, edges, ctx.event.cwd, budget)
    if fresh.checked:
        ctx.session.log_event({"type": "freshness", "report": fresh.report()})
    return fresh


@hookimpl(trylast=True)
def pre_compact(ctx: EventContext, trigger: str) -> None:
    """The agent is about to lose the block with the rest of its context: forget that it was
    delivered, so the next event that can carry context brings it back. Claude Code and Codex
    send SessionStart(compact), which injects anyway; Gemini CLI and Copilot CLI (interactive)
    do not, so there it is the next prompt or tool result. The text stays (the hook's fallback)."""
    store = ctx.engine.store
    last = store.peek_state(ctx.session_id, STATE, {})
    if last.get("signature") or last.get("text"):
        store.write_state(ctx.session_id, STATE, {**last, "signature": "", "compacted": True})


def _harness_summary(ctx: EventContext) -> str:
    """The harness's compaction summary, when the transcript read for this event holds one."""
    from rolling_graph.harness.adapters.transcript_feed import event_field, event_kind

    for ev in ctx.transcript_events:
        text = event_field(ev, "text")
        if event_kind(ev) == "CompactSummary" and isinstance(text, str) and text.strip():
            return text
    return ""


def _render_after_event(ctx: EventContext, prompt: str = "") -> None:
    """The per-event block; on the first event that reads the harness's compaction summary,
    with the addendum of what neither that summary nor the blocks the agent holds (the
    compaction block, and this event's if any) say, the two together within the budget."""
    from rolling_graph.render.addendum import SHARE, addendum

    summary = _harness_summary(ctx)
    if not summary:
        render_into(ctx, prompt=prompt)
        return
    held = str(ctx.engine.store.peek_state(ctx.session_id, STATE, {}).get("text") or "")
    room = int(ctx.session.params.budget * SHARE)
    render_into(ctx, prompt=prompt, budget=ctx.session.params.budget - room - 1)
    names = _names_in_play(ctx)
    said = f"{held}\n{ctx.inject or ''}"
    extra = addendum(ctx.session.graph, summary, said, names, room)
    if not extra:
        return
    ctx.inject = f"{ctx.inject}\n{extra}" if ctx.inject else extra
    ctx.inject_tokens = estimate_tokens(ctx.inject)
    turn = ctx.session.graph.turn
    ctx.session.log_event({"type": "addendum", "turn": turn, "tokens": estimate_tokens(extra)})


@hookimpl(trylast=True)
def prompt_submit(ctx: EventContext, prompt: str) -> None:
    from rolling_graph.render.mentions import find_mentions

    mentioned = find_mentions(ctx.session.graph, prompt)
    if mentioned:
        ctx.mentions = sorted(set(ctx.mentions) | set(mentioned))
        ctx.session.activate(mentioned, strengthen=False, why="mention")
    _render_after_event(ctx, prompt)


@hookimpl(trylast=True)
def tool_use(
    ctx: EventContext, tool_name: str, tool_input: dict[str, Any], tool_response: Any, phase: str
) -> None:
    if phase == "post":
        _render_after_event(ctx)
