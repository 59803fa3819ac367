"""``warm init-team`` says where the admin's password comes from before it connects."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rolling_graph.cli import cli
from rolling_graph.cli.pg_password import password_source

DSN = "postgresql://admin@127.0.0.1:1/team"  # port 1: nothing listens, no connection made


@pytest.fixture
def no_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "absent.pgpass"))
    return tmp_path


def test_each_source_is_named(no_password: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    none = password_source(DSN, interactive=False)
    assert none == "admin password for admin: none found (no prompt: stdin is not a terminal)"
    assert password_source("postgresql://admin:pw@h/db") == "admin password for admin: from the DSN"
    passfile = no_password / "absent.pgpass"
    passfile.write_text("127.0.0.1:1:team:admin:pw\n")
    assert password_source(DSN, interactive=False).endswith(
        f"from {passfile} (its line for this host and user)"
    )
    monkeypatch.setenv("PGPASSWORD", "pw")
    assert password_source(DSN, interactive=False) == "admin password for admin: from PGPASSWORD"


def test_init_team_prints_the_source_before_connecting(no_password: Path) -> None:
    res = CliRunner().invoke(cli, ["warm", "init-team", "--dsn", DSN, "alice"])
    assert res.exit_code == 1
    assert "admin password for admin: none found" in res.output
    assert "warm store unavailable" in res.output
