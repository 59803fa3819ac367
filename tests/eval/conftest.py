from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "transcripts"


@pytest.fixture(scope="session")
def samples() -> list[Path]:
    paths = sorted(SAMPLES_DIR.glob("*.jsonl"))
    assert len(paths) >= 2, f"sample transcripts missing under {SAMPLES_DIR}"
    return paths
