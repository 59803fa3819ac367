"""The per-user worker: one long-lived process that holds the engine and answers hook calls.

``python -m rolling_graph.worker serve`` runs it (the hook client starts it detached when it is
absent); :mod:`rolling_graph.worker.server` has the details and
:mod:`rolling_graph.hookclient` the protocol. Importing this package is cheap on purpose.
"""
