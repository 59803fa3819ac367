"""Harness adapters: turn a harness's hook payload into an :class:`~rolling_graph.events.Event`
and an :class:`~rolling_graph.engine.Outcome` into the output the harness expects."""
