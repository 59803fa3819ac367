"""The hook pipeline: one engine, its hookspecs, the plugin manager and the default plugins.

:mod:`.engine` takes a :class:`~rolling_graph.core.hook_event.HookEvent` through the plugins
(:mod:`.plugins` loads them; :mod:`.hookspecs` declares the hooks and their typed hand-offs);
:mod:`.default_plugins` holds the built-in behaviour (gate, observers, probe, render, warm);
:mod:`.recovery` finishes sessions whose final merge never happened.

May import: core, config, paths, privacy, nlp, gate, observe, probe, render, warm,
harness.adapters, harness.install.mcp (whether the MCP hint is on), eval.replay (lazily: a
recovery rebuilds a lost hot graph from its transcript).
"""
