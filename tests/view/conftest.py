"""Fixtures for the view tests: a headless Chromium (Debian's ``chromium``; CI fails without
it), a small session with a known history, and the pinned ``mermaid`` build from npm."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cdp import Browser, find_chromium
from .sample import build_session

MERMAID_VERSION = "12.3.0"
CACHE_DIR = Path(__file__).resolve().parents[2] / ".e2e-cache"


def _need(what: str, why: str) -> None:
    # Why fail in CI: these tests are the proof that the view works in a real browser; CI
    # installs Chromium (.ci/run), so its absence there is a broken set-up, not a reason to pass.
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests, but {what}: {why}")
    pytest.skip(f"{what}: {why}")


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    exe = find_chromium()
    if exe is None:
        _need("chromium is missing", "install Debian's chromium package (bash .ci/run does)")
    b = Browser(exe)  # type: ignore[arg-type]
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="session")
def mermaid_js() -> Path:
    """``dist/mermaid.min.js`` of the pinned mermaid, fetched once with ``npm pack``."""
    target = CACHE_DIR / f"mermaid-{MERMAID_VERSION}" / "mermaid.min.js"
    if target.exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        _need("npm is missing", "needed to fetch mermaid for the Mermaid parser test")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [npm, "pack", "--silent", f"mermaid@{MERMAID_VERSION}"],  # type: ignore[list-item]
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            _need("npm pack mermaid failed", proc.stderr[-1000:])
        with tarfile.open(Path(tmp) / f"mermaid-{MERMAID_VERSION}.tgz") as tar:
            member = tar.extractfile("package/dist/mermaid.min.js")
            assert member is not None
            staged = Path(tmp) / "mermaid.min.js"
            staged.write_bytes(member.read())
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)  # atomic: concurrent runs never see half a file
    return target


@pytest.fixture
def view_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ROLLING_GRAPH_HOME", str(home))
    monkeypatch.setenv("ROLLING_GRAPH_CONFIG", str(tmp_path / "none.toml"))
    build_session(home)
    return home
