"""Looking at a graph: exporters (text, Mermaid, DOT, JSON), the audit history of each node and
edge, and the self-contained interactive HTML view. Reads graphs; never changes them.

May import: core.
"""
