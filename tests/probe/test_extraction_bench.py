"""bench/extraction.py: the development set, the held-out set and a further ``--labels`` set as
tables of their own, and the same sets through a paid backend (``--probe``): the real anthropic
and openai SDKs against the local stand-ins, with the calls and tokens the stand-ins counted.

The labelled set here is made up over the project's own sample transcript (transcripts/)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.probe.standins import MessagesStandIn, OpenAIStandIn

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "transcripts" / "newsletter-signup.jsonl"
sys.path.insert(0, str(ROOT / "bench"))

import extraction as bench  # noqa: E402


def _label_set(folder: Path, data: Path) -> Path:
    """A labelled set over the sample: one task and one decision (terms the sample holds)."""
    (data / "raw").mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLE, data / "raw" / "sample.jsonl")
    folder.mkdir(parents=True)
    labels = [
        {"file": "sample.jsonl", "turn": 1, "kind": "task", "terms": ["newsletter"]},
        {"file": "sample.jsonl", "turn": 2, "kind": "decision", "terms": ["resend"]},
    ]
    (folder / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels) + "\n")
    (folder / "sessions.json").write_text(json.dumps([{"file": "sample.jsonl", "prompts": 5}]))
    return folder


def _figures(out: str, title: str) -> str:
    start = out.index(f"== {title}")
    nxt = out.find("\n== ", start + 1)
    return out[start : nxt if nxt > 0 else len(out)]


def test_each_set_gets_its_table_and_its_worst_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    dev = _label_set(tmp_path / "dev", data)
    held = _label_set(tmp_path / "heldout", data)
    extra = _label_set(tmp_path / "extra", data)
    monkeypatch.setattr(bench, "FIXTURES", dev)
    monkeypatch.setattr(bench, "HELDOUT", held)
    assert bench.main(["--dev", str(dev), str(data), "--labels", str(extra / "labels.jsonl")]) == 0
    out = capsys.readouterr().out
    for title in ("development set", "held-out set", f"labels {extra / 'labels.jsonl'}"):
        table = _figures(out, title)
        assert re.search(r"^task\s+1\s+[01]\s", table, re.M), table
        assert "worst sessions" in table and "sample.jsonl" in table
        assert "calls" not in table  # the offline probe makes no calls


def test_a_backend_without_key_or_endpoint_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    dev = _label_set(tmp_path / "dev", tmp_path / "data")
    assert bench.main(["--dev", str(dev), str(tmp_path / "data"), "--probe", "anthropic"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


@pytest.mark.parametrize("probe", ["anthropic", "openai"])
def test_a_paid_backend_runs_the_same_sets_with_its_calls_and_tokens(
    probe: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip(probe)
    dev = _label_set(tmp_path / "dev", tmp_path / "data")
    server_cls = MessagesStandIn if probe == "anthropic" else OpenAIStandIn
    with server_cls("ok") as server:
        if probe == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
        else:
            monkeypatch.setenv("ROLLING_GRAPH_OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("ROLLING_GRAPH_PAID_PROBES", "always")
        code = bench.main(["--dev", str(dev), str(tmp_path / "data"), "--probe", probe])
    out = capsys.readouterr().out
    assert code == 0, out
    table = _figures(out, "development set")
    m = re.search(r"calls (\d+)  tokens in (\d+)  tokens out (\d+)", table)
    assert m, table
    assert int(m.group(1)) == server.calls > 0
    assert int(m.group(2)) == server.tokens_in and int(m.group(3)) == server.tokens_out
    assert re.search(r"^decision\s+1\s", table, re.M)


def test_blocks_print_the_decisions_line_of_each_worst_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    dev = _label_set(tmp_path / "dev", data)
    monkeypatch.setattr(bench, "HELDOUT", tmp_path / "none")
    assert bench.main(["--dev", str(dev), str(data), "--blocks"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("block:"))
    assert "Decisions in force:" in line or line.strip() == "block: —", line


def test_missed_lists_the_development_sets_misses_never_a_frozen_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    dev = _label_set(tmp_path / "dev", data)
    held = _label_set(tmp_path / "heldout", data)
    for folder in (dev, held):  # a label nothing in the sample finds
        with (folder / "labels.jsonl").open("a") as f:
            f.write(
                json.dumps(
                    {
                        "file": "sample.jsonl",
                        "turn": 3,
                        "kind": "task",
                        "terms": [f"zebra-{folder.name}"],
                    }
                )
                + "\n"
            )
    (held / "README.md").write_text("# A held-out set (frozen)\n\nNever tuned on.\n")
    monkeypatch.setattr(bench, "FIXTURES", dev)
    monkeypatch.setattr(bench, "HELDOUT", held)
    assert bench.main(["--dev", str(dev), str(data), "--missed"]) == 0
    out = capsys.readouterr().out
    assert "zebra-dev" in _figures(out, "development set")
    held_out = _figures(out, "held-out set")
    assert "zebra-heldout" not in held_out
    assert "not listed for a frozen held-out set" in held_out


def test_the_shipped_held_out_sets_are_frozen_and_the_development_set_is_not() -> None:
    fixtures = ROOT / "tests" / "fixtures" / "extraction"
    assert bench.frozen(fixtures / "heldout")
    assert bench.frozen(fixtures / "heldout-formats" / "labels.jsonl")
    assert not bench.frozen(fixtures)
