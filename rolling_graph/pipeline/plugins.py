"""The plugin manager: built-in behaviour as default plugins, third parties via entry points."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pluggy

from rolling_graph.pipeline import hookspecs

ENTRY_POINT_GROUP = "rolling_graph"

# Built-ins, registered like any plugin. Order does not matter: tryfirst/trylast decide.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "rolling_graph.pipeline.default_plugins.render_plugin",
    "rolling_graph.pipeline.default_plugins.probe_plugin",
    "rolling_graph.pipeline.default_plugins.observer_plugin",
    "rolling_graph.pipeline.default_plugins.gate_plugin",
    "rolling_graph.pipeline.default_plugins.warm_plugin",
    "rolling_graph.pipeline.default_plugins.harvest_plugin",
)


def get_plugin_manager(
    *, load_entry_points: bool | None = None, extra: list[Any] | None = None
) -> pluggy.PluginManager:
    """A fresh plugin manager (no module-global state, so tests and replays stay isolated).

    Entry points are loaded unless ``ROLLING_GRAPH_LOAD_PLUGINS`` is ``0``/empty-string-free
    ``none``; a comma-separated value there is an allow-list of entry-point names.
    """
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=name)
    for plugin in extra or []:
        pm.register(plugin)
    allow = os.environ.get("ROLLING_GRAPH_LOAD_PLUGINS")
    if load_entry_points is None:
        load_entry_points = allow not in ("0", "none")
    if load_entry_points:
        if allow and allow not in ("1", "all"):
            for name in (n.strip() for n in allow.split(",") if n.strip()):
                pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=name)
        else:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    pm.check_pending()
    return pm
