"""``python -m rolling_graph.transport serve``: run the worker in this process until it is idle."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] not in (["serve"], []):
        print("usage: python -m rolling_graph.transport serve", file=sys.stderr)
        return 2
    from rolling_graph.transport.server import serve

    return serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
