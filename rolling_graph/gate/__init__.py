"""The heuristic gate."""
