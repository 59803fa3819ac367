"""Security tests drive the real hook console script against a real worker (tests/worker)."""

from tests.worker.conftest import wenv  # noqa: F401 - the fixture, shared
