"""The per-user worker: one long-lived process that holds the engine and answers hook calls.

``python -m rolling_graph.worker serve`` runs it (the hook client starts it detached when it is
absent); its socket server, engine host and the wire protocol live in
:mod:`rolling_graph.transport`; here are its health checks and logging set-up. Importing this
package is cheap on purpose.
"""
