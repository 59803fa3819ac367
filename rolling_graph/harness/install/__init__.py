"""Installers, one per harness: hook entries, the MCP registration and the ``/graph`` command.

Each writes and removes exactly its own entries in a client's settings (standard library
only); :mod:`.registry` is one interface over them for ``install``, ``uninstall`` and
``doctor``.

May import: paths, transport.stdlib_client (to find the file installed hooks run).
"""
