"""``rolling-graph mcp``: a stdio MCP server through which the agent asks its memory.

Built on the official ``mcp`` SDK (v2, ``MCPServer``), imported only when the server starts.
Every tool call is forwarded to the per-user worker over its Unix socket (op ``recall``,
:mod:`rolling_graph.mcp.recall`), the worker that the hooks feed: one copy of the graph, the same
locks, and a worker started on demand if none is running. This process holds no graph.

Why forward rather than read the files: the worker keeps open sessions in memory and saves
them under its own locks; an expansion must change the weight the next hook renders from, so
it has to happen where the hooks happen.
"""

# No ``from __future__ import annotations``: the SDK reads the tools' annotations at runtime,
# and they name objects imported inside build_server().
import json
import os
import time
from typing import Annotated, Any, Literal

SERVER_NAME = "rolling-graph"
DEFAULT_TIMEOUT_S = 20.0  # a cold worker loads spaCy first (a few seconds)

INSTRUCTIONS = (
    "Rolling memory of this coding session and earlier ones in this project. The injected "
    "'Rolling memory' block is a compressed view; use memory_search to find items by words, "
    "memory_expand to see one in full (this also raises its weight), memory_history for how "
    "a decision changed, memory_sessions for earlier sessions; memory_note records what the "
    "person decides, corrects or asks for."
)


class AskError(Exception):
    """The question could not be answered; the message is for the agent."""


def ask(
    tool: str,
    args: dict[str, Any],
    *,
    cwd: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    session: str = "",
    replaced: bool = False,
) -> dict[str, Any]:
    """One question to the worker (started if absent); ``{"text", "data"}`` or AskError."""
    from rolling_graph.transport.client import replace_older_worker, spawn_worker
    from rolling_graph.transport.protocol import (
        SocketDirError,
        WorkerUnavailable,
        check_socket_dir,
        request,
        worker_files,
    )

    if session and "session" not in args:
        args = {**args, "session": session}
    body = json.dumps(args).encode()
    deadline = time.monotonic() + timeout_s
    try:
        files = worker_files()
        check_socket_dir(files["dir"])
    except (SocketDirError, OSError) as err:
        raise AskError(f"memory unavailable: {err}") from None
    spawned = False
    while True:
        try:
            reply = request(
                "recall",
                body=body,
                deadline=deadline,
                sock_path=files["socket"],
                tool=tool,
                cwd=cwd or os.getcwd(),
            )
            break
        except WorkerUnavailable as err:
            if err.connected or time.monotonic() + 0.05 >= deadline:
                raise AskError(f"the memory worker did not answer in time ({err})") from None
            if not spawned:
                spawned = True
                spawn_worker(files)
            time.sleep(0.05)
    if not reply.get("ok"):
        error = str(reply.get("error") or "the memory worker refused the question")
        if error.startswith("unknown op") and not replaced:
            # A worker from before this package's upgrade: replace it, ask the new one.
            replace_older_worker(files, str(reply.get("version") or "0"))
            return ask(tool, args, cwd=cwd, timeout_s=timeout_s, session=session, replaced=True)
        raise AskError(error)
    result = reply.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("text"), str):
        raise AskError("the memory worker sent an unreadable answer")
    return result


def build_server() -> Any:
    """The MCP server with its four tools (descriptions and JSON schemas for the agent)."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
    from pydantic import Field

    from rolling_graph import __version__
    from rolling_graph.config import load_settings

    settings = load_settings()
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__)
    opts = {"timeout_s": settings.mcp_timeout_s, "session": settings.mcp_session}

    async def call(tool: str, args: dict[str, Any]) -> str:
        args = {k: v for k, v in args.items() if v is not None}
        try:
            result = await anyio.to_thread.run_sync(lambda: ask(tool, args, **opts))
        except AskError as err:
            raise ToolError(str(err)) from None
        return str(result["text"])

    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    Session = Annotated[
        str | None, Field(description="a session id; default: the current session of this project")
    ]

    @server.tool(annotations=read_only, structured_output=False)
    async def memory_search(
        query: Annotated[str, Field(description="a few words to look for", max_length=500)],
        scope: Annotated[
            Literal["session", "project", "all"],
            Field(
                description="session: this session only; project: also earlier sessions "
                "of this project; all: every project"
            ),
        ] = "project",
        limit: Annotated[int, Field(ge=1, le=25, description="at most this many matches")] = 8,
        session: Session = None,
    ) -> str:
        """Search the rolling memory by words: ranked matches (label, id, kind, domain, weight,
        where from, why it matched). Cheap; use memory_expand on an id for the details."""
        return await call(
            "memory_search", {"query": query, "scope": scope, "limit": limit, "session": session}
        )

    @server.tool(structured_output=False)
    async def memory_expand(
        node: Annotated[str, Field(description="node id or label (from the block or a search)")],
        session: Session = None,
    ) -> str:
        """Show one memory item in full: summary, aliases, links, and the recorded reasons
        with turns. Counts as a use: the item's weight rises and it stays in view longer."""
        return await call("memory_expand", {"node": node, "session": session})

    @server.tool(annotations=read_only, structured_output=False)
    async def memory_history(
        subject: Annotated[str, Field(description="a decision or topic, by id, label or words")],
        session: Session = None,
    ) -> str:
        """How a decision changed: the chain of decisions that superseded each other, oldest
        to newest, with turns or sessions and the reasons recorded."""
        return await call("memory_history", {"subject": subject, "session": session})

    @server.tool(annotations=read_only, structured_output=False)
    async def memory_sessions(
        project: Annotated[
            str | None, Field(description="project name; default: this project")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=25, description="at most this many sessions")] = 10,
    ) -> str:
        """Earlier sessions of a project, newest first, with their dates and main tasks."""
        return await call("memory_sessions", {"project": project, "limit": limit})

    _add_note_tool(server, call)
    _add_resources(server, opts)
    return server


def _add_note_tool(server: Any, call: Any) -> None:
    """``memory_note``: the agent writes to its memory (issue 28, :mod:`rolling_graph.mcp.notes`)."""
    from pydantic import Field

    Short = Annotated[str | None, Field(max_length=80)]

    @server.tool(structured_output=False)
    async def memory_note(
        kind: Annotated[
            Literal["decision", "correction", "task", "person", "deadline", "constraint"],
            Field(description="what the person just settled"),
        ],
        text: Annotated[
            str,
            Field(
                description="the decision, correction, task, person's name or constraint, in "
                "the person's terms (one short sentence)",
                max_length=200,
            ),
        ],
        replaces: Annotated[
            str | None,
            Field(description="correction/decision: what it replaces", max_length=200),
        ] = None,
        status: Annotated[
            Literal["pending", "in_progress", "completed", "blocked"] | None,
            Field(description="task: its status"),
        ] = None,
        due: Annotated[Short, Field(description="deadline/task: the date or day")] = None,
        about: Annotated[
            str | None,
            Field(description="deadline/constraint: the task or decision it binds", max_length=200),
        ] = None,
        role: Annotated[Short, Field(description="person: their role or team")] = None,
    ) -> str:
        """Record in the rolling memory what the person decided, corrected (with what it
        replaces), asked for (a task and its status), who is involved, a deadline or a
        constraint, so it survives compaction and later sessions. Only what the person said:
        a decision their words do not hold is kept as your claim. Never notes instructions to
        an agent or secrets (those are refused)."""
        args = {"kind": kind, "text": text, "replaces": replaces, "status": status, "due": due}
        return await call("memory_note", {**args, "about": about, "role": role})


def _add_resources(server: Any, opts: dict[str, Any]) -> None:
    import anyio
    from mcp.server.mcpserver.exceptions import ResourceError

    @server.resource(
        "rolling-graph://block",
        name="memory-block",
        description="The rolling-memory block of the current session, with why each line is there.",
        mime_type="text/plain",
    )
    async def memory_block() -> str:
        try:
            result = await anyio.to_thread.run_sync(lambda: ask("memory_block", {}, **opts))
        except AskError as err:
            raise ResourceError(str(err)) from None
        return str(result["text"])


def serve() -> int:
    """Run the stdio server until the client closes it."""
    from rolling_graph.config import SettingsError

    try:
        server = build_server()
    except SettingsError as err:  # one line the client shows, not a traceback
        import sys

        print(f"rolling-graph mcp: bad configuration: {err}", file=sys.stderr)
        return 1
    server.run("stdio")
    return 0
