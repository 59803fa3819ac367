"""Drive the real Claude Code CLI against the local Messages API stand-in.

Shared by the pytest fixtures (conftest.py) and the payload capture script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .fake_messages_api import FakeMessagesAPI
from .transcript import HookRecord, find_transcript, hook_records, read_transcript

# The one place the Claude Code version is pinned (installed on demand into .e2e-cache/).
CLAUDE_CODE_VERSION = "2.1.330"
CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".e2e-cache"

# Hook events we register for; matchers are ignored by events without one.
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "Stop",
    "SessionEnd",
)


class ClaudeUnavailable(RuntimeError):
    """Neither a matching ``claude`` nor npm to install one."""


def _version_of(binary: str | Path) -> str | None:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.split()[0] if out.returncode == 0 and out.stdout.strip() else None


def ensure_claude(version: str = CLAUDE_CODE_VERSION, cache_dir: Path = CACHE_DIR) -> Path:
    """Return a ``claude`` binary of ``version``: $ROLLING_GRAPH_E2E_CLAUDE, PATH, or npm install.

    Why install into a versioned folder via a temp dir + rename: concurrent test runs never see
    a half-installed package, and bumping the pin never reuses a stale install.
    """
    override = os.environ.get("ROLLING_GRAPH_E2E_CLAUDE")
    if override:
        return Path(override)
    on_path = shutil.which("claude")
    if on_path and _version_of(on_path) == version:
        return Path(on_path)
    target = cache_dir / f"claude-code-{version}"
    binary = target / "node_modules" / ".bin" / "claude"
    if binary.exists() and _version_of(binary) == version:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeUnavailable("npm not found and no claude " + version)
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".claude-code-{version}-", dir=cache_dir))
    try:
        proc = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund"]
            + [f"{CLAUDE_CODE_PACKAGE}@{version}"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if proc.returncode != 0:
            raise ClaudeUnavailable(f"npm install failed: {proc.stderr[-2000:]}")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    if _version_of(binary) != version:
        raise ClaudeUnavailable(f"installed claude at {binary} does not report {version}")
    return binary


def hooks_settings(
    commands: Mapping[str, str | Sequence[str]], timeout: int = 30
) -> dict[str, Any]:
    """Build a ``settings.json`` ``hooks`` block: event -> command(s), matching everything."""
    hooks: dict[str, Any] = {}
    for event, cmds in commands.items():
        cmd_list = [cmds] if isinstance(cmds, str) else list(cmds)
        hooks[event] = [
            {
                "matcher": "",
                "hooks": [{"type": "command", "command": c, "timeout": timeout} for c in cmd_list],
            }
        ]
    return {"hooks": hooks}


class ClaudeRunError(RuntimeError):
    pass


class ClaudeHarness:
    """A scratch HOME + project dir wired to a running :class:`FakeMessagesAPI`."""

    def __init__(self, binary: Path, api: FakeMessagesAPI, base: Path) -> None:
        self.binary = binary
        self.api = api
        self.home = base / "home"
        self.project = base / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        (self.project / ".claude").mkdir(parents=True, exist_ok=True)
        self.runs: list[dict[str, Any]] = []

    # -- configuration ---------------------------------------------------------------------
    def write_settings(self, settings: Mapping[str, Any]) -> Path:
        """Write the scratch project's ``.claude/settings.json`` (hooks live here)."""
        path = self.project / ".claude" / "settings.json"
        path.write_text(json.dumps(settings, indent=2))
        return path

    def set_hooks(self, commands: Mapping[str, str | Sequence[str]], timeout: int = 30) -> Path:
        return self.write_settings(hooks_settings(commands, timeout))

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        # Why a fresh env rather than os.environ: no real API key, config dir or proxy leaks in.
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            "ANTHROPIC_BASE_URL": self.api.base_url,
            "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        env.update(extra or {})
        return env

    # -- running ---------------------------------------------------------------------------
    def run(
        self,
        prompt: str,
        *,
        resume: str | None = None,
        allowed_tools: Iterable[str] = ("Bash", "Read", "Edit", "Write"),
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> dict[str, Any]:
        """Run ``claude -p PROMPT --output-format json`` in the project dir; return the result.

        The parsed JSON gains ``_stderr``, ``_returncode`` and ``_wall_s`` for diagnostics.
        """
        cmd = [str(self.binary), "-p", prompt, "--output-format", "json"]
        tools = list(allowed_tools)
        if tools:
            cmd += ["--allowedTools", ",".join(tools)]
        if resume:
            cmd += ["--resume", resume]
        cmd += list(extra_args)
        t0 = time.monotonic()
        proc = subprocess.run(
            cmd,
            cwd=self.project,
            env=self.env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        wall = time.monotonic() - t0
        try:
            result: dict[str, Any] = json.loads(proc.stdout)
        except ValueError as exc:
            raise ClaudeRunError(
                f"claude rc={proc.returncode}, non-JSON stdout:\n{proc.stdout[-3000:]}\n"
                f"stderr:\n{proc.stderr[-3000:]}"
            ) from exc
        result.update(_stderr=proc.stderr, _returncode=proc.returncode, _wall_s=wall)
        self.runs.append(result)
        if check and (proc.returncode != 0 or result.get("is_error")):
            raise ClaudeRunError(f"claude failed rc={proc.returncode}: {result}")
        return result

    # -- transcript ------------------------------------------------------------------------
    def transcript_path(self, session_id: str) -> Path:
        return find_transcript(self.home, session_id)

    def transcript(self, session_id: str) -> list[dict[str, Any]]:
        return read_transcript(self.transcript_path(session_id))

    def hook_records(self, session_id: str) -> list[HookRecord]:
        return hook_records(self.transcript(session_id))
