"""The ``anthropic`` probe: the current small Claude model through the official SDK.

The reply is forced through a tool whose ``input_schema`` is the patch schema, so it arrives as
parsed JSON in the shape the patch engine reads. Retries with exponential backoff on 429, 5xx
and connection errors are the SDK's own (``max_retries``; it honours ``retry-after``); each
attempt has ``settings.probe_timeout`` seconds. The SDK is imported on first use only.

The prompt's static prefix (instructions, rules, examples) goes into the system block with a
``cache_control`` breakpoint (``probe_cache_ttl``), which caches the tool schema before it too;
the variable part is the user message. Usage is recorded as all input tokens, of which cache
reads and writes (``tokens_cached``, ``tokens_cache_write``), and output tokens.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from rolling_graph.probe.base import (
    ProbeBackend,
    ProbeError,
    ProbeReply,
    ProbeRequest,
    patch_schema,
)
from rolling_graph.probe.prompt import render_probe_parts

TOOL_NAME = "emit_patch"
SYSTEM = (
    "You update a session memory graph by calling the emit_patch tool once with an RFC 6902 "
    "JSON Patch. Follow the rules given here or in the user message exactly."
)
MAX_TOKENS = 4096


def _coerce_input(data: Any) -> Any:
    """The tool input as the engine wants it; models sometimes send ``ops`` as a JSON string."""
    if isinstance(data, dict) and isinstance(data.get("ops"), str):
        try:
            data = {**data, "ops": json.loads(data["ops"])}
        except json.JSONDecodeError as err:
            raise ProbeError(f"tool input 'ops' is not JSON: {err.msg}") from None
    if not isinstance(data, dict) or "ops" not in data:
        raise ProbeError(f"tool input is not a patch object: {str(data)[:200]!r}")
    return data


class AnthropicBackend(ProbeBackend):
    name = "anthropic"

    def __init__(
        self,
        settings: Any,
        *,
        client: Any = None,
        http_client: Any = None,
        api_key: str | None = None,
        base_url: str | None = None,
    ) -> None:
        self.settings = settings
        self.model: str = settings.model
        self.timeout = float(settings.probe_timeout)
        self.max_retries = int(settings.probe_retries)
        self._client = client
        self._http_client = http_client
        self._api_key = api_key
        self._base_url = base_url

    def client(self) -> Any:
        if self._client is None:
            import anthropic  # lazy: the SDK costs ~0.3 s to import

            kwargs: dict[str, Any] = {
                "api_key": self._api_key or os.environ.get("ANTHROPIC_API_KEY"),
                "max_retries": self.max_retries,
                "timeout": self.timeout,
            }
            if self._http_client is not None:
                kwargs["http_client"] = self._http_client
            if self._base_url:
                kwargs["base_url"] = self._base_url
            self._client = anthropic.Anthropic(**kwargs)
        return self._client

    def _system(self, static: str) -> list[dict[str, Any]]:
        """The system blocks: fixed text and the prompt's static prefix, marked for caching.

        Tools come before the system in the cached prefix, so the breakpoint here caches the
        tool schema too; the variable part (graph slice, turns) follows in the user message."""
        block: dict[str, Any] = {
            "type": "text",
            "text": SYSTEM + ("\n\n" + static if static else ""),
        }
        ttl = getattr(self.settings, "probe_cache_ttl", "1h")
        if static and ttl != "off":
            block["cache_control"] = {"type": "ephemeral", "ttl": ttl}
        return [block]

    def run(self, request: ProbeRequest) -> ProbeReply:
        import anthropic

        prompt, static, text = render_probe_parts(request)
        reply = ProbeReply(
            raw=None,
            backend=self.name,
            prompt_id=prompt.id,
            prompt_hash=prompt.hash,
            model=self.model,
        )
        try:
            client = self.client()
        except (ValueError, TypeError) as err:  # bad key/base_url/http_client: a config error
            raise ProbeError(f"anthropic: cannot create the client: {err}", reply) from None
        started = time.perf_counter()
        try:
            msg = client.messages.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                system=self._system(static),
                messages=[{"role": "user", "content": text}],
                tools=[
                    {
                        "name": TOOL_NAME,
                        "description": "Return the JSON Patch for the session graph.",
                        "input_schema": patch_schema(request.max_ops, request.relationships),
                    }
                ],
                tool_choice={"type": "tool", "name": TOOL_NAME},
            )
        except anthropic.APITimeoutError:
            raise ProbeError(
                f"anthropic: timed out after {self.timeout:g}s ({self.max_retries} retries)"
            ) from None
        except anthropic.APIStatusError as err:
            raise ProbeError(
                f"anthropic: HTTP {err.status_code} after retries: {str(err)[:300]}"
            ) from None
        except anthropic.APIConnectionError as err:
            raise ProbeError(f"anthropic: connection failed after retries: {err}") from None
        except anthropic.APIResponseValidationError as err:
            raise ProbeError(f"anthropic: unparsable response: {str(err)[:300]}") from None
        except (ValueError, TypeError) as err:  # malformed body the SDK could not decode
            raise ProbeError(f"anthropic: unparsable response: {err}") from None
        finally:
            reply.ms = (time.perf_counter() - started) * 1000
        usage = getattr(msg, "usage", None)
        # input_tokens counts only what came after the last cache breakpoint
        reply.tokens_cached = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        reply.tokens_cache_write = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        reply.tokens_in = int(getattr(usage, "input_tokens", 0) or 0)
        reply.tokens_in += reply.tokens_cached + reply.tokens_cache_write
        reply.tokens_out = int(getattr(usage, "output_tokens", 0) or 0)
        stop = getattr(msg, "stop_reason", None)
        if stop == "refusal":
            reply.error = "refusal"
            raise ProbeError("anthropic: the model refused (stop_reason=refusal)", reply)
        content = getattr(msg, "content", None)
        if not isinstance(content, list):
            reply.error = "no content"
            raise ProbeError("anthropic: response has no content list", reply)
        for block in content:
            if (
                getattr(block, "type", None) == "tool_use"
                and getattr(block, "name", None) == TOOL_NAME
            ):
                try:
                    reply.raw = _coerce_input(block.input)
                except ProbeError as err:
                    reply.error = str(err)
                    raise ProbeError(f"anthropic: {err}", reply) from None
                return reply
        reply.error = f"no {TOOL_NAME} tool call (stop_reason={stop})"
        raise ProbeError(f"anthropic: {reply.error}", reply)

    def close(self) -> None:
        if self._client is not None and self._http_client is None:
            self._client.close()
        self._client = None
