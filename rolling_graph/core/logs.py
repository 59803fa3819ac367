"""The package log file: a small rotating file logger under the data directory.

Standard library only (the hook path uses it). Logging must never break a hook: if the log file
cannot be opened (unwritable data directory), records go nowhere rather than raising.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from rolling_graph import paths

_FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"
_configured: set[str] = set()


class _PrivateRotatingHandler(logging.handlers.RotatingFileHandler):
    """Log files (the current one and each rotated one) are created 0600."""

    def _open(self):  # type: ignore[no-untyped-def]
        fd = paths.open_private(self.baseFilename)
        return open(fd, self.mode, encoding=self.encoding, errors=self.errors)  # noqa: SIM115


class _RedactingFormatter(logging.Formatter):
    """A record can quote what it failed on (a path, an error echoing its input): the line is
    scrubbed of secrets before it is written."""

    def format(self, record: logging.LogRecord) -> str:
        from rolling_graph.privacy.redact.secrets import redact  # stdlib only; compiled once

        return redact(super().format(record))


def setup_logging(home: Path | None = None, level: int = logging.INFO) -> Path | None:
    """Attach a rotating file handler (1 MB × 3) for the ``rolling_graph`` logger once per path.

    Returns the log file path, or ``None`` when it cannot be written (then a NullHandler keeps
    the logging module from printing "No handlers" noise on stderr)."""
    logger = logging.getLogger("rolling_graph")
    path = paths.log_file(home)
    key = str(path)
    if key in _configured:
        return path
    try:
        paths.private_dir(path.parent, home or paths.data_home())
        handler: logging.Handler = _PrivateRotatingHandler(
            path, maxBytes=1_000_000, backupCount=3, encoding="utf-8", delay=False
        )
        handler.setFormatter(_RedactingFormatter(_FORMAT))
    except OSError:
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        return None
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > level:
        logger.setLevel(level)
    logger.propagate = False  # never leak records to stderr/stdout on the hook path
    _configured.add(key)
    return path
