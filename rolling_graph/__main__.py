from rolling_graph.entry import main

main()
