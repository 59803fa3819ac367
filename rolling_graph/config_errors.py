"""One line per bad setting, naming where it came from and what it expects (instead of
pydantic's report with its URL): ``ROLLING_GRAPH_BUDGET='abc' expects an integer``."""

from __future__ import annotations

import os
from typing import Any

ENV_PREFIX = "ROLLING_GRAPH_"


class SettingsError(ValueError):
    """A setting (environment variable, config.toml or argument) that cannot be used."""


def _expects(err: dict[str, Any]) -> str:
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    if kind.startswith("int_"):
        return "an integer"
    if kind.startswith("float_"):
        return "a number"
    if kind.startswith("bool_"):
        return "true or false"
    if kind == "literal_error":
        return f"one of {ctx.get('expected', '?')}"
    bounds = {
        "greater_than_equal": "≥ {ge}",
        "greater_than": "> {gt}",
        "less_than_equal": "≤ {le}",
        "less_than": "< {lt}",
    }
    if kind in bounds:
        return "a value " + bounds[kind].format(**ctx)
    return str(err.get("msg", "another value")).removeprefix("Value error, ")


def explain(err: Any, config_file: Any = None) -> str:
    """``err`` (a pydantic ValidationError of Settings) as one line per bad setting."""
    lines = []
    for e in err.errors():
        name = str(e.get("loc", ("?",))[0])
        env = ENV_PREFIX + name.upper()
        if env in os.environ:
            where = f"{env}={os.environ[env]!r}"
        elif config_file is not None:
            where = f"{name} = {e.get('input')!r} in {config_file}"
        else:
            where = f"{name}={e.get('input')!r}"
        lines.append(f"{where} expects {_expects(e)}")
    return "; ".join(lines)
