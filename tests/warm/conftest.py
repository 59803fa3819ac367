"""Fixtures for the warm-store contract suite: every contract test runs on SQLite and on a
real PostgreSQL server.

PostgreSQL comes from ``ROLLING_GRAPH_TEST_PG_DSN`` when set (CI runs ``.ci/postgres.sh``);
otherwise a throwaway cluster is started here with ``initdb``/``pg_ctl`` in a temp dir on a
Unix socket (as the ``postgres`` user when running as root). Only when no server binaries
exist at all, and not in CI, are the PostgreSQL cases skipped. Each test gets its own schema.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rolling_graph.warm import MergeParams, WarmStore, open_store


@dataclass(frozen=True)
class StoreSpec:
    """How to open the test's store again (other threads, other processes): picklable."""

    backend: str
    url: str
    home: str
    schema: str | None = None

    def open(self, params: MergeParams | None = None) -> WarmStore:
        return open_store(self.url, Path(self.home), schema=self.schema, params=params)


def _pg_bindir() -> str | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    for directory in candidates:
        if os.access(f"{directory}/initdb", os.X_OK) and os.access(f"{directory}/pg_ctl", os.X_OK):
            return directory
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return str(Path(initdb).parent)
    return None


def _version_key(path: str) -> tuple[int, ...]:
    version = Path(path).parent.name
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _as_cluster_owner() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("runuser"):
        return ["runuser", "-u", "postgres", "--"]
    return ["su", "postgres", "-s", "/bin/sh", "-c"]  # pragma: no cover - runuser is usual


def _run(prefix: list[str], argv: list[str]) -> None:
    if prefix and prefix[0] == "su":
        argv = [subprocess.list2cmdline(argv)]
    subprocess.run([*prefix, *argv], check=True, capture_output=True, text=True)


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """A DSN of a database on a real PostgreSQL server for the whole test session."""
    env_dsn = os.environ.get("ROLLING_GRAPH_TEST_PG_DSN")
    if env_dsn:
        yield env_dsn
        return
    bindir = _pg_bindir()
    if bindir is None:
        reason = (
            "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under "
            "/usr/lib/postgresql/*/bin; run .ci/postgres.sh or set ROLLING_GRAPH_TEST_PG_DSN"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI must test PostgreSQL: {reason}")
        pytest.skip(reason)
    prefix = _as_cluster_owner()
    root = tempfile.mkdtemp(prefix="rg-pg.")  # short path: Unix socket names are limited
    if prefix:
        shutil.chown(root, "postgres", "postgres")
    data = f"{root}/data"
    try:
        _run(prefix, [f"{bindir}/initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync"])
        _run(
            prefix,
            [
                f"{bindir}/pg_ctl",
                "-D",
                data,
                "-l",
                f"{root}/server.log",
                "-w",
                "-t",
                "60",
                "-o",
                f"-k {root} -p 5432 -c listen_addresses= -c fsync=off"
                " -c synchronous_commit=off -c max_connections=200",
                "start",
            ],
        )
    except subprocess.CalledProcessError as exc:
        log = Path(f"{root}/server.log")
        pytest.fail(
            f"could not start PostgreSQL: {exc.stderr}\n{log.read_text() if log.exists() else ''}"
        )
    try:
        yield f"postgresql://postgres@/postgres?host={root}&port=5432"
    finally:
        try:
            _run(prefix, [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"])
        finally:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreSpec]:
    """A fresh, empty store location: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield StoreSpec("sqlite", f"sqlite:///{tmp_path}/warm.sqlite3", str(tmp_path))
        return
    dsn = request.getfixturevalue("pg_dsn")
    schema = f"rg_test_{uuid.uuid4().hex[:12]}"
    yield StoreSpec("postgres", dsn, str(tmp_path), schema)
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def store(store_spec: StoreSpec) -> Iterator[WarmStore]:
    """An open, migrated, empty warm store (default merge parameters)."""
    s = store_spec.open()
    try:
        yield s
    finally:
        s.close()


def url_with_search_path(dsn: str, schema: str) -> str:
    """A DSN whose sessions use ``schema``: the settings' ``warm`` URL carries no schema of
    its own, so the reconciler and the CLI see the test's schema through libpq options."""
    from urllib.parse import quote

    option = quote(f"-csearch_path={schema}", safe="")
    if "://" in dsn:
        return f"{dsn}{'&' if '?' in dsn else '?'}options={option}"
    return f"{dsn} options='-csearch_path={schema}'"


@pytest.fixture
def warm_url(store_spec: StoreSpec) -> str:
    """A warm-store URL for ``settings.warm`` (the CLI and the plugin open it themselves)."""
    if store_spec.backend == "sqlite":
        return store_spec.url
    store_spec.open().close()  # creates and migrates the test's schema
    assert store_spec.schema is not None
    return url_with_search_path(store_spec.url, store_spec.schema)


@pytest.fixture
def warm_settings(warm_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Settings of a data home whose warm store is the test's store; the environment agrees,
    so the CLI and ``Engine()`` see the same configuration."""
    from rolling_graph.config import load_settings

    home = tmp_path / "home"
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(home))
    monkeypatch.setenv("ROLLING_GRAPH_WARM", warm_url)
    monkeypatch.setenv("ROLLING_GRAPH_PROJECT", "proj")
    monkeypatch.setenv("ROLLING_GRAPH_PROBE", "offline")
    return load_settings()
