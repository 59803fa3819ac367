"""The hook client's former import path, kept so that code written against it keeps working.

The hook transport lives in :mod:`rolling_graph.transport`: the client in
:mod:`~rolling_graph.transport.client`, the wire protocol and socket locations in
:mod:`~rolling_graph.transport.protocol`. Standard library only, like them. Installed hooks run
``rolling-graph hook`` (:mod:`rolling_graph.entry`), not this module.
"""

from __future__ import annotations

from rolling_graph.transport.client import (
    DEFAULT_BUDGET_MS,
    DEFAULT_START_BUDGET_MS,
    HARNESSES,
    fallback_output,
    log,
    main,
    parse_args,
    read_stdin,
    replace_older_worker,
    run_hook,
    spawn_worker,
)
from rolling_graph.transport.protocol import (
    MAX_REPLY,
    MAX_STDIN,
    PROTOCOL,
    SocketDirError,
    WorkerUnavailable,
    check_socket_dir,
    data_home,
    request,
    socket_dir,
    version_tuple,
    worker_files,
)

__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_START_BUDGET_MS",
    "HARNESSES",
    "MAX_REPLY",
    "MAX_STDIN",
    "PROTOCOL",
    "SocketDirError",
    "WorkerUnavailable",
    "check_socket_dir",
    "data_home",
    "fallback_output",
    "log",
    "main",
    "parse_args",
    "read_stdin",
    "replace_older_worker",
    "request",
    "run_hook",
    "socket_dir",
    "spawn_worker",
    "version_tuple",
    "worker_files",
]
