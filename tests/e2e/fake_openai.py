"""Local stand-ins for OpenAI's Responses API (Codex CLI) and Chat Completions (Copilot CLI).

Both stream over SSE, as the real clients ask. A scripted shell command goes out through
whichever shell tool the client offered in the request (its name and JSON schema decide the
arguments), so the stand-in does not hard-code one client version's tool set.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .standin_base import Body, Reply, StandIn

SHELL_TOOLS = ("exec_command", "shell_command", "shell", "bash", "run_shell_command", "Bash")
_ids = itertools.count(1)


def _tool_name_schema(tool: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    return str(fn.get("name") or tool.get("type") or ""), fn.get("parameters") or {}


def shell_call(tools: list[dict[str, Any]], cmd: str) -> tuple[str, dict[str, Any]] | None:
    """(tool name, arguments) running ``cmd`` through the first shell-like tool offered."""
    by_name = {_tool_name_schema(t)[0]: _tool_name_schema(t)[1] for t in tools or []}
    for name in SHELL_TOOLS:
        if name not in by_name:
            continue
        props = by_name[name].get("properties") or {}
        args: dict[str, Any] = {}
        for key, spec in props.items():
            kind = spec.get("type") if isinstance(spec, dict) else None
            if key in ("command", "cmd"):
                args[key] = ["bash", "-lc", cmd] if kind == "array" else cmd
            elif key in (by_name[name].get("required") or []):
                args[key] = {"boolean": False, "integer": 30, "number": 30}.get(
                    str(kind), "run the scripted command"
                )
        return name, args
    return None


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


class FakeResponsesAPI(StandIn):
    """``POST …/responses`` (SSE) for Codex; ``GET …/models`` answers an empty list."""

    name = "fake-responses-api"

    def handle(self, h: Any, method: str, body: Body) -> None:
        path = h.path.split("?", 1)[0]
        if method == "GET" or not path.endswith("/responses"):
            self.record(method, h.path, body, "other", None)
            h.send_json({"data": [], "models": []})
            return
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        last_user = max(
            (n for n, i in enumerate(items) if i.get("role") == "user"),
            default=-1,
        )
        after_tool = any(str(i.get("type", "")).endswith("_output") for i in items[last_user + 1 :])
        prompt = text_of(items[last_user].get("content")) if last_user >= 0 else ""
        kind = "main" if body.get("tools") else "side"
        reply = self.script.answer(kind, prompt, after_tool)
        self.record(method, h.path, body, kind, reply)
        h.send_sse(self._events(body, reply))

    def _events(self, body: Body, reply: Reply) -> list[tuple[str | None, Any]]:
        rid = f"resp_{next(_ids)}"
        call = shell_call(body.get("tools") or [], reply.shell) if reply.shell else None
        if call is not None:
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_{rid}",
                "call_id": f"call_{rid}",
                "name": call[0],
                "arguments": json.dumps(call[1]),
            }
        else:
            item = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{rid}",
                "content": [{"type": "output_text", "text": reply.text or "OK."}],
            }
        usage = {
            "input_tokens": max(1, len(json.dumps(body)) // 4),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": max(1, len(json.dumps(body)) // 4) + 10,
        }
        return [
            ("response.created", {"type": "response.created", "response": {"id": rid}}),
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": 0, "item": item},
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": rid, "usage": usage}},
            ),
        ]


class FakeChatCompletionsAPI(StandIn):
    """``POST …/chat/completions`` (SSE or JSON) for Copilot CLI; ``GET …/models``."""

    name = "fake-chat-completions"
    model = "gpt-4.1"

    def handle(self, h: Any, method: str, body: Body) -> None:
        path = h.path.split("?", 1)[0]
        if method == "GET" or not path.endswith("/chat/completions"):
            self.record(method, h.path, body, "other", None)
            h.send_json({"object": "list", "data": [{"id": self.model, "object": "model"}]})
            return
        msgs = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        last_user = max((n for n, m in enumerate(msgs) if m.get("role") == "user"), default=-1)
        after_tool = any(m.get("role") == "tool" for m in msgs[last_user + 1 :])
        prompt = text_of(msgs[last_user].get("content")) if last_user >= 0 else ""
        kind = "main" if body.get("tools") else "side"
        reply = self.script.answer(kind, prompt, after_tool)
        self.record(method, h.path, body, kind, reply)
        call = shell_call(body.get("tools") or [], reply.shell) if reply.shell else None
        cid = f"chatcmpl-{next(_ids)}"
        if call is not None:
            delta: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": f"call_{cid}",
                        "type": "function",
                        "function": {"name": call[0], "arguments": json.dumps(call[1])},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": reply.text or "OK."}, "stop"
        usage = {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 10}
        usage["total_tokens"] = usage["prompt_tokens"] + 10
        base = {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": self.model}
        if not body.get("stream"):
            message = {k: v for k, v in delta.items() if k != "index"}
            h.send_json(
                base
                | {
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }
            )
            return
        h.send_sse(
            [
                (None, base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
                (None, base | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
                (None, base | {"choices": [], "usage": usage}),
                (None, "[DONE]"),
            ]
        )
