"""Tools for developing rolling-graph itself (standard library only; never used at run time)."""
