"""bench/replay.py: a row per transcript, speeds as medians over ``--repeat`` passes (each
from nothing), and the count of files under the goal. Run over a made-up data directory that
lists the project's own sample transcripts (transcripts/)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import replay as bench  # noqa: E402

SAMPLES = ["newsletter-signup.jsonl", "flaky-ci.jsonl"]
HEADER = "local_file\trepo\tkind\tturns\thuman_prompts\ttool_calls\tcompactions\tnotes\tstats"


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "raw").mkdir(parents=True)
    lines = [HEADER]
    for name in SAMPLES:
        shutil.copy(ROOT / "transcripts" / name, data / "raw" / name)
        lines.append(f"raw/{name}\tsample/{name}\tclaude-code\t0\t0\t0\t0\t\t")
    (data / "MANIFEST.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def test_repeated_passes_print_one_row_per_file_and_the_files_under_the_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert bench.main([str(_data(tmp_path)), "--repeat", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.split()[:1] and line.split()[0] in SAMPLES]
    assert [r.split()[0] for r in rows] == SAMPLES
    assert all(float(r.split()[-2]) > 0 for r in rows)  # events per second, a median
    m = re.search(r"files under 200 events/s \(median of 2 passes\): (\d+) of 2", text)
    assert m and int(m.group(1)) == sum(float(r.split()[-2]) < 200 for r in rows)
    assert (out / "summary.json").exists()  # --out keeps the last pass
