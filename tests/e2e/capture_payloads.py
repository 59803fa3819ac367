"""Capture the real hook payloads Claude Code sends, and where injected context lands.

Re-run with ``.venv/bin/python -m tests.e2e.capture_payloads [--out DIR] [--keep DIR]`` from the
repo root. It installs/uses the pinned Claude Code, registers ``hook_capture.py --inject`` for
every event in a scratch project, and drives three invocations of one session:

1. ``claude -p "create the notes file"``: Bash, Read, Edit tool calls, then a text answer;
2. ``claude -p "/compact" --resume SID``: manual compaction;
3. ``claude -p "what is in the notes now?" --resume SID``: a turn after compaction.

It writes one sanitized payload per event/variant to ``OUT/<Event>[_<variant>].json``, plus
``injection_report.json`` (where each injected marker first appears in the request bodies the
stand-in received) and ``transcript_hook_records.json`` (the transcript's hook records).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from .fake_messages_api import FakeMessagesAPI, text, tool_use
from .harness import CLAUDE_CODE_VERSION, HOOK_EVENTS, REPO_ROOT, ClaudeHarness, ensure_claude
from .transcript import hook_records

DEFAULT_OUT = REPO_ROOT / "tests" / "fixtures" / "claude_code_payloads"
HOOK_SCRIPT = Path(__file__).resolve().parent / "hook_capture.py"

# Stable placeholders so fixtures do not change between runs.
PH_HOME = "/home/user"
PH_PROJECT = "/home/user/project"
PH_SESSION = "11111111-1111-4111-8111-111111111111"
MARKER_RE = re.compile(r"RGMARK-[A-Za-z]+-[A-Za-z]+-[0-9]+")


def script_session(api: FakeMessagesAPI, project: Path) -> None:
    notes = str(project / "notes.txt")
    s = api.script
    s.when(
        "create the notes file",
        reply=[
            text("I will create the notes file."),
            tool_use(
                "Bash",
                {
                    "command": "printf 'line one\\n' > notes.txt && echo notes-created",
                    "description": "Create notes.txt",
                },
                id="toolu_capture_bash",
            ),
        ],
    )
    s.when("notes-created", reply=[tool_use("Read", {"file_path": notes}, id="toolu_capture_read")])
    s.when(
        "line one",
        reply=[
            tool_use(
                "Edit",
                {"file_path": notes, "old_string": "line one", "new_string": "line two"},
                id="toolu_capture_edit",
            )
        ],
    )
    s.when("has been updated", reply="notes.txt now says line two.")
    s.when("what is in the notes now", reply="The notes say line two.")


def sanitizer(h: ClaudeHarness, session_id: str, hook_cmd: str) -> Any:
    encoded = [p.name for p in (h.home / ".claude" / "projects").iterdir()]
    ids: dict[str, str] = {session_id: PH_SESSION}

    def fix_str(v: str) -> str:
        v = v.replace(hook_cmd, "python tests/e2e/hook_capture.py captured.jsonl --inject")
        for enc in encoded:
            v = v.replace(enc, "-home-user-project")
        v = v.replace(str(h.project), PH_PROJECT).replace(str(h.home), PH_HOME)
        for real, ph in ids.items():
            v = v.replace(real, ph)
        return v

    def fix(obj: Any, key: str | None = None) -> Any:
        if isinstance(obj, dict):
            return {k: fix(v, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [fix(v) for v in obj]
        if isinstance(obj, str):
            if key == "prompt_id":  # one stable placeholder per distinct prompt id
                ids.setdefault(obj, f"22222222-2222-4222-8222-{len(ids):012d}")
            return fix_str(obj)
        return obj

    return fix


def variant_of(p: dict[str, Any]) -> str | None:
    event = p.get("hook_event_name")
    if event in ("PreToolUse", "PostToolUse"):
        return str(p.get("tool_name"))
    if event == "SessionStart":
        return str(p.get("source"))
    if event in ("PreCompact", "PostCompact"):
        return str(p.get("trigger"))
    return None


def locate_markers(api: FakeMessagesAPI) -> dict[str, Any]:
    """For each marker: first request (index, kind) holding it, and the enclosing message/text."""
    report: dict[str, Any] = {}
    for i, ex in enumerate(api.exchanges):
        if ex.method != "POST" or ex.kind == "count_tokens":
            continue
        for where, blob in [("system", ex.body.get("system"))] + [
            (f"messages[{j}] role={m.get('role')}", m.get("content"))
            for j, m in enumerate(ex.body.get("messages") or [])
        ]:
            dumped = json.dumps(blob)
            for mk in sorted(set(MARKER_RE.findall(dumped))):
                if mk in report:
                    continue
                snippet = _snippet(blob, mk)
                report[mk] = {
                    "first_request_index": i,
                    "request_kind": ex.kind,
                    "location": where,
                    "messages_in_request": len(ex.body.get("messages") or []),
                    "text": snippet,
                }
    for mk, entry in report.items():
        entry["requests_containing"] = [
            i
            for i, ex in enumerate(api.exchanges)
            if ex.method == "POST" and mk in MARKER_RE.findall(json.dumps(ex.body))
        ]
    return report


def _snippet(blob: Any, mk: str) -> str:
    texts: list[str] = []
    if isinstance(blob, str):
        texts = [blob]
    elif isinstance(blob, list):
        for b in blob:
            if isinstance(b, dict):
                t = b.get("text") if b.get("type") == "text" else json.dumps(b)
                texts.append(str(t))
    for t in texts:
        k = t.find(mk)
        if k >= 0:
            return t[max(0, k - 160) : k + len(mk) + 60]
    return ""


def capture(out: Path, base: Path) -> dict[str, Any]:
    binary = ensure_claude(CLAUDE_CODE_VERSION)
    caps = base / "captured.jsonl"
    with FakeMessagesAPI(base / "requests.jsonl") as api:
        h = ClaudeHarness(binary, api, base)
        cmd = f"{sys.executable} {HOOK_SCRIPT} {caps} --inject"
        h.set_hooks(dict.fromkeys(HOOK_EVENTS, cmd))
        script_session(api, h.project)
        r1 = h.run("Please create the notes file and then edit it.")
        sid = r1["session_id"]
        n1 = len(api.exchanges)
        h.run("/compact", resume=sid)
        n2 = len(api.exchanges)
        h.run("What is in the notes now?", resume=sid)
        markers = locate_markers(api)
        kinds = [(i, ex.kind, ex.path) for i, ex in enumerate(api.exchanges)]

    fix = sanitizer(h, sid, cmd)
    payloads = [json.loads(line) for line in caps.read_text().splitlines() if line.strip()]
    payloads = [fix(p) for p in payloads]
    out.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    for p in payloads:
        v = variant_of(p)
        name = f"{p['hook_event_name']}{'_' + v if v else ''}.json"
        if name in written:
            continue  # keep the first (representative) payload per event/variant
        (out / name).write_text(json.dumps(p, indent=2) + "\n")
        written.append(name)

    records = [
        {k: v for k, v in vars(r).items() if k != "raw"} | {"attachment": r.raw}
        for r in hook_records(h.transcript(sid))
        if r.kind != "stop_hook_summary"
    ]
    stop_summaries = [ln for ln in h.transcript(sid) if ln.get("subtype") == "stop_hook_summary"]
    (out / "transcript_hook_records.json").write_text(
        json.dumps(fix({"records": records, "stop_hook_summary": stop_summaries[:1]}), indent=2)
        + "\n"
    )
    report = {
        "claude_code_version": CLAUDE_CODE_VERSION,
        "invocations": {"run1_requests": [0, n1], "compact_requests": [n1, n2], "run3_from": n2},
        "requests": [{"index": i, "kind": k, "path": p} for i, k, p in kinds],
        "markers": markers,
        "payload_order": [
            f"{p['hook_event_name']}{'_' + v if (v := variant_of(p)) else ''}" for p in payloads
        ],
    }
    (out / "injection_report.json").write_text(json.dumps(fix(report), indent=2) + "\n")
    return {"written": written, "report": report}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--keep", type=Path, help="scratch dir to keep (default: a temp dir)")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = capture(args.out, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="rg-capture-") as tmp:
            result = capture(args.out, Path(tmp))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
