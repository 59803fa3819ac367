"""Fixtures for driving the real Claude Code against the local Messages API stand-in.

* ``claude_bin``   -- the pinned Claude Code binary (PATH, cache, or npm install; else skip,
  or fail when ``CI`` is set);
* ``fake_api``     -- a running :class:`FakeMessagesAPI` logging to ``tmp_path/requests.jsonl``;
* ``claude``       -- a :class:`ClaudeHarness` (scratch HOME + project dir, hooks, transcripts);
* ``run_claude``   -- ``claude.run``: ``run_claude(prompt, *, resume=None, allowed_tools=[...])``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .fake_messages_api import FakeMessagesAPI
from .harness import CLAUDE_CODE_VERSION, ClaudeHarness, ClaudeUnavailable, ensure_claude

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Why: every test under tests/e2e needs the real CLI, so mark them all in one place.
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
    # A test marked clients("codex") applies to those clients only: the others are deselected
    # (not skipped: there is nothing for them to run).
    keep, drop = [], []
    for item in items:
        mark = item.get_closest_marker("clients")
        callspec = getattr(item, "callspec", None)
        client = callspec.params.get("result") if callspec is not None else None
        (drop if mark and client and client not in mark.args else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    try:
        return ensure_claude(CLAUDE_CODE_VERSION)
    except ClaudeUnavailable as exc:
        # Why fail in CI: the end-to-end suite is the proof that the product works in the real
        # harness; CI must install Claude Code, never quietly pass without it.
        if os.environ.get("CI"):
            pytest.fail(
                f"CI must run the e2e suite, but Claude Code {CLAUDE_CODE_VERSION} "
                f"could not be installed: {exc}"
            )
        pytest.skip(f"Claude Code {CLAUDE_CODE_VERSION} unavailable: {exc}")


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(tmp_path / "requests.jsonl") as api:
        yield api


@pytest.fixture
def claude(claude_bin: Path, fake_api: FakeMessagesAPI, tmp_path: Path) -> ClaudeHarness:
    return ClaudeHarness(claude_bin, fake_api, tmp_path / "scratch")


@pytest.fixture
def run_claude(claude: ClaudeHarness) -> Callable[..., dict[str, Any]]:
    return claude.run
