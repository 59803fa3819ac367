"""Security tests drive the real hook console script against a real worker (tests/transport)."""

from tests.transport.conftest import wenv  # noqa: F401 - the fixture, shared
