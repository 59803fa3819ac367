"""Locate the shared real-transcript data set (../shared/data) and parse its MANIFEST.tsv.

Reusable by any test or bench script::

    from tests.shared_data import shared_data_dir, manifest_rows, require_shared_data

``ROLLING_GRAPH_SHARED_DATA`` overrides the location. The data are other people's files:
read them from there, never copy them into this repository.
"""

from __future__ import annotations

import csv
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "ROLLING_GRAPH_SHARED_DATA"
#: <repo>/tests/shared_data.py -> <repo>/../shared/data
_DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def shared_data_dir() -> Path | None:
    """The data directory (holding MANIFEST.tsv and raw/), or None if absent."""
    env = os.environ.get(ENV_VAR)
    path = Path(env) if env else _DEFAULT
    path = path.resolve()
    return path if (path / "MANIFEST.tsv").is_file() else None


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class ManifestRow:
    """One MANIFEST.tsv row; counts are None where the column is empty."""

    local_file: str
    path: Path
    repo: str
    kind: str
    turns: int | None
    human_prompts: int | None
    tool_calls: int | None
    compactions: int | None
    notes: str
    stats: str

    @property
    def name(self) -> str:
        return self.local_file.removeprefix("raw/")


def data_dir_or_say(given: Path | None = None) -> Path | None:
    """``given``, else the shared data directory; when there is neither, one line on stderr
    (the benchmarks then exit 1) and ``None``."""
    data_dir = given or shared_data_dir()
    if data_dir is None:
        print(f"shared data not found (../shared/data or ${ENV_VAR})", file=sys.stderr)
    return data_dir


def manifest_rows(data_dir: Path | None = None, kinds: tuple[str, ...] = ()) -> list[ManifestRow]:
    """Parse MANIFEST.tsv; ``kinds`` filters on the ``kind`` column. [] if data absent."""
    data_dir = data_dir or shared_data_dir()
    if data_dir is None:
        return []
    with (data_dir / "MANIFEST.tsv").open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        rows = [
            ManifestRow(
                local_file=r["local_file"],
                path=data_dir / r["local_file"],
                repo=r.get("repo") or "",
                kind=r.get("kind") or "",
                turns=_int(r.get("turns")),
                human_prompts=_int(r.get("human_prompts")),
                tool_calls=_int(r.get("tool_calls")),
                compactions=_int(r.get("compactions")),
                notes=r.get("notes") or "",
                stats=r.get("stats") or "",
            )
            for r in reader
        ]
    return [r for r in rows if not kinds or r.kind in kinds]


SKIP_REASON = (
    f"shared transcript data not found (expected ../shared/data next to the repo, or set "
    f"{ENV_VAR}); these tests read other people's transcripts that are not in the repo"
)


def require_shared_data() -> Path:
    """Return the data dir or skip the calling test with a clear reason."""
    import pytest

    path = shared_data_dir()
    if path is None:
        pytest.skip(SKIP_REASON)
    return path
