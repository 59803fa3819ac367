"""Choosing a probe backend: ``ROLLING_GRAPH_PROBE`` / ``probe =`` in the config file.

``auto`` picks ``anthropic`` when ``ANTHROPIC_API_KEY`` is set, else ``openai`` when
``openai_base_url`` is configured (a local model: Ollama, llama.cpp, vLLM, LM Studio), else
``claude-cli`` when the ``claude`` executable is on PATH, else ``offline``. Third-party backends register through the
``register_probe_backends`` hook and are selected by name like the built-ins.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import Any

from rolling_graph.probe.base import ProbeBackend, ProbeError

BackendFactory = Callable[[Any], ProbeBackend]


def _anthropic(settings: Any) -> ProbeBackend:
    from rolling_graph.probe.anthropic_backend import AnthropicBackend

    return AnthropicBackend(settings)


def _openai(settings: Any) -> ProbeBackend:
    from rolling_graph.probe.openai_backend import OpenAIBackend

    return OpenAIBackend(settings)


def _claude_cli(settings: Any) -> ProbeBackend:
    from rolling_graph.probe.claude_cli import ClaudeCliBackend

    return ClaudeCliBackend(settings)


def _offline(settings: Any) -> ProbeBackend:
    from rolling_graph.probe.offline import OfflineBackend

    return OfflineBackend(settings)


BUILTIN: dict[str, BackendFactory] = {
    "anthropic": _anthropic,
    "claude-cli": _claude_cli,
    "openai": _openai,
    "offline": _offline,
}


def registry(pm: Any = None) -> dict[str, BackendFactory]:
    """Built-in backends plus those registered by plugins (a plugin may not shadow a built-in)."""
    out = dict(BUILTIN)
    if pm is not None:

        def register(name: str, factory: BackendFactory) -> None:
            if name not in BUILTIN and name != "auto":
                out[name] = factory

        pm.hook.register_probe_backends(register=register)
    return out


def resolve_name(name: str, settings: Any, env: dict[str, str] | None = None) -> str:
    """``auto`` → the backend that will actually run, in the documented order."""
    if name != "auto":
        return name
    env = dict(os.environ) if env is None else env
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if getattr(settings, "openai_base_url", ""):
        return "openai"  # only when configured here: OPENAI_API_KEY alone may be for other tools
    if shutil.which(getattr(settings, "claude_bin", "claude") or "claude", path=env.get("PATH")):
        return "claude-cli"
    return "offline"


def make_backend(settings: Any, pm: Any = None, name: str | None = None) -> ProbeBackend:
    """The configured backend (``name`` overrides ``settings.probe``)."""
    chosen = resolve_name(name or getattr(settings, "probe", "auto"), settings)
    factories = registry(pm)
    if chosen not in factories:
        raise ProbeError(f"unknown probe backend {chosen!r}; one of {', '.join(sorted(factories))}")
    return factories[chosen](settings)
