"""Hook transport, in one home: how a harness's hook event reaches the worker and back.

- :mod:`.stdlib_client` — what installed hooks run (``python -I -S …/stdlib_hook.py``, a stub
  that loads it): the hot path with builtin modules only, the rare paths handed to :mod:`.client`;
- :mod:`.client` — ``rolling-graph hook``, the thin standard-library client;
- :mod:`.protocol` — the wire protocol (JSON lines over a Unix socket) and socket locations;
- :mod:`.fallback` — what the client prints when the worker is out of reach;
- :mod:`.server` — the worker's socket server; :mod:`.engine_host` — its engine's life;
  :mod:`.worker_status` — what it reports about itself;
- :mod:`.hook_handler` — the server side of one hook call: payload bytes in, stdout text out;
- :mod:`.reply_first` — when the worker answers a hook: prompts and tool calls at once with
  the session's pending block, handled after the reply, in order per session;
- the worker itself: ``python -m rolling_graph.transport serve`` (:mod:`.__main__`; the client
  starts it detached when it is absent), its health checks (:mod:`.health`) and its logging
  set-up (:mod:`.logsetup`).

Importing this package imports nothing: the client must start fast.

May import: rolling_graph, core, config, paths, privacy, pipeline, mcp, harness.adapters.
"""
