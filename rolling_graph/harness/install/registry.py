"""One interface over the per-harness installers (Codex, Gemini CLI, Copilot CLI), for the
``install`` / ``uninstall`` commands and ``doctor``. Claude Code keeps its own module
(:mod:`rolling_graph.harness.install.claude_code`), whose commands predate this one.

Each harness is a :class:`Harness` of small functions; registering something more (an MCP
server entry, say) is one more function in the harness's module, called from ``install`` and
``uninstall`` there. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rolling_graph.harness.install import codex as install_codex
from rolling_graph.harness.install import copilot as install_copilot
from rolling_graph.harness.install import gemini as install_gemini

Result = tuple[bool, list[Path]]  # (changed, backups written)


@dataclass(frozen=True)
class Harness:
    name: str
    label: str
    scopes: tuple[str, ...]
    path: Callable[[str, Path | None, Path | None], Path]
    install: Callable[[Path, str | None, Path | None], Result]
    uninstall: Callable[[Path, Path | None], Result]
    status: Callable[[Path, Path | None], tuple[list[str], list[str]]]
    unit: str  # of the timeouts written, for doctor's report


def _codex_install(path: Path, exe: str | None, home: Path | None) -> Result:
    cmd = install_codex.hook_command(exe) if exe else None
    return install_codex.install(path, install_codex.config_path(home), cmd)


HARNESSES: dict[str, Harness] = {
    "codex": Harness(
        "codex",
        "Codex CLI",
        install_codex.SCOPES,
        install_codex.hooks_path,
        _codex_install,
        lambda p, home: install_codex.uninstall(p, install_codex.config_path(home)),
        lambda p, home: install_codex.status(p, install_codex.config_path(home)),
        "s",
    ),
    "gemini": Harness(
        "gemini",
        "Gemini CLI",
        install_gemini.SCOPES,
        install_gemini.settings_path,
        lambda p, exe, home: install_gemini.install(
            p, install_gemini.hook_command(exe) if exe else None
        ),
        lambda p, home: install_gemini.uninstall(p),
        lambda p, home: install_gemini.status(p),
        "ms",
    ),
    "copilot": Harness(
        "copilot",
        "GitHub Copilot CLI",
        install_copilot.SCOPES,
        install_copilot.hooks_path,
        lambda p, exe, home: install_copilot.install(p, exe),
        lambda p, home: install_copilot.uninstall(p),
        lambda p, home: install_copilot.status(p),
        "s",
    ),
}


def get(name: str) -> Harness:
    if name not in HARNESSES:
        raise KeyError(f"unknown harness {name!r}; known: {', '.join(HARNESSES)}")
    return HARNESSES[name]
