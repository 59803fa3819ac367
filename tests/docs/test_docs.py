"""The documentation: README as a front page, docs/ that build with MkDocs in strict mode,
reference pages generated from the code and never stale, every "DESIGN §n" the code cites
present in the architecture page, and the README's runnable code blocks working as written."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rolling_graph.devtools import docgen

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_readme_is_a_front_page() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for heading in ("## Quick start", "## Run the tests", "## Where to read more"):
        assert heading in text
    # The test command CI runs sits right after its marker.
    after = text.split("<!-- ci:test-command -->", 1)[1].splitlines()
    assert after[1] == "```bash" and "pytest" in after[2]


def test_readme_links_point_at_pages_that_exist() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert links, "the README points into docs/"
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert missing == []


def test_generated_reference_pages_are_current() -> None:
    for name, text in docgen.render_pages().items():
        page = DOCS / "reference" / f"{name}.md"
        assert page.is_file(), f"{page} missing: run python -m rolling_graph.devtools.docgen"
        assert page.read_text() == text, (
            f"{page.name} is stale: run python -m rolling_graph.devtools.docgen"
        )


def test_every_cited_design_section_is_in_the_architecture_page() -> None:
    cited: set[str] = set()
    for folder in ("rolling_graph", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(re.findall(r"DESIGN(?:\.md)? §(\d+[a-z]?)", path.read_text()))
    assert cited, "the code cites the design"
    heads = set(re.findall(r"^### §(\d+[a-z]?) ", (DOCS / "architecture.md").read_text(), re.M))
    assert sorted(cited - heads) == []


def test_docs_build_strict(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "site" / "architecture" / "index.html").is_file()


def _runnable_blocks() -> list[tuple[str, str]]:
    """(label, commands) of each README code block marked ``<!-- runnable… -->``."""
    text = README.read_text()
    found = re.findall(r"<!-- runnable(?:: ([\w-]+))? -->\n```bash\n(.*?)```", text, re.S)
    return [(label or f"block{i}", body) for i, (label, body) in enumerate(found)]


@pytest.mark.timeout(1800)
def test_readme_runnable_blocks_work_as_written(tmp_path: Path) -> None:
    """A copy of the tracked tree, a fresh venv made by the quick start itself, then each
    runnable block in order, as a newcomer would type them (needs PyPI or a warm pip cache)."""
    blocks = _runnable_blocks()
    assert [label for label, _ in blocks][:1] == ["quick-start"]
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    work = tmp_path / "clone"
    for name in filter(None, (f.decode() for f in files)):
        src, dst = ROOT / name, work / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        elif src.is_file():
            shutil.copy2(src, dst)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROLLING_GRAPH_", "VIRTUAL"))}
    env["HOME"] = str(tmp_path / "home")
    for label, commands in blocks:
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", commands],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert run.returncode == 0, f"{label}: {run.stderr[-3000:]}"
        if label == "quick-start":
            assert (work / "out" / "trace.jsonl").is_file()
        elif "render --why" in commands:
            assert run.stdout.strip(), "render --why printed nothing"


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_machine_paths_in_docs(page: str) -> None:
    assert "/work/" not in (DOCS / page).read_text()
