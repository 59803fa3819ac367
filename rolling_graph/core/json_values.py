"""JSON values in memory: a deep copy, and the value a JSON round trip would give back, both
without writing the text (a replay's state files hold long messages, and encoding them on every
event cost more than the work they record)."""

from __future__ import annotations

import math
from typing import Any


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON-like value (dicts, lists, tuples; the rest is immutable), several
    times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: json_copy(v) if isinstance(v, _NESTED) else v for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if isinstance(v, _NESTED) else v for v in value]
    if isinstance(value, tuple):
        return tuple(json_copy(v) if isinstance(v, _NESTED) else v for v in value)
    return value


_NESTED = (dict, list, tuple)  # a scalar is shared, not copied: no call per string
_SCALARS = frozenset({str, int, float, bool, type(None)})  # exact types: JSON gives them back


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    if isinstance(key, float):
        if key != key:
            return "NaN"
        return {math.inf: "Infinity", -math.inf: "-Infinity"}.get(key) or float.__repr__(key)
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def round_tripped(value: Any) -> Any:
    """``json.loads(json.dumps(value))``, as a new value: tuples become lists, keys strings;
    what JSON cannot hold raises ``TypeError`` as ``json.dumps`` does."""
    if value is None or value is True or value is False or type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, dict):
        return {
            k if type(k) is str else _key(k): v if type(v) in _SCALARS else round_tripped(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [v if type(v) in _SCALARS else round_tripped(v) for v in value]
    if isinstance(value, int):
        return int(value)  # an IntEnum is written as its number
    if isinstance(value, float):
        return float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
