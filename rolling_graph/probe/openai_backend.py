"""The ``openai`` probe: any OpenAI-compatible ``/v1/chat/completions`` endpoint — Ollama,
llama.cpp's server, vLLM, LM Studio, or a hosted one.

Through the official ``openai`` SDK (optional extra ``rolling-graph[openai]``, imported on first
use): it brings what a probe needs and plain httpx would have us rewrite — retries with
backoff on 429/5xx and connection errors (honouring ``retry-after``), per-attempt timeouts,
typed errors, and the same ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` handling people already use.

Local servers differ in what they honour, so the reply format degrades step by step
(``openai_response_format = "auto"``): a JSON schema (``response_format: json_schema``); if the
server refuses that request (HTTP 400/422), ``json_object``; then no ``response_format`` at
all. Whatever comes back is parsed tolerantly: reasoning blocks (``<think>…</think>``), prose
and code fences around the JSON, a bare list of ops or a ``{"patch": …}`` wrapper.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.probe.base import (
    ProbeBackend,
    ProbeError,
    ProbeReply,
    ProbeRequest,
    patch_schema,
)
from rolling_graph.probe.prompt import render_probe_parts

SYSTEM = (
    "You update a session memory graph. Answer with one JSON object "
    '{"rationale": "...", "ops": [...]} and nothing else: no prose, no code fences. '
    "Follow the rules given here or in the user message exactly."
)
MAX_TOKENS = 4096
FORMATS = ("json_schema", "json_object", "none")
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
#: placeholder key: local servers ignore it, the SDK refuses to start without one
LOCAL_KEY = "not-needed"


def _as_patch(data: Any) -> dict[str, Any] | None:
    if isinstance(data, dict) and isinstance(data.get("patch"), dict | list):
        data = data["patch"]
    if isinstance(data, list) and all(isinstance(op, dict) and "op" in op for op in data):
        return {"rationale": "", "ops": data}
    if isinstance(data, dict) and "ops" in data:
        if isinstance(data["ops"], str):  # some models send the list as a JSON string
            try:
                return {**data, "ops": json.loads(data["ops"])}
            except json.JSONDecodeError:
                return None
        return data
    return None


def parse_patch(text: str) -> dict[str, Any]:
    """The patch in a model's answer: bare JSON, JSON in fences or prose, after reasoning."""
    text = _THINK.sub("", text or "").strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for lo_ch, hi_ch in (("{", "}"), ("[", "]")):
        lo, hi = text.find(lo_ch), text.rfind(hi_ch)
        if 0 <= lo < hi:
            candidates.append(text[lo : hi + 1])
    for c in candidates:
        try:
            data = json.loads(c)
        except json.JSONDecodeError:
            continue
        if (patch := _as_patch(data)) is not None:
            return patch
    raise ProbeError(f"openai: no JSON patch in the answer: {text[:200]!r}")


def _response_format(kind: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "json_schema":
        # strict mode needs every property required: our schema is not, so strict is off.
        return {
            "type": "json_schema",
            "json_schema": {"name": "graph_patch", "schema": schema, "strict": False},
        }
    if kind == "json_object":
        return {"type": "json_object"}
    return None


class OpenAIBackend(ProbeBackend):
    name = "openai"

    def __init__(self, settings: Any, *, client: Any = None) -> None:
        self.settings = settings
        self.model: str = settings.openai_model
        self.base_url: str = settings.openai_base_url or os.environ.get("OPENAI_BASE_URL", "")
        self.timeout = float(settings.probe_timeout)
        self.max_retries = int(settings.probe_retries)
        configured = settings.openai_response_format
        # auto starts at the richest format and steps down once a server refuses it
        self.formats = list(FORMATS) if configured == "auto" else [configured]
        self._client = client

    def client(self) -> Any:
        if self._client is None:
            import openai  # lazy: the SDK costs ~0.3 s to import

            key = self.settings.openai_api_key or os.environ.get("OPENAI_API_KEY") or LOCAL_KEY
            kwargs: dict[str, Any] = {
                "api_key": key,
                "max_retries": self.max_retries,
                "timeout": self.timeout,
            }
            if self.base_url:
                kwargs["base_url"] = self.base_url
            self._client = openai.OpenAI(**kwargs)
        return self._client

    def _create(self, text: str, schema: dict[str, Any], static: str = "") -> Any:
        """One completion, stepping down the reply format while the server refuses it.

        The static prefix rides in the system message, first and byte-identical on every call,
        the variable part last: what OpenAI's automatic prompt cache and the prefix caches of
        llama.cpp and vLLM reuse."""
        import openai

        system = SYSTEM + ("\n\n" + static if static else "")
        while True:
            kwargs: dict[str, Any] = {
                "model": self.model,
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": text},
                ],
                "max_tokens": MAX_TOKENS,
                "temperature": 0,
            }
            if (fmt := _response_format(self.formats[0], schema)) is not None:
                kwargs["response_format"] = fmt
            try:
                return self.client().chat.completions.create(**kwargs)
            except openai.APIStatusError as err:
                if err.status_code in (400, 422) and len(self.formats) > 1:
                    self.formats.pop(0)  # remembered for the backend's lifetime
                    continue
                raise

    def run(self, request: ProbeRequest) -> ProbeReply:
        import openai

        prompt, static, text = render_probe_parts(request)
        reply = ProbeReply(
            raw=None,
            backend=self.name,
            prompt_id=prompt.id,
            prompt_hash=prompt.hash,
            model=self.model,
        )
        started = time.perf_counter()
        try:
            resp = self._create(text, patch_schema(request.max_ops, request.relationships), static)
        except openai.APITimeoutError:
            raise ProbeError(
                f"openai: timed out after {self.timeout:g}s ({self.max_retries} retries)", reply
            ) from None
        except openai.APIStatusError as err:
            raise ProbeError(
                f"openai: HTTP {err.status_code} after retries: {str(err)[:300]}", reply
            ) from None
        except openai.APIConnectionError as err:
            raise ProbeError(f"openai: connection failed after retries: {err}", reply) from None
        except (openai.APIResponseValidationError, ValueError, TypeError) as err:
            raise ProbeError(f"openai: unparsable response: {str(err)[:300]}", reply) from None
        finally:
            reply.ms = (time.perf_counter() - started) * 1000
        return self._read(resp, reply, SYSTEM + static + text)

    def _read(self, resp: Any, reply: ProbeReply, sent: str) -> ProbeReply:
        choices = getattr(resp, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        content = getattr(message, "content", None) if message is not None else None
        usage = getattr(resp, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            reply.tokens_in = int(usage.prompt_tokens or 0)  # cached ones included
            reply.tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
            details = getattr(usage, "prompt_tokens_details", None)
            reply.tokens_cached = int(getattr(details, "cached_tokens", 0) or 0)
        else:  # some local servers report no usage: estimate, and say so
            reply.tokens_in = estimate_tokens(sent)
            reply.tokens_out = estimate_tokens(content or "")
            reply.tokens_estimated = True
        if message is not None and getattr(message, "refusal", None):
            reply.error = "refusal"
            raise ProbeError(f"openai: the model refused: {str(message.refusal)[:200]}", reply)
        if not isinstance(content, str) or not content.strip():
            reply.error = "empty answer"
            raise ProbeError("openai: the answer has no content", reply)
        try:
            reply.raw = parse_patch(content)
        except ProbeError as err:
            reply.error = str(err)
            raise ProbeError(str(err), reply) from None
        return reply

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None
