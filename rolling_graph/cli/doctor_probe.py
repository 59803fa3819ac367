"""``rolling-graph doctor``'s probe checks: the backend that will actually run is usable
(offline: the spaCy pipeline loads; anthropic: key set and SDK importable; openai: the endpoint
answers; claude-cli: on PATH; a plugin backend: registered), and paid probes are not failing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from rolling_graph.cli.doctor_check import Check


def _spacy_model_installed(model: str) -> bool:
    import spacy.util

    return bool(spacy.util.is_package(model)) or Path(model).expanduser().is_dir()


def check_probe(settings: Any) -> Check:
    from rolling_graph.probe.select import resolve_name

    configured = getattr(settings, "probe", "auto")
    try:
        name = resolve_name(configured, settings)
    except Exception as err:  # noqa: BLE001
        return Check("probe", False, f"cannot resolve probe {configured!r}: {err}", "")
    label = name if configured == name else f"{name} (auto)"
    if name == "offline":
        return _check_offline(settings, label)
    if name == "anthropic":
        return _check_anthropic(label)
    if name == "openai":
        return _check_openai(settings, label)
    if name == "claude-cli":
        return _check_claude_cli(settings, label)
    return _check_plugin(name, label)


def _check_offline(settings: Any, label: str) -> Check:
    try:
        from rolling_graph.nlp import get_nlp

        get_nlp(getattr(settings, "spacy_model", "") or "")
    except Exception as err:  # noqa: BLE001 - missing model, broken spaCy install
        model = getattr(settings, "spacy_model", "") or "blank en"
        return Check(
            "probe",
            False,
            f"offline: the spaCy pipeline ({model}) does not load: {err}",
            "install the spaCy model named by spacy_model, or leave spacy_model empty",
        )
    model = getattr(settings, "spacy_model", "") or ""
    if model and not _spacy_model_installed(model):
        # The pipeline silently falls back to rules only; a person who set a model wants it.
        return Check(
            "probe",
            False,
            f"offline: spaCy model {model!r} is not installed (running on rules only)",
            f"pip install the {model} package, or set spacy_model empty",
        )
    return Check("probe", True, f"{label}: spaCy pipeline loads")


def _check_anthropic(label: str) -> Check:
    problems = []
    if not os.environ.get("ANTHROPIC_API_KEY"):
        problems.append("ANTHROPIC_API_KEY is not set")
    try:
        import anthropic  # noqa: F401
    except ImportError:
        problems.append("the anthropic SDK is not installed")
    if problems:
        return Check(
            "probe",
            False,
            f"anthropic: {'; '.join(problems)}",
            "export ANTHROPIC_API_KEY and pip install 'rolling-graph[anthropic]', "
            "or set probe = offline",
        )
    return Check("probe", True, f"{label}: key set, SDK importable")


def _check_claude_cli(settings: Any, label: str) -> Check:
    binary = getattr(settings, "claude_bin", "claude") or "claude"
    found = shutil.which(binary)
    if not found:
        return Check(
            "probe",
            False,
            f"claude-cli: {binary!r} is not on PATH",
            "install Claude Code, set claude_bin, or set probe = offline",
        )
    return Check("probe", True, f"{label}: {found}")


def _check_plugin(name: str, label: str) -> Check:
    from rolling_graph.probe.select import registry

    try:
        from rolling_graph.pipeline.plugins import get_plugin_manager

        known = registry(get_plugin_manager())
    except Exception as err:  # noqa: BLE001
        return Check("probe", False, f"{name}: plugins do not load: {err}", "")
    if name not in known:
        return Check(
            "probe",
            False,
            f"unknown probe backend {name!r}; known: {', '.join(sorted(known))}",
            "set probe to one of those",
        )
    return Check("probe", True, f"{label} (plugin)")


def _check_openai(settings: Any, label: str) -> Check:
    """SDK importable, and the endpoint answers ``GET /models`` (a local server may be down)."""
    import urllib.error
    import urllib.request

    try:
        import openai  # noqa: F401
    except ImportError:
        return Check(
            "probe",
            False,
            "openai: the SDK is not installed",
            "pip install 'rolling-graph[openai]'",
        )
    base = settings.openai_base_url or os.environ.get("OPENAI_BASE_URL", "")
    key = settings.openai_api_key or os.environ.get("OPENAI_API_KEY", "")
    if not base and not key:
        return Check(
            "probe",
            False,
            "openai: neither openai_base_url nor OPENAI_API_KEY is set",
            "set openai_base_url (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY",
        )
    url = (base or "https://api.openai.com/v1").rstrip("/") + "/models"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key or 'x'}"})
    try:
        with urllib.request.urlopen(req, timeout=3):
            pass
    except urllib.error.HTTPError as err:
        if err.code in (401, 403):
            return Check("probe", False, f"openai: {url} refused the key (HTTP {err.code})", "")
    except (OSError, ValueError) as err:
        return Check(
            "probe",
            False,
            f"openai: {url} does not answer: {err}",
            "start the server (ollama serve, llama-server…) or fix openai_base_url",
        )
    return Check("probe", True, f"{label}: {settings.openai_model} at {url.rsplit('/', 1)[0]}")


def check_probe_health(settings: Any) -> Check:
    """A paid backend that failed lately: say so, with the error (the graph keeps growing on
    the offline probe meanwhile, so this is a warning that fails the doctor, not an outage)."""
    from rolling_graph.probe.health import Health

    healthy, detail = Health.from_settings(settings).status()
    fix = "" if healthy else "fix the backend (key, base URL, server) or set probe = offline"
    return Check("probe health", healthy, detail, fix)
