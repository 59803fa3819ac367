"""Install / uninstall our hooks in Codex CLI, trusted so that ``codex exec`` runs them.

Hooks go into ``hooks.json`` (user scope: ``$CODEX_HOME/hooks.json``, default ``~/.codex``;
project scope: ``<cwd>/.codex/hooks.json``), with the Claude-style layout Codex reads (event →
matcher groups → command handlers, timeouts in seconds). Codex runs an unmanaged hook only when
the user's ``config.toml`` holds ``[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]``
with a ``trusted_hash`` equal to the hash of the hook's normalized definition; anything else is
skipped in silence, and ``codex exec`` has no prompt to trust it. So install writes that trust
for exactly our handlers, in a marked block of ``config.toml`` per hooks file, which uninstall
removes again. Everything else in both files is kept; each changed file is backed up first.

A later step (an MCP server entry, ``[mcp_servers.rolling-graph]``) can reuse
:func:`replace_block` with its own marker. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from rolling_graph.harness.install import claude_code as base
from rolling_graph.harness.install import no_trace

EVENTS: dict[str, int] = {
    # event → timeout in seconds; the client answers within ~0.3 s, these are ceilings.
    # SessionStart waits up to 20 s for a cold worker (transport.client.DEFAULT_START_BUDGET_MS).
    "SessionStart": 30,
    "UserPromptSubmit": 5,
    "PreToolUse": 5,
    "PostToolUse": 5,
    "PreCompact": 10,
}
SCOPES = ("user", "project")
_LABELS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PermissionRequest": "permission_request",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
}


def codex_home(home: Path | None = None) -> Path:
    explicit = os.environ.get("CODEX_HOME")
    if explicit:
        return Path(explicit).expanduser().resolve()
    return (home or Path.home()) / ".codex"


def hooks_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    if scope == "user":
        return codex_home(home) / "hooks.json"
    return (cwd or Path.cwd()).absolute() / ".codex" / "hooks.json"


def config_path(home: Path | None = None) -> Path:
    return codex_home(home) / "config.toml"


def hook_command(executable: str | None = None) -> str:
    return f"{base.hook_command(executable)} --harness codex"


# ---------------------------------------------------------------------------------------------
# Trust: Codex's hash of a normalized hook definition (hooks/src/engine/discovery.rs)
# ---------------------------------------------------------------------------------------------


def trusted_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """``sha256:`` + hex of the key-sorted compact JSON of the hook's normalized identity.

    Normalization as Codex does it: the timeout is always present (default 600 s, at least 1;
    SessionEnd clamped to 1..3), ``async`` always present, unset fields absent, the matcher
    dropped for events that take none."""
    timeout = int(handler.get("timeout") or handler.get("timeoutSec") or 600)
    timeout = min(max(timeout, 1), 3) if event == "SessionEnd" else max(timeout, 1)
    norm: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _LABELS[event], "hooks": [norm]}
    matcher = group.get("matcher")
    if matcher is not None and event not in ("UserPromptSubmit", "Stop"):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def our_trust(hooks_file: Path, data: dict[str, Any]) -> dict[str, str]:
    """``{state key: trusted_hash}`` for each of our handlers in a parsed hooks.json."""
    out: dict[str, str] = {}
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    for event, groups in hooks.items():
        if event not in _LABELS or not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers or []):
                if base.is_ours(handler):
                    key = f"{hooks_file}:{_LABELS[event]}:{gi}:{hi}"
                    out[key] = trusted_hash(event, group, handler)
    return out


def _marker(hooks_file: Path) -> tuple[str, str]:
    return (
        f"# >>> rolling-graph: trust for its hooks in {hooks_file} >>>",
        f"# <<< rolling-graph: trust for its hooks in {hooks_file} <<<",
    )


def replace_block(text: str, marker: tuple[str, str], body: str) -> str:
    """``text`` with the marked block replaced by ``body`` (removed when ``body`` is "")."""
    pattern = re.compile(
        r"\n?" + re.escape(marker[0]) + r".*?" + re.escape(marker[1]) + r"\n?", re.DOTALL
    )
    text = pattern.sub("\n", text).rstrip("\n")
    text = text + "\n" if text else ""
    if body:
        text += f"\n{marker[0]}\n{body.rstrip()}\n{marker[1]}\n"
    return text


def _trust_block(existing: dict[str, Any], trust: dict[str, str]) -> str:
    states = ((existing.get("hooks") or {}).get("state") or {}) if existing else {}
    lines = []
    for key, digest in trust.items():
        if key in states:
            continue  # trusted already (e.g. through Codex's /hooks): a second table is invalid
        lines.append(f"[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}\n")
    return "\n".join(lines)


def write_trust(hooks_file: Path, data: dict[str, Any], config: Path) -> tuple[bool, Path | None]:
    """Rewrite our marked trust block in ``config`` for ``hooks_file``. (changed, backup)."""
    old = config.read_text(encoding="utf-8") if config.exists() else ""
    marker = _marker(hooks_file)
    without = replace_block(old, marker, "")
    existing = tomllib.loads(without) if without.strip() else {}
    new = replace_block(without, marker, _trust_block(existing, our_trust(hooks_file, data)))
    if new.strip() == old.strip():
        return False, None
    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as err:  # e.g. an inline `hooks = {…}` table
        raise ValueError(f"{config}: cannot add hook trust without breaking it ({err})") from err
    return True, base.write_text(config, new, keep=bool(without.strip()))


# ---------------------------------------------------------------------------------------------
# Install / uninstall / status
# ---------------------------------------------------------------------------------------------


def desired_entries(command: str) -> dict[str, list[dict[str, Any]]]:
    # No matcher: Codex then runs the hook for every tool and every session-start source.
    return {
        event: [{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]
        for event, timeout in EVENTS.items()
    }


def install(hooks_file: Path, config: Path, command: str | None = None) -> tuple[bool, list[Path]]:
    """Add our hooks to ``hooks_file`` and trust them in ``config``. (changed, backups)."""
    command = command or hook_command()
    data = base._read(hooks_file)
    before = json.dumps(data, sort_keys=True)
    hooks = json.loads(json.dumps(data.get("hooks") if isinstance(data.get("hooks"), dict) else {}))
    base._strip_ours(hooks)
    only_ours = not hooks and not any(k != "hooks" for k in data)  # no backup of our own file
    for event, groups in desired_entries(command).items():
        existing = hooks.get(event)
        hooks[event] = (existing if isinstance(existing, list) else []) + groups
    data["hooks"] = hooks
    backups: list[Path] = []
    changed = json.dumps(data, sort_keys=True) != before
    if changed:
        saved = base._write(hooks_file, data, keep=not only_ours)
        backups += [saved] if saved else []
    trust_changed, saved = write_trust(hooks_file.absolute(), data, config)
    backups += [saved] if saved else []
    return changed or trust_changed, backups


def uninstall(hooks_file: Path, config: Path) -> tuple[bool, list[Path]]:
    """Remove exactly our hooks from ``hooks_file`` and our trust block from ``config``."""
    backups: list[Path] = []
    changed = False
    data = base._read(hooks_file)
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and base._strip_ours(hooks):
        if not hooks:
            del data["hooks"]
        saved = base.settle_json(hooks_file, data)
        backups += [saved] if saved else []
        changed = True
    if config.exists():
        old = config.read_text(encoding="utf-8")
        new = replace_block(old, _marker(hooks_file.absolute()), "")
        if new.strip() != old.strip():
            _done, saved = no_trace.settle(
                config, new, empty=not new.strip(), same=lambda t: t.strip() == new.strip()
            )
            backups += [saved] if saved else []
            changed = True
    return changed, backups


def status(hooks_file: Path, config: Path) -> tuple[list[str], list[str]]:
    """(events with our hook, problems): missing events, untrusted or stale-trust handlers."""
    try:
        data = base._read(hooks_file)
    except (OSError, ValueError) as err:
        return [], [f"{hooks_file} is unreadable ({err})"]
    events = base.installed(hooks_file)
    if not events:
        return [], []
    problems = []
    missing = sorted(set(EVENTS) - set(events))
    if missing:
        problems.append(f"{hooks_file} lacks {', '.join(missing)}")
    try:
        states = tomllib.loads(config.read_text(encoding="utf-8")) if config.exists() else {}
    except (OSError, tomllib.TOMLDecodeError) as err:
        return events, problems + [f"{config} is unreadable ({err})"]
    states = (states.get("hooks") or {}).get("state") or {}
    for key, digest in our_trust(hooks_file.absolute(), data).items():
        got = (states.get(key) or {}).get("trusted_hash")
        if got != digest:
            what = "not trusted" if got is None else "trusted for an older definition"
            problems.append(f"{key.rsplit(':', 3)[1]} is {what}: Codex skips it silently")
    return events, problems
