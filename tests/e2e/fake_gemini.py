"""Local stand-in for the Gemini API (``generateContent``, ``streamGenerateContent``,
``countTokens``), enough to drive the real Gemini CLI offline via ``GOOGLE_GEMINI_BASE_URL``."""

from __future__ import annotations

import json
from typing import Any

from .fake_openai import shell_call
from .standin_base import Body, StandIn

# Why: the CLI's side requests that ask for JSON (next-speaker check, routing) must parse.
SIDE_JSON = {"next_speaker": "user", "reasoning": "The model answered.", "model_choice": "flash"}


def _parts_text(content: dict[str, Any]) -> str:
    return "\n".join(
        str(p.get("text", "")) for p in content.get("parts") or [] if isinstance(p, dict)
    )


def _declarations(body: Body) -> list[dict[str, Any]]:
    out = []
    for tool in body.get("tools") or []:
        for decl in (tool or {}).get("functionDeclarations") or []:
            params = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
            out.append({"name": decl.get("name"), "parameters": params})
    return out


class FakeGeminiAPI(StandIn):
    name = "fake-gemini-api"
    model = "gemini-2.5-flash"

    def handle(self, h: Any, method: str, body: Body) -> None:
        path = h.path.split("?", 1)[0]
        if method == "GET":
            self.record(method, h.path, body, "other", None)
            h.send_json({"models": [{"name": f"models/{self.model}"}]})
            return
        if path.endswith(":countTokens"):
            self.record(method, h.path, body, "count_tokens", None)
            h.send_json({"totalTokens": max(1, len(json.dumps(body)) // 4)})
            return
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        last = contents[-1] if contents else {}
        after_tool = any("functionResponse" in p for p in last.get("parts") or [])
        prompt = ""
        for c in reversed(contents):
            if c.get("role") == "user" and _parts_text(c).strip():
                prompt = _parts_text(c)
                break
        decls = _declarations(body)
        kind = "main" if decls else "side"
        gen = body.get("generationConfig") or {}
        wants_json = gen.get("responseMimeType") == "application/json"
        reply = self.script.answer(kind, prompt, after_tool)
        self.record(method, h.path, body, kind, reply)
        call = shell_call(decls, reply.shell) if reply.shell else None
        if call is not None:
            part: dict[str, Any] = {"functionCall": {"name": call[0], "args": call[1]}}
        elif kind == "side" and wants_json:
            part = {"text": json.dumps(SIDE_JSON)}
        else:
            part = {"text": reply.text or "OK."}
        n = max(1, len(json.dumps(body)) // 4)
        chunk = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [part]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": n,
                "candidatesTokenCount": 10,
                "totalTokenCount": n + 10,
            },
            "modelVersion": self.model,
        }
        if ":streamGenerateContent" in path:
            h.send_sse([(None, chunk)])
        else:
            h.send_json(chunk)
