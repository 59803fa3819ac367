"""The house's structure rules over rolling_graph/ (see rolling_graph/devtools/structure.py):
module and function sizes, no module-level import cycle, layers that point down, a hook client
on the standard library only. The checker itself is first tried on a small package built to
break every rule, so that a green run means something."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rolling_graph.devtools.structure import (
    MAX_FUNCTION_LINES,
    MAX_MODULE_LINES,
    Report,
    check,
    format_report,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rolling_graph"


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def broken(tmp_path: Path) -> Report:
    """A package named rolling_graph that breaks each rule once (and obeys it once)."""
    pkg = tmp_path / "rolling_graph"
    _write(pkg, "__init__.py", "")
    _write(pkg, "big.py", "x = 1\n" * (MAX_MODULE_LINES + 1))
    _write(pkg, "fine.py", "x = 1\n" * MAX_MODULE_LINES)
    body = "    x = 1\n" * (MAX_FUNCTION_LINES - 1)
    _write(pkg, "funcs.py", f"def long():\n{body}    return x\n\ndef short():\n{body}\n")
    # A module-level cycle (a <-> b, one of them relative), and a lazy one (c -> d -> c).
    _write(pkg, "a.py", "from rolling_graph import b\n")
    _write(pkg, "b.py", "from . import a\n")
    _write(pkg, "c.py", "def f():\n    from rolling_graph import d\n")
    _write(pkg, "d.py", "import rolling_graph.c\n")
    # Plugins loaded by name close a lazy cycle; a logger's name is not an import.
    _write(pkg, "registry.py", "import importlib\nNAMES = ('rolling_graph.plug',)\n")
    _write(pkg, "plug.py", "from rolling_graph import registry\n")
    _write(pkg, "quiet.py", "import rolling_graph.noisy\n")
    _write(pkg, "noisy.py", "import logging\nlog = logging.getLogger('rolling_graph.quiet')\n")
    # Not an import at run time: no cycle.
    _write(
        pkg,
        "e.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import rolling_graph.f\n",
    )
    _write(pkg, "f.py", "import rolling_graph.e\n")
    # Layers: the model reaches the engine through a helper; warm imports plugins lazily.
    _write(pkg, "pipeline/__init__.py", "")
    _write(pkg, "pipeline/engine.py", "")
    _write(pkg, "pipeline/plugins.py", "")
    _write(pkg, "helper.py", "import rolling_graph.pipeline.engine\n")
    _write(pkg, "core/__init__.py", "")
    _write(pkg, "core/model.py", "from rolling_graph import helper\n")
    _write(pkg, "warm/__init__.py", "")
    _write(pkg, "warm/store.py", "def g():\n    from ..pipeline.plugins import x\n")
    # The hook client: a third-party import of its own, and one through a module it loads.
    _write(pkg, "transport/__init__.py", "")
    _write(
        pkg,
        "transport/client.py",
        "import json\nimport rolling_graph.util\ndef h():\n    import yaml\n",
    )
    _write(pkg, "util.py", "import os\nimport psycopg\ndef k():\n    import spacy\n")
    # A package's own import rule: one import within it, one listed, one outside (lazily).
    _write(pkg, "view/__init__.py", '"""Views.\n\nMay import: core (the model).\n"""\n')
    _write(
        pkg,
        "view/page.py",
        "from rolling_graph.view import other\nfrom rolling_graph.core import model\n"
        "def f():\n    import rolling_graph.util\n",
    )
    _write(pkg, "view/other.py", "")
    _write(pkg, "view/free/__init__.py", '"""Anything goes here.\n\nMay import: anything.\n"""\n')
    _write(pkg, "view/free/x.py", "import rolling_graph.helper\n")
    return check(pkg)


def test_checker_finds_long_modules_and_functions(broken: Report) -> None:
    assert [m for m, _ in broken.long_modules] == ["rolling_graph/big.py"]
    assert [(q, n) for _, q, n in broken.long_functions] == [("long", MAX_FUNCTION_LINES + 1)]


def test_checker_fails_module_level_cycles_and_reports_lazy_ones(broken: Report) -> None:
    assert broken.cycles == [["rolling_graph.a", "rolling_graph.b"]]
    assert broken.lazy_cycles == [
        ["rolling_graph.c", "rolling_graph.d"],
        ["rolling_graph.plug", "rolling_graph.registry"],
    ]


def test_checker_finds_layer_and_stdlib_violations(broken: Report) -> None:
    assert broken.layer_violations == [
        "rolling_graph.core.model loads rolling_graph.pipeline.engine through "
        "rolling_graph.core.model -> rolling_graph.helper -> rolling_graph.pipeline.engine",
        "rolling_graph.warm.store imports rolling_graph.pipeline.plugins (inside a function)",
    ]
    assert broken.non_stdlib == [
        "rolling_graph.transport.client imports yaml",
        "rolling_graph.transport.client loads psycopg through "
        "rolling_graph.transport.client -> rolling_graph.util",
    ]
    assert broken.rule_violations == [
        "rolling_graph.view.page imports rolling_graph.util (inside a function): "
        "not in rolling_graph.view's 'May import'"
    ]
    assert not broken.ok and "FAIL" in format_report(broken)


# -- the real package: each rule on its own, so that a failure names what to fix


@pytest.fixture(scope="module")
def report() -> Report:
    return check(PACKAGE)


def test_no_module_over_the_limit(report: Report) -> None:
    assert report.long_modules == [], f"over {MAX_MODULE_LINES} lines: {report.long_modules}"


def test_no_function_over_the_limit(report: Report) -> None:
    assert report.long_functions == [], f"over {MAX_FUNCTION_LINES} lines: {report.long_functions}"


def test_no_import_cycle_at_module_level(report: Report) -> None:
    assert report.cycles == [], f"module-level import cycles: {report.cycles}"


def test_layers_point_down(report: Report) -> None:
    assert report.layer_violations == [], "\n".join(report.layer_violations)


def test_every_package_keeps_to_its_import_rule(report: Report) -> None:
    assert report.rule_violations == [], "\n".join(report.rule_violations)


def test_every_package_states_its_import_rule() -> None:
    """Each top-level package (and each half of harness/) says in its docstring what it may
    import, so the rule is read where the code is."""
    from rolling_graph.devtools.structure import import_rules, load_modules

    rules = import_rules(load_modules(PACKAGE), "rolling_graph")
    packages = {f"rolling_graph.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")} - {
        "rolling_graph.harness"
    }
    packages |= {"rolling_graph.harness.adapters", "rolling_graph.harness.install"}
    assert sorted(packages - set(rules)) == []


def test_the_package_root_holds_only_the_entry_modules() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert root == ["__init__.py", "__main__.py", "config.py", "entry.py", "paths.py"]


def test_hook_client_loads_the_standard_library_only(report: Report) -> None:
    assert report.non_stdlib == [], "\n".join(report.non_stdlib)


def test_the_command_prints_the_same_report(report: Report) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "rolling_graph.devtools.structure", str(PACKAGE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.stdout.strip() == format_report(report)
    assert run.returncode == (0 if report.ok else 1)
