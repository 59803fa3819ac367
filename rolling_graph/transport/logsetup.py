"""Logging to the package log file (the worker's stdout and stderr go there too)."""

from __future__ import annotations

import logging

_FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"


def configure_logging(level: int = logging.INFO) -> None:
    """Send the ``rolling_graph`` loggers to ``rolling_graph.paths.log_file()`` (once).

    Uses the package's rotating logger (:mod:`rolling_graph.core.logs`) where present, so that the
    hook handler, which sets up the same file, does not add a second handler.
    """
    try:
        from rolling_graph.core.logs import setup_logging
    except ImportError:
        setup_logging = None
    if setup_logging is not None:
        setup_logging(level=level)
        return
    from rolling_graph.paths import log_file

    root = logging.getLogger("rolling_graph")
    if any(getattr(h, "_rolling_graph", False) for h in root.handlers):
        return
    path = log_file()
    try:
        from rolling_graph.paths import private_dir, private_mode

        private_dir(path.parent)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
        private_mode(path)
    except OSError:
        handler = logging.NullHandler()  # never stdout: Claude Code reads it
    handler._rolling_graph = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
    root.propagate = False
