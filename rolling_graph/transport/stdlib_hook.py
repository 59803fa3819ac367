"""What installed hooks run by path: ``<python> -I -S …/rolling_graph/transport/stdlib_hook.py``.

A script run by path is compiled on every start (the client's ~300 lines: 5-15 ms, as much as
the interpreter's own start-up), an imported module is read from its cached bytecode. So this
stub only imports :mod:`stdlib_client` from its own directory, as a top-level module (no package,
no ``site``; the directory leaves ``sys.path`` again at once) and runs it, then leaves without
the interpreter's finalization where nothing needs it (:func:`stdlib_client.exit_now`).
"""

import sys

sys.path.insert(0, __file__.rpartition("/")[0])
try:
    import stdlib_client
finally:
    del sys.path[0]

if __name__ == "__main__":
    code = stdlib_client.main(sys.argv[1:])
    stdlib_client.exit_now(code)  # on the hot path, does not return
    sys.exit(code)
