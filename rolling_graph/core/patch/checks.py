"""Checks of a probe's patch before anything is applied: its shape (JSON, ops, JSON pointer
paths), each op's reason, and the type, enum and size of every writable field. Every failure
raises :class:`PatchRejected` naming the op."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rolling_graph.config import DEFAULT_RELATIONSHIPS
from rolling_graph.core.model import (
    ATTR_KEY_RE,
    DOMAINS,
    KINDS,
    MAX_ALIAS,
    MAX_ALIASES,
    MAX_ATTR_VALUE,
    MAX_ATTRS,
    MAX_LABEL,
    MAX_SUMMARY,
)

MAX_REASON = 300
MAX_PATCH_BYTES = 64_000
NODE_FIELDS_WRITABLE = frozenset(
    {"id", "label", "domain", "weight", "summary", "aliases", "kind", "attrs"}
)
EDGE_FIELDS_WRITABLE = frozenset({"source", "target", "relationship", "strength"})
DIRECTIONS = ("strengthen", "weaken")


class PatchRejected(ValueError):
    """The patch was refused as a whole; ``str(err)`` says which op and why."""


@dataclass(frozen=True)
class Limits:
    relationships: frozenset[str] = frozenset(DEFAULT_RELATIONSHIPS)
    max_nodes: int = 20_000
    max_edges: int = 100_000
    max_ops: int = 64
    max_bytes: int = MAX_PATCH_BYTES


def parse_patch(raw: Any) -> tuple[list[Any], str | None]:
    """Accept a JSON string, a list of ops, or ``{"ops": [...], "rationale": "..."}``."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        if len(raw.encode()) > MAX_PATCH_BYTES:
            raise PatchRejected(f"patch is {len(raw.encode())} bytes, over {MAX_PATCH_BYTES}")
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as err:
            raise PatchRejected(
                f"malformed JSON: {err.msg} at line {err.lineno} column {err.colno}"
            ) from None
    rationale = None
    if isinstance(raw, dict):
        rationale = raw.get("rationale")
        if rationale is not None and not isinstance(rationale, str):
            raise PatchRejected("rationale must be a string")
        extra = set(raw) - {"ops", "rationale", "patch"}
        if extra:
            raise PatchRejected(f"unknown top-level keys: {sorted(extra)}")
        raw = raw.get("ops", raw.get("patch"))
    if not isinstance(raw, list):
        raise PatchRejected("a patch must be a JSON array of operations")
    return raw, rationale


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def split_path(path: Any, i: int) -> list[str]:
    if not isinstance(path, str) or not path.startswith("/"):
        raise PatchRejected(f"op {i}: path must be a JSON pointer string, got {path!r}")
    parts = [unescape(p) for p in path[1:].split("/")]
    if parts[0] not in ("nodes", "edges") or len(parts) < 2 or not parts[1]:
        raise PatchRejected(
            f"op {i}: unknown path {path!r}; only /nodes/<id> and /edges/<key> are writable"
        )
    return parts


def check_reason(op: dict[str, Any], i: int) -> str:
    reason = op.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise PatchRejected(f"op {i}: every op needs a short 'reason' string")
    if len(reason) > MAX_REASON:
        raise PatchRejected(f"op {i}: reason is {len(reason)} chars, over {MAX_REASON}")
    return reason.strip()


def check_direction(value: Any, i: int, what: str) -> str | float:
    if isinstance(value, str) and value in DIRECTIONS:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PatchRejected(
            f"op {i}: {what} must be 'strengthen', 'weaken' or a number in [0, 1], got {value!r}"
        )
    if not 0.0 <= float(value) <= 1.0:
        raise PatchRejected(f"op {i}: {what} {value!r} is outside [0, 1]")
    return float(value)


def check_field(name: str, value: Any, i: int) -> Any:
    """Type, enum and size checks for one writable node field; returns the value to store."""
    if name == "label":
        if not isinstance(value, str) or not value.strip():
            raise PatchRejected(f"op {i}: label must be a non-empty string")
        if len(value.strip()) > MAX_LABEL:
            raise PatchRejected(f"op {i}: label is {len(value.strip())} chars, over {MAX_LABEL}")
        return value.strip()
    if name == "domain":
        if value not in DOMAINS:
            raise PatchRejected(f"op {i}: unknown domain {value!r}; one of {', '.join(DOMAINS)}")
        return value
    if name == "summary":
        if not isinstance(value, str):
            raise PatchRejected(f"op {i}: summary must be a string")
        if len(value.strip()) > MAX_SUMMARY:
            raise PatchRejected(
                f"op {i}: summary is {len(value.strip())} chars, over {MAX_SUMMARY}"
            )
        return value.strip()
    if name == "kind":
        if value not in KINDS:
            raise PatchRejected(f"op {i}: unknown kind {value!r}; one of {', '.join(KINDS)}")
        return value
    if name == "aliases":
        if not isinstance(value, list) or not all(isinstance(a, str) and a.strip() for a in value):
            raise PatchRejected(f"op {i}: aliases must be a list of non-empty strings")
        if len(value) > MAX_ALIASES or any(len(a) > MAX_ALIAS for a in value):
            raise PatchRejected(
                f"op {i}: at most {MAX_ALIASES} aliases of at most {MAX_ALIAS} chars"
            )
        return list(dict.fromkeys(a.strip() for a in value))
    if name == "attrs":
        return check_attrs(value, i)
    raise PatchRejected(f"op {i}: field {name!r} is not writable")


def check_attrs(value: Any, i: int) -> dict[str, str]:
    """Attributes: a small str → str map; an empty value clears that key when merged."""
    if not isinstance(value, dict):
        raise PatchRejected(f"op {i}: attrs must be an object of strings")
    out: dict[str, str] = {}
    for key, raw in value.items():
        if not isinstance(key, str) or not re.match(ATTR_KEY_RE, key):
            raise PatchRejected(f"op {i}: attribute name {key!r} must match {ATTR_KEY_RE}")
        if not isinstance(raw, str) or len(raw.strip()) > MAX_ATTR_VALUE:
            raise PatchRejected(
                f"op {i}: attribute {key!r} must be a string of at most {MAX_ATTR_VALUE} chars"
            )
        out[key] = raw.strip()
    if len(out) > MAX_ATTRS:
        raise PatchRejected(f"op {i}: at most {MAX_ATTRS} attributes")
    return out


def merge_attrs(old: dict[str, str] | None, new: dict[str, str], i: int) -> dict[str, str] | None:
    """New keys override, empty values remove; ``None`` when nothing is left."""
    merged = dict(old or {})
    for key, val in new.items():
        if val:
            merged[key] = val
        else:
            merged.pop(key, None)
    if len(merged) > MAX_ATTRS:
        raise PatchRejected(f"op {i}: a node has at most {MAX_ATTRS} attributes")
    return merged or None
