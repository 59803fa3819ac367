"""Helpers shared by CLI commands: settings, store and session resolution, error handling."""

from __future__ import annotations

import sys
from typing import Any

import click

from rolling_graph.config import Settings, load_settings
from rolling_graph.core.hotstore import HotStore


def settings() -> Settings:
    try:
        return load_settings()
    except Exception as err:  # noqa: BLE001 - any config error becomes a clear CLI error
        raise click.ClickException(
            f"bad configuration: {err} (fix the environment variable or config file)"
        ) from None


def store(s: Settings) -> HotStore:
    return HotStore(s.home)


def resolve_session(st: HotStore, session_id: str | None) -> str:
    if session_id:
        if not st.exists(session_id):
            raise click.ClickException(
                f"no session {session_id!r} under {st.home}; see `rolling-graph sessions`"
            )
        return session_id
    latest = st.latest_session()
    if latest is None:
        raise click.ClickException(f"no sessions yet under {st.home}")
    return latest


def echo_notices(notices: list[str]) -> None:
    for n in notices:
        click.echo(n, err=True)


session_option = click.option(
    "--session", "-s", "session_id", help="Session id (default: the most recent)."
)


def die(msg: str, code: int = 1) -> Any:
    click.echo(f"error: {msg}", err=True)
    sys.exit(code)
