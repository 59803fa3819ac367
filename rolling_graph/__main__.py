"""``python -m rolling_graph``: the command line, as the ``rolling-graph`` script runs it."""

from rolling_graph.entry import main

main()
