"""Built-in behaviour, registered as ordinary plugins on the hooks in :mod:`rolling_graph.pipeline.hookspecs`."""
