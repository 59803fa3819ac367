"""The harnesses: what each client sends and expects (:mod:`.adapters`, on the hook path) and
how rolling-graph is installed into each (:mod:`.install`). Each subpackage states its own
import rule."""
