"""JSON Patch (RFC 6902) ``add``, ``replace`` and ``remove`` with RFC 6901 pointers, applied in
place to a document of dicts, lists and JSON values: the operations the engine's normalized ops
use (:mod:`.draft`, :mod:`.history`).

The reference library (``jsonpatch``) is the oracle of this module's tests. It builds a pointer
object and a journal for every op; the engine applies a few thousand small patches a session,
and that cost was a twentieth of a replay. Values are copied in, as the library does, so that
the document never shares a mutable value with the ops that the audit log keeps.
"""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.core.json_values import json_copy
from rolling_graph.core.patch.checks import PatchRejected, unescape

_INDEX = re.compile(r"0|[1-9][0-9]*")  # RFC 6901: no sign, no leading zero
_BAD_ESCAPE = re.compile(r"~(?![01])")  # RFC 6901: "~" only as "~0" or "~1"


class PatchConflict(PatchRejected):
    """An op whose path does not resolve in the document."""


def _index(token: str, size: int, path: str) -> int:
    if not _INDEX.fullmatch(token) or int(token) >= size:
        raise PatchConflict(f"{path}: no array index {token!r}")
    return int(token)


def _parent(doc: Any, parts: list[str], path: str) -> Any:
    node = doc
    for token in parts[:-1]:
        if isinstance(node, dict):
            if token not in node:
                raise PatchConflict(f"{path}: no member {token!r}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(token, len(node), path)]
        else:
            raise PatchConflict(f"{path}: {token!r} is under a value, not a container")
    return node


def apply_ops(doc: Any, ops: list[dict[str, Any]]) -> None:
    """Apply ``ops`` to ``doc`` in place; raises :class:`PatchConflict` at the first op that
    cannot apply (the document may then hold the ops before it: apply to a copy)."""
    for op in ops:
        kind, path = op["op"], op["path"]
        if kind not in ("add", "replace", "remove"):
            raise PatchConflict(f"{path}: op {kind!r} is not one of add, replace, remove")
        if not isinstance(path, str) or not path.startswith("/"):
            raise PatchConflict(f"{path!r}: a path names a member of the document")
        if _BAD_ESCAPE.search(path):
            raise PatchConflict(f"{path}: '~' is written '~0', '/' in a name '~1'")
        parts = [unescape(t) for t in path[1:].split("/")]
        parent, last = _parent(doc, parts, path), parts[-1]
        if isinstance(parent, dict):
            if kind != "add" and last not in parent:
                raise PatchConflict(f"{path}: no member {last!r} to {kind}")
            if kind == "remove":
                del parent[last]
            else:
                parent[last] = json_copy(op["value"])
        elif isinstance(parent, list):
            if kind == "add":
                at = len(parent) if last == "-" else _index(last, len(parent) + 1, path)
                parent.insert(at, json_copy(op["value"]))
            elif kind == "replace":
                parent[_index(last, len(parent), path)] = json_copy(op["value"])
            else:
                del parent[_index(last, len(parent), path)]
        else:
            raise PatchConflict(f"{path}: the parent is a value, not a container")
