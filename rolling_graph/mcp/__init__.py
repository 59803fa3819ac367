"""The memory tools of ``rolling-graph mcp``: the stdio server and what answers it.

:mod:`.server` is the MCP server (official ``mcp`` SDK), which forwards every call to the worker;
:mod:`.recall` answers there (``memory_search``, ``memory_expand``, ``memory_history``,
``memory_sessions``), from the hot graphs (:mod:`.lookup`, :mod:`.answers`) and the warm store
(:mod:`.warmside`).

May import: rolling_graph, core, config, paths, probe, render, warm, transport.client,
transport.protocol (the server reaches the worker through the hook client's socket).
"""
