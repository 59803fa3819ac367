"""What installed hooks run by path: ``<python> -I -S …/rolling_graph/transport/stdlib_hook.py``.

A script run by path is compiled on every start (the client's ~300 lines: 5-15 ms, as much as
the interpreter's own start-up), an imported module is read from its cached bytecode. So this
stub only imports :mod:`stdlib_client` from its own directory, as a top-level module (no package,
no ``site``; the directory leaves ``sys.path`` again at once) and runs it.
"""

import sys

sys.path.insert(0, __file__.rpartition("/")[0])
try:
    import stdlib_client
finally:
    del sys.path[0]

if __name__ == "__main__":
    sys.exit(stdlib_client.main(sys.argv[1:]))
