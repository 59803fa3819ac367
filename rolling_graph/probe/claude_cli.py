"""The ``claude-cli`` probe: ``claude -p`` with a small model, for people with Claude Code but no
API key.

Recursion guard, twice over: the child gets ``ROLLING_GRAPH_PROBE_CHILD=1`` in its environment
(our hook client exits 0 at once when it sees it) and ``--settings '{"disableAllHooks": true}'``
so Claude Code does not run any hook in the child at all. The child has no tools, keeps no
session file, and runs in its own process group so a timeout kills it and everything it spawned.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from typing import Any

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.probe.base import (
    PROBE_CHILD_ENV,
    ProbeBackend,
    ProbeError,
    ProbeReply,
    ProbeRequest,
    patch_schema,
)
from rolling_graph.probe.prompt import render_probe_prompt

CHILD_SETTINGS = json.dumps({"disableAllHooks": True})
SYSTEM = (
    "You update a session memory graph. Answer with one JSON object "
    '{"rationale": "...", "ops": [...]} and nothing else: no prose, no code fences.'
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def build_command(binary: str, model: str, schema: dict[str, Any] | None) -> list[str]:
    cmd = [
        binary,
        "-p",
        "--model",
        model,
        "--output-format",
        "json",
        "--settings",
        CHILD_SETTINGS,
        "--tools",
        "",
        "--no-session-persistence",
        "--system-prompt",
        SYSTEM,
    ]
    if schema is not None:
        cmd += ["--json-schema", json.dumps(schema, separators=(",", ":"))]
    return cmd


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env[PROBE_CHILD_ENV] = "1"
    return env


def extract_patch(text: str) -> Any:
    """The patch object in a model's text answer: bare JSON, fenced JSON, or the outermost braces."""
    text = text.strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    lo, hi = text.find("{"), text.rfind("}")
    if 0 <= lo < hi:
        candidates.append(text[lo : hi + 1])
    for c in candidates:
        try:
            data = json.loads(c)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "ops" in data:
            return data
    raise ProbeError(f"claude-cli: no JSON patch in the answer: {text[:200]!r}")


class ClaudeCliBackend(ProbeBackend):
    name = "claude-cli"

    def __init__(
        self, settings: Any, *, binary: str | None = None, use_schema: bool = True
    ) -> None:
        self.model: str = settings.model
        self.timeout = float(settings.probe_timeout)
        self.binary = binary or settings.claude_bin
        self.use_schema = use_schema

    def run(self, request: ProbeRequest) -> ProbeReply:
        prompt, text = render_probe_prompt(request)
        reply = ProbeReply(
            raw=None,
            backend=self.name,
            prompt_id=prompt.id,
            prompt_hash=prompt.hash,
            model=self.model,
        )
        exe = shutil.which(self.binary)
        if exe is None:
            raise ProbeError(f"claude-cli: {self.binary!r} not found on PATH", reply)
        schema = patch_schema(request.max_ops, request.relationships) if self.use_schema else None
        started = time.perf_counter()
        proc = subprocess.Popen(
            build_command(exe, self.model, schema),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
            start_new_session=True,  # own process group: a timeout kills the whole tree
        )
        try:
            out, err = proc.communicate(text.encode("utf-8"), timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            reply.ms = (time.perf_counter() - started) * 1000
            reply.tokens_in, reply.tokens_estimated = estimate_tokens(SYSTEM + text), True
            raise ProbeError(f"claude-cli: timed out after {self.timeout:g}s", reply) from None
        reply.ms = (time.perf_counter() - started) * 1000
        stdout = out.decode("utf-8", "replace")
        if proc.returncode != 0 and not stdout.strip():
            raise ProbeError(
                f"claude-cli: exit {proc.returncode}: {err.decode('utf-8', 'replace')[-300:]!r}",
                reply,
            )
        try:
            result = json.loads(stdout)
        except json.JSONDecodeError:
            raise ProbeError(f"claude-cli: output is not JSON: {stdout[:200]!r}", reply) from None
        if not isinstance(result, dict):
            raise ProbeError(f"claude-cli: unexpected output: {stdout[:200]!r}", reply)
        answer = result.get("result")
        self._usage(reply, result, SYSTEM + text, answer if isinstance(answer, str) else "")
        if result.get("is_error") or result.get("subtype", "success") != "success":
            raise ProbeError(
                f"claude-cli: {result.get('subtype', 'error')}: {str(answer)[:300]!r}", reply
            )
        structured = result.get("structured_output")
        if isinstance(structured, dict) and "ops" in structured:
            reply.raw = structured
        elif isinstance(answer, str):
            reply.raw = extract_patch(answer)
        else:
            raise ProbeError("claude-cli: no result in the output", reply)
        return reply

    @staticmethod
    def _usage(reply: ProbeReply, result: dict[str, Any], sent: str, answer: str) -> None:
        usage = result.get("usage")
        if isinstance(usage, dict) and "input_tokens" in usage:
            # Claude Code reports cache reads/writes apart; they are input all the same.
            reply.tokens_in = sum(
                int(usage.get(k) or 0)
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
            reply.tokens_out = int(usage.get("output_tokens") or 0)
        else:
            reply.tokens_in = estimate_tokens(sent)
            reply.tokens_out = estimate_tokens(answer)
            reply.tokens_estimated = True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=2)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
        proc.communicate(timeout=2)
