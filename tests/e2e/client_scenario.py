"""One session in a real client (Codex, Gemini CLI or Copilot CLI) with rolling-graph installed.

install → doctor → session 1: a decision with tool use, then (resumed) a correction with tool
use, then a question → session 2, new, the next morning → uninstall. Every hook runs through a
timing wrapper (a script named ``rolling-graph``, so that install recognises its entries) that
logs the event, the exit status, the bytes printed and the payload; the stand-in logs every
request the client sent to its model API. Tests assert on those logs, not on internals.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .clients import Client, base_env
from .scenario import HEADER, rolling_graph_bin
from .standin_base import StandIn

PROMPT_DECISION = "Please look at the files here. We decided to use Bento for the signup emails."
PROMPT_CORRECTION = (
    "Actually, no: not Bento. Switch to Resend instead, Maya from marketing asked for it."
)
PROMPT_QUESTION = "Which email provider do we use now?"
PROMPT_COMPACT = "Please print the email config once more."
PROMPT_AFTER = "Where were we?"
PROMPT_MORNING = "Good morning, let us continue with the signup emails."
EMAIL_FILE = "email_config.py"
FOREIGN = "true # someone else's hook"
_CONFIG_NAMES = ("settings.json", "config.toml", "hooks.json", "hooks")

# Runs "$@" with the real rolling-graph; logs one JSON line per run, the payload, the output.
_WRAPPER = r"""#!/usr/bin/env bash
t0=$EPOCHREALTIME
payload=$(cat)
out=$(printf '%s' "$payload" | "__RG__" "$@")
rc=$?
t1=$EPOCHREALTIME
printf '%s' "$out"
# One write per record: hooks the client runs at the same time append to the same logs.
ev=""; prev=""
for a in "$@"; do [[ $prev == --event ]] && ev=$a; prev=$a; done
[[ -z $ev && $payload =~ \"hook_event_name\":\ *\"([A-Za-z]+)\" ]] && ev=${BASH_REMATCH[1]}
src=""; [[ $payload =~ \"source\":\ *\"([a-z]+)\" ]] && src=${BASH_REMATCH[1]}
us0=${t0//[.,]/}; us1=${t1//[.,]/}
printf '{"event":"%s","source":"%s","us":%d,"rc":%d,"out_bytes":%d}\n' \
  "$ev" "$src" $(( 10#$us1 - 10#$us0 )) "$rc" "${#out}" >> "__DIR__/timings.jsonl"
line=$(printf '%s' "$payload" | tr -d '\n')
printf '%s\n' "$line" >> "__DIR__/payloads.jsonl"
[[ -n $out ]] && { o=$(printf '%s' "$out" | tr -d '\n'); printf '%s\n' "$o" >> "__DIR__/outputs.jsonl"; }
exit $rc
"""


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a log the wrapper appends to. Hooks the client runs at the same time
    append at the same time: a record and a newline may land between another's record and its
    newline, so records are read one after another, not line by line."""
    text = path.read_text() if path.exists() else ""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        obj, at = decoder.raw_decode(text, at)
        out.append(obj)


@dataclass
class Turn:
    name: str
    prompt: str
    session_id: str
    returncode: int
    stderr: str
    requests: list[dict[str, Any]]  # main-loop requests the stand-in got during this run
    wall_s: float
    after_side: list[dict[str, Any]]  # main-loop requests after a side (e.g. compaction) one


@dataclass
class ClientResult:
    client: Client
    install_output: str
    reinstall_output: str
    doctor_rc: int
    doctor_output: str
    uninstall_output: str
    files_after_uninstall: dict[str, str]
    files_before_uninstall: dict[str, str]
    turns: dict[str, Turn]
    timings: list[dict[str, Any]]
    payloads: list[dict[str, Any]]
    outputs: list[str]
    notes: list[str] = field(default_factory=list)

    def blocks_in(self, turn: str) -> list[str]:
        """Request texts of ``turn`` that carry our block (serialized, as the API got them)."""
        return [
            json.dumps(b, ensure_ascii=False)
            for b in self.turns[turn].requests
            if HEADER in json.dumps(b, ensure_ascii=False)
        ]


class ClientScenario:
    def __init__(
        self,
        client: Client,
        binary: Path,
        api: StandIn,
        base: Path,
        hook_program: Path | None = None,
    ) -> None:
        self.client, self.binary, self.api = client, binary, api
        self.home, self.project = base / "home", base / "project"
        self.logs = base / "logs"
        for d in (self.home, self.project, self.logs):
            d.mkdir(parents=True, exist_ok=True)
        self.rg = rolling_graph_bin()
        # What the installed hooks run; bench/client_latency.py puts a no-op here as baseline.
        self.hook_program = hook_program or self.rg
        self.wrapper = base / "timed" / "rolling-graph"
        # Why a short /tmp path: the worker's Unix socket path must stay under ~104 bytes.
        self.runtime = Path(tempfile.mkdtemp(prefix="rg-e2e-"))
        os.chmod(self.runtime, 0o700)
        self.rg_env = {
            "ROLLING_GRAPH_HOME": str(base / "rg-data"),
            "ROLLING_GRAPH_CONFIG": str(base / "rg-config.toml"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "ROLLING_GRAPH_PROBE": "offline",
            "ROLLING_GRAPH_LOAD_PLUGINS": "0",
        }
        self.env = base_env(self.home) | self.rg_env
        self.env |= client.configure(self.home, self.project, api)

    def rg_cmd(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.rg), *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )

    def close(self) -> None:
        self.rg_cmd("worker", "stop")
        shutil.rmtree(self.runtime, ignore_errors=True)

    def _snapshot(self) -> dict[str, str]:
        out = {}
        for path in sorted(self.home.rglob("*")):
            rel = str(path.relative_to(self.home))
            ours = rel.count("/") >= 1 and rel.split("/")[1] in _CONFIG_NAMES
            if path.is_file() and "rolling-graph-backup" not in rel and ours:
                out[rel] = path.read_text(errors="replace")
        return out

    def _foreign_hook(self) -> None:
        """Someone else's SessionStart hook, placed before ours: uninstall must keep it."""
        entry = {"hooks": [{"type": "command", "command": FOREIGN, "timeout": 5}]}
        if self.client.name == "copilot":
            path = self.home / ".copilot" / "hooks" / "other.json"
            doc: dict[str, Any] = {"version": 1, "hooks": {"sessionStart": [{"bash": FOREIGN}]}}
        elif self.client.name == "codex":
            path, doc = self.home / ".codex" / "hooks.json", {"hooks": {"SessionStart": [entry]}}
        else:
            path = self.home / ".gemini" / "settings.json"
            doc = json.loads(path.read_text()) | {"hooks": {"SessionStart": [entry]}}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2))

    def _install(self) -> tuple[str, str]:
        self.wrapper.parent.mkdir(parents=True, exist_ok=True)
        text = _WRAPPER.replace("__RG__", str(self.hook_program))
        text = text.replace("__DIR__", str(self.logs))
        self.wrapper.write_text(text)
        self.wrapper.chmod(self.wrapper.stat().st_mode | stat.S_IXUSR)
        args = ["install", self.client.name, "--scope", "user", "--executable", str(self.wrapper)]
        first = self.rg_cmd(*args)
        if first.returncode != 0:
            raise AssertionError(f"install failed: {first.stdout}{first.stderr}")
        return first.stdout, self.rg_cmd(*args).stdout

    def _turn(self, name: str, prompt: str, resume: bool, argv: list[str] | None = None) -> Turn:
        before = len(self.api.exchanges)
        t0 = time.monotonic()
        proc = subprocess.run(
            [str(self.binary), *(argv or self.client.argv(prompt, resume))],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=240,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise AssertionError(
                f"{self.client.name} {name} rc={proc.returncode}\n{proc.stdout[-3000:]}\n"
                f"{proc.stderr[-3000:]}"
            )
        sid = self.client.session_id(proc.stdout, self.home)
        new = self.api.exchanges[before:]
        reqs = [e.body for e in new if e.kind == "main"]
        side = next((i for i, e in enumerate(new) if e.kind == "side"), len(new))
        after = [e.body for e in new[side:] if e.kind == "main"]
        return Turn(name, prompt, sid, proc.returncode, proc.stderr, reqs, wall, after)

    def run(self) -> ClientResult:
        (self.project / "README.md").write_text("# signup service\n")
        (self.project / EMAIL_FILE).write_text('EMAIL_PROVIDER = "bento"\n')
        s = self.api.script
        s.on("look at the files", shell=f"ls -1 && cat {EMAIL_FILE}")
        s.on("switch to resend", shell=f"grep -n PROVIDER {EMAIL_FILE}")
        s.on("email config once more", shell=f"cat {EMAIL_FILE}")
        self._foreign_hook()
        install_out, reinstall_out = self._install()
        doctor = self.rg_cmd("doctor", "--worker-wait", "60")
        turns = {}
        turns["decision"] = self._turn("decision", PROMPT_DECISION, resume=False)
        time.sleep(1.0)  # the offline probe runs in the worker, after the hook answered
        turns["correction"] = self._turn("correction", PROMPT_CORRECTION, resume=True)
        time.sleep(1.0)
        turns["question"] = self._turn("question", PROMPT_QUESTION, resume=True)
        time.sleep(1.0)
        if self.client.compact_argv is not None:
            argv = self.client.compact_argv(PROMPT_COMPACT)
            turns["compaction"] = self._turn("compaction", PROMPT_COMPACT, True, argv)
            time.sleep(1.0)
            turns["after_compaction"] = self._turn("after_compaction", PROMPT_AFTER, True)
        turns["morning"] = self._turn("morning", PROMPT_MORNING, resume=False)
        before = self._snapshot()  # the clients rewrite their own settings (migrations)
        uninstall = self.rg_cmd("uninstall", self.client.name, "--scope", "user")

        def lines(name: str) -> list[str]:
            path = self.logs / name
            return (
                [ln for ln in path.read_text().splitlines() if ln.strip()] if path.exists() else []
            )

        return ClientResult(
            client=self.client,
            install_output=install_out,
            reinstall_output=reinstall_out,
            doctor_rc=doctor.returncode,
            doctor_output=doctor.stdout + doctor.stderr,
            uninstall_output=uninstall.stdout + uninstall.stderr,
            files_after_uninstall=self._snapshot(),
            files_before_uninstall=before,
            turns=turns,
            timings=records(self.logs / "timings.jsonl"),
            payloads=records(self.logs / "payloads.jsonl"),
            outputs=lines("outputs.jsonl"),
        )
