"""Two people's sessions on one project against one PostgreSQL server: the block each gets.

Ann and Bob each replay one session on the ``shop`` repository (``tests/warm/_team_replay.py``)
through their own login role made by ``warm init-team``; then a fresh session of each starts,
and the block injected at its SessionStart is printed verbatim, with what the server holds
(the admin's view: project rows and both personal scopes).

PostgreSQL comes from ``ROLLING_GRAPH_TEST_PG_DSN`` or a throwaway cluster (like
``bench/warm.py``); the schema and roles made here are dropped at the end.

    .venv/bin/python bench/team_replay.py
"""

from __future__ import annotations

import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.warm import postgres  # noqa: E402
from rolling_graph.warm import open_store  # noqa: E402
from rolling_graph.warm.pg_team import init_team  # noqa: E402
from tests.warm._team_replay import replay_team  # noqa: E402
from tests.warm.conftest import url_with_search_path  # noqa: E402


def main() -> int:
    import psycopg
    from psycopg.conninfo import make_conninfo

    tag = uuid.uuid4().hex[:6]
    schema, roles = f"rg_team_replay_{tag}", {"ann": f"ann_{tag}", "bob": f"bob_{tag}"}
    with postgres() as dsn, tempfile.TemporaryDirectory(prefix="rg-team.") as tmp:
        admin = open_store(dsn, Path(tmp), schema=schema)
        try:
            init_team(admin, list(roles.values()))
            urls = {
                p: url_with_search_path(make_conninfo(dsn, user=r), schema)
                for p, r in roles.items()
            }
            blocks = replay_team(urls, Path(tmp) / "replay")
            print("warm store (admin's view): scope | label | domain | person")
            for row in admin.select(
                "SELECT scope, label, domain, person FROM rg_nodes ORDER BY scope, label"
            ):
                print("  " + " | ".join(row))
            for person, block in blocks.items():
                print(f"\n=== {person} ({roles[person]}): block at the next SessionStart ===")
                print(block)
        finally:
            admin.close()
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                for role in roles.values():
                    conn.execute(f'DROP ROLE IF EXISTS "{role}"')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
