"""Where the admin's password for ``warm init-team`` comes from, said before connecting:
the DSN itself, ``PGPASSWORD``, a password file (``PGPASSFILE`` or ``~/.pgpass``), or a
prompt when stdin is a terminal. libpq reads the first three itself; the prompt's answer is
handed to it through ``PGPASSWORD`` for this process only."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

NEXT_STEP = (
    "give the admin's password: PGPASSWORD=…, a ~/.pgpass line host:port:database:user:password "
    "(mode 0600), the DSN's password, or run on a terminal to be asked"
)


def _conninfo(dsn: str) -> dict[str, str]:
    try:
        from psycopg.conninfo import conninfo_to_dict

        return {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    except Exception:  # noqa: BLE001 - an unparsable DSN fails with its own message later
        return {}


def password_source(dsn: str, *, interactive: bool | None = None) -> str:
    """Say where the password comes from; prompt for it when none is set and stdin is a TTY."""
    info = _conninfo(dsn)
    user = info.get("user") or os.environ.get("PGUSER") or "(your OS user)"
    if info.get("password"):
        return f"admin password for {user}: from the DSN"
    if os.environ.get("PGPASSWORD"):
        return f"admin password for {user}: from PGPASSWORD"
    passfile = Path(os.environ.get("PGPASSFILE") or Path.home() / ".pgpass")
    if passfile.is_file():
        return f"admin password for {user}: from {passfile} (its line for this host and user)"
    if interactive if interactive is not None else sys.stdin.isatty():
        host = info.get("host") or "localhost"
        secret = click.prompt(f"password for {user}@{host}", hide_input=True, err=True)
        os.environ["PGPASSWORD"] = secret  # this process only; libpq reads it
        return f"admin password for {user}: typed at the prompt"
    return f"admin password for {user}: none found (no prompt: stdin is not a terminal)"
