"""The real Codex CLI, Gemini CLI and Copilot CLI from npm, each driven offline.

For each client: its npm package at a pinned version (installed on demand into
``.e2e-cache/``, or named by ``ROLLING_GRAPH_E2E_<CLIENT>``), the stand-in of its model API,
the scratch configuration that points the client at it, and how to run one prompt (new
session or resumed) and find the session id.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fake_gemini import FakeGeminiAPI
from .fake_openai import FakeChatCompletionsAPI, FakeResponsesAPI
from .standin_base import StandIn

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".e2e-cache"


class ClientUnavailable(RuntimeError):
    """Neither a matching binary nor npm to install one."""


@dataclass(frozen=True)
class Client:
    name: str  # the harness name rolling-graph uses
    package: str
    version: str  # the one place each client's version is pinned
    binary: str
    standin: Callable[[Path], StandIn]
    configure: Callable[[Path, Path, StandIn], dict[str, str]]  # (home, project, api) → env
    argv: Callable[[str, bool], list[str]]  # (prompt, resume) → arguments after the binary
    session_id: Callable[[str, Path], str]  # (stdout, home) → session id
    # (prompt) → arguments of a resumed run that compacts, for clients that can be made to
    compact_argv: Callable[[str], list[str]] | None = None


def _version_ok(binary: Path, version: str) -> bool:
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and version in out.stdout


def _check_node(target: Path, client: Client) -> None:
    """A clear reason when Node.js is older than the package needs (Debian 12's is 18; Gemini
    CLI needs 20), rather than a failed ``--version``."""
    meta = target / "node_modules" / Path(client.package) / "package.json"
    try:
        need = json.loads(meta.read_text())["engines"]["node"]
        have = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, KeyError, ValueError, subprocess.TimeoutExpired):
        return
    digits = [int(x) for x in have.stdout.strip().lstrip("v").split(".")[:1] if x.isdigit()]
    floor = [int(x) for x in need.lstrip(">=~^ ").split(".")[:1] if x.isdigit()]
    if digits and floor and digits[0] < floor[0]:
        raise ClientUnavailable(f"{client.package} needs Node.js {need}, found {have.stdout}")


def ensure_client(client: Client, cache_dir: Path = CACHE_DIR) -> Path:
    """The client's binary at the pinned version: the override variable, the cache, or npm."""
    override = os.environ.get(f"ROLLING_GRAPH_E2E_{client.name.upper()}")
    if override:
        return Path(override)
    target = cache_dir / f"{client.name}-{client.version}"
    binary = target / "node_modules" / ".bin" / client.binary
    if binary.exists() and _version_ok(binary, client.version):
        return binary
    if binary.exists():
        _check_node(target, client)
    npm = shutil.which("npm")
    if npm is None:
        raise ClientUnavailable(f"npm not found and no {client.name} {client.version}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Why a temp dir + rename: concurrent runs never see a half-installed package.
    staging = Path(tempfile.mkdtemp(prefix=f".{client.name}-{client.version}-", dir=cache_dir))
    try:
        proc = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund"]
            + [f"{client.package}@{client.version}"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if proc.returncode != 0:
            raise ClientUnavailable(f"npm install failed: {proc.stderr[-2000:]}")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    if not _version_ok(binary, client.version):
        _check_node(target, client)
        raise ClientUnavailable(f"{binary} does not report version {client.version}")
    return binary


# ---------------------------------------------------------------------------------------------
# Codex CLI: the Responses API at a configured provider's base URL
# ---------------------------------------------------------------------------------------------


def _codex_configure(home: Path, project: Path, api: StandIn) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.1-codex"\n'
        'model_provider = "standin"\n'
        "check_for_update_on_startup = false\n\n"
        "[model_providers.standin]\n"
        'name = "local stand-in"\n'
        f'base_url = "{api.base_url}/v1"\n'
        'wire_api = "responses"\n'
    )
    return {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "sk-e2e-dummy"}


def _codex_argv(prompt: str, resume: bool) -> list[str]:
    args = ["exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", "--json"]
    return args + (["resume", "--last", prompt] if resume else [prompt])


def _codex_compact_argv(prompt: str) -> list[str]:
    # Why a tiny limit: Codex then compacts automatically in the middle of this turn (after the
    # tool call), firing PreCompact, PostCompact and SessionStart(compact) as it would for real.
    args = _codex_argv(prompt, resume=True)
    return args[:1] + ["-c", "model_auto_compact_token_limit=5000"] + args[1:]


def _codex_session(stdout: str, home: Path) -> str:
    for line in stdout.splitlines():
        if '"thread.started"' in line:
            return str(json.loads(line)["thread_id"])
    raise AssertionError(f"no thread.started in codex output:\n{stdout[-2000:]}")


# ---------------------------------------------------------------------------------------------
# Gemini CLI: the Gemini API at GOOGLE_GEMINI_BASE_URL
# ---------------------------------------------------------------------------------------------


def _gemini_configure(home: Path, project: Path, api: StandIn) -> dict[str, str]:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        # Session cleanup (on by default) deletes, at a later start, chat files it cannot read
        # as a session: a run crossing a minute leaves two, and the test reads them afterwards.
        "general": {
            "disableAutoUpdate": True,
            "disableUpdateNag": True,
            "sessionRetention": {"enabled": False},
        },
        "privacy": {"usageStatisticsEnabled": False},
        "model": {"name": "gemini-2.5-flash"},
    }
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    return {
        "GEMINI_API_KEY": "e2e-dummy-key",
        "GOOGLE_GEMINI_BASE_URL": api.base_url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_CLI_NO_RELAUNCH": "1",
    }


def _gemini_argv(prompt: str, resume: bool) -> list[str]:
    return ["--yolo", "-o", "json"] + (["--resume", "latest"] if resume else []) + ["-p", prompt]


def _gemini_session(stdout: str, home: Path) -> str:
    start = stdout.find("{")
    return str(json.loads(stdout[start:])["session_id"])


# ---------------------------------------------------------------------------------------------
# Copilot CLI: a BYOK provider base URL speaking OpenAI chat completions
# ---------------------------------------------------------------------------------------------


def _copilot_configure(home: Path, project: Path, api: StandIn) -> dict[str, str]:
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{api.base_url}/v1",
        "COPILOT_PROVIDER_API_KEY": "sk-e2e-dummy",
        "COPILOT_MODEL": "gpt-4.1",
        "COPILOT_AUTO_UPDATE": "false",
        # Why a shared cache: the binary unpacks ~200 MB there on first run (several seconds).
        "XDG_CACHE_HOME": str(CACHE_DIR / "copilot-xdg-cache"),
    }


def _copilot_argv(prompt: str, resume: bool) -> list[str]:
    args = ["--allow-all-tools", "--no-auto-update", "-s", "--disable-client-telemetry"]
    return args + (["--continue"] if resume else []) + ["-p", prompt]


def _copilot_compact_argv(prompt: str) -> list[str]:
    # Copilot runs slash commands in prompt mode: /compact summarises the resumed session.
    return _copilot_argv("/compact", resume=True)


def _copilot_session(stdout: str, home: Path) -> str:
    states = sorted(
        (home / ".copilot" / "session-state").iterdir(), key=lambda p: p.stat().st_mtime
    )
    return states[-1].name


CLIENTS: dict[str, Client] = {
    "codex": Client(
        "codex",
        "@openai/codex",
        "0.169.0",
        "codex",
        FakeResponsesAPI,
        _codex_configure,
        _codex_argv,
        _codex_session,
        _codex_compact_argv,
    ),
    "gemini": Client(
        "gemini",
        "@google/gemini-cli",
        "0.61.0",
        "gemini",
        FakeGeminiAPI,
        _gemini_configure,
        _gemini_argv,
        _gemini_session,
    ),
    "copilot": Client(
        "copilot",
        "@github/copilot",
        "1.0.102",
        "copilot",
        FakeChatCompletionsAPI,
        _copilot_configure,
        _copilot_argv,
        _copilot_session,
        _copilot_compact_argv,
    ),
}


def base_env(home: Path) -> dict[str, Any]:
    # Why a fresh env rather than os.environ: no real key, config dir or proxy leaks in.
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "NO_COLOR": "1",
    }
