"""The warm store sits below the engine (DESIGN §1): nothing under ``rolling_graph/warm/``
imports the engine, the plugins, the replay, the probe, the gate, the renderers, the CLI or
the worker — not even lazily, inside a function. Checked on the source with ``ast``, so an
import hidden in a function body counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import rolling_graph

PACKAGE = Path(rolling_graph.__file__).parent
WARM = PACKAGE / "warm"
ABOVE = (
    "rolling_graph.pipeline.engine",
    "rolling_graph.pipeline.plugins",
    "rolling_graph.eval.replay",
    "rolling_graph.pipeline.default_plugins",
    "rolling_graph.probe",
    "rolling_graph.gate",
    "rolling_graph.render.lod",  # render, render_block, render_resume, render_work
    "rolling_graph.cli",
    "rolling_graph.transport",
    "rolling_graph.core.session",  # imports the renderer
    "rolling_graph.pipeline.recovery",
)


def imported_modules(path: Path, root: Path = PACKAGE.parent) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in a file under ``root``, at any depth; relative
    ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def _is_above(module: str) -> bool:
    return any(module == m or module.startswith((m + ".", m + "_")) for m in ABOVE)


def test_the_check_sees_a_lazy_import_of_the_engine(tmp_path: Path) -> None:
    # The check itself can fail: an import inside a function is found and resolved.
    probe = tmp_path / "rolling_graph" / "warm" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "def f():\n    from rolling_graph.pipeline import engine\n    from ..cli import x\n"
    )
    found = [m for _, m in imported_modules(probe, tmp_path) if _is_above(m)]
    assert found == ["rolling_graph.pipeline.engine", "rolling_graph.cli", "rolling_graph.cli.x"]


def test_nothing_under_warm_imports_a_layer_above_it() -> None:
    files = sorted(WARM.rglob("*.py"))
    assert len(files) > 10
    offending = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
        for path in files
        for line, module in imported_modules(path)
        if _is_above(module)
    ]
    assert offending == []
