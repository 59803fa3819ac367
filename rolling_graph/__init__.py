"""rolling-graph: a live, rolling memory graph of a coding-agent session.

Importing this package is cheap on purpose: the hook client must start fast, so
nothing heavy (spaCy, anthropic, psycopg, pydantic) is imported here.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
