"""Harness adapters: turn a harness's hook payload into a
:class:`~rolling_graph.hook_event.HookEvent`, and an :class:`~rolling_graph.engine.Outcome` into
the output the harness expects."""
