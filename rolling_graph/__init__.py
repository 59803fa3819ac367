"""rolling-graph: a live, rolling memory graph of a coding-agent session.

Importing this package is cheap on purpose: the hook client must start fast, so
nothing heavy (spaCy, anthropic, psycopg, pydantic, not even pluggy) is imported here.
``hookimpl``, the marker third-party plugins decorate their hook functions with
(``from rolling_graph import hookimpl``), is loaded on first access.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> object:
    # Lazy: the hook client lives in this package and imports the standard library only.
    if name == "hookimpl":
        from rolling_graph.pipeline.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module 'rolling_graph' has no attribute {name!r}")
