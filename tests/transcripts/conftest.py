from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
