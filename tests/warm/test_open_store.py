"""``open_store``: URL handling, unreachable stores, and the cheap-import promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rolling_graph.warm import WarmStoreUnavailable, open_store, sqlite_path


def test_sqlite_paths(tmp_path: Path) -> None:
    assert sqlite_path(None, tmp_path) == str(tmp_path / "warm.sqlite3")
    assert sqlite_path("  ", tmp_path) == str(tmp_path / "warm.sqlite3")
    assert sqlite_path("sqlite:///abs/w.db", tmp_path) == "/abs/w.db"
    assert sqlite_path("sqlite:////abs/w.db", tmp_path) == "/abs/w.db"
    assert sqlite_path("sqlite:rel/w.db", tmp_path) == str(tmp_path / "rel/w.db")
    assert sqlite_path("sqlite:///:memory:", tmp_path) == ":memory:"
    assert sqlite_path("postgresql://h/db", tmp_path) is None


def test_default_store_is_sqlite_in_home(tmp_path: Path) -> None:
    with open_store(None, tmp_path) as store:
        assert store.schema_version() > 0
    assert (tmp_path / "warm.sqlite3").exists()


def test_unreachable_postgres_is_unavailable(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(WarmStoreUnavailable):
        open_store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", tmp_path)


def test_unopenable_sqlite_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(WarmStoreUnavailable):
        open_store(None, blocker / "home")


def test_unknown_scheme(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        open_store("mysql://x/y", tmp_path)


def test_import_does_not_load_psycopg() -> None:
    code = (
        "import sys, rolling_graph.warm, rolling_graph.warm.postgres;"
        "print('psycopg' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_batch_store_checkpoints_its_wal_once_at_close(tmp_path: Path) -> None:
    # A replay's warm store: SQLite's automatic WAL checkpoint (an fsync every 1,000 pages)
    # would land in whichever session's flush crosses it; the batch lets the WAL grow to 64 MiB
    # (16,384 pages), moves its pages into the database when it closes, and what it wrote is
    # there for the next reader.
    import sqlite3

    from rolling_graph.core.hotstore import HotStore, ReplayStore
    from rolling_graph.warm.reconcile import Reconciler

    with open_store(None, tmp_path / "live") as live:
        assert live.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    db = tmp_path / "batch" / "warm.sqlite3"
    store = open_store(None, tmp_path / "batch", batch=True)
    assert store.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 16_384
    store.conn.execute("CREATE TABLE t (x TEXT)")
    store.conn.executemany("INSERT INTO t VALUES (?)", [("x" * 3000,)] * 2000)
    wal = db.with_name(db.name + "-wal")
    assert wal.stat().st_size > 4 * 1024 * 1024  # no checkpoint on the way: the WAL grew
    store.close()
    assert not wal.exists() or wal.stat().st_size == 0
    assert sqlite3.connect(db).execute("SELECT count(*) FROM t").fetchone()[0] == 2000

    class _Settings:
        home = str(tmp_path / "r")
        warm = ""

    with Reconciler(_Settings(), ReplayStore(tmp_path / "r")) as replaying:
        assert replaying.store().batch  # a replay's hot store is not durable: a batch
    with Reconciler(_Settings(), HotStore(tmp_path / "r")) as live:
        assert not live.store().batch
