"""Tools for developing rolling-graph itself (never used at run time).

May import: anything (development tools, never loaded at run time).
"""
