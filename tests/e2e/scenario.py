"""The end-to-end scenario: a real Claude Code session with rolling-graph installed as its hook.

Shared by ``tests/e2e/test_claude_code_e2e.py`` (assertions) and ``bench/e2e_latency.py``
(latency table outside pytest). Only the product's public surface is used: the
``rolling-graph`` console script (``install``, ``worker``, ``hook``) and what Claude Code
records and sends.

The session, in ``claude -p`` invocations (each one a "run"):

1. decision: "let's use Resend for transactional email" + a Bash call;
2. correction: "actually, Bento instead of Resend" + Read and Edit of ``email_config.py``;
3. domain shift: a personal aside (no tools);
4. back to work: a Bash call, then plain work turns until the aside reaches the model (the
   gate defers triggers other than decisions and corrections; the dead-man switch bounds it);
5. ``/compact`` (PreCompact, then SessionStart(compact));
6. a question after compaction (receives the SessionStart(compact) block);
7. the next "day": a new session (new id) in the same project, SessionStart(startup).
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fake_messages_api import FakeMessagesAPI, text, tool_use
from .harness import ClaudeHarness
from .transcript import Line, additional_contexts, hook_records, read_transcript

HEADER = "Rolling memory "  # "of this session (turn N…" or "from earlier sessions…" (turn 0)
CONTEXT_SUFFIX = " hook additional context: "
ERROR_KINDS = frozenset(
    {
        "hook_non_blocking_error",
        "hook_blocking_error",
        "hook_error_during_execution",
        "hook_cancelled",
        "hook_stopped_continuation",
    }
)

# Why a bash wrapper: Claude Code records no duration for UserPromptSubmit or for hooks that
# print nothing, so every run is timed around the real hook command. $EPOCHREALTIME needs no
# fork; the event is read from the payload with bash's own regex (no jq, no python start-up).
_WRAPPER = r"""#!/usr/bin/env bash
# rolling-graph e2e timing wrapper: runs "$@" (the real hook command) and logs one JSON line.
t0=$EPOCHREALTIME
payload=$(cat)
out=$(printf '%s' "$payload" | "$@")
rc=$?
t1=$EPOCHREALTIME
printf '%s' "$out"
ev=unknown; detail=""; sid=""
[[ $payload =~ \"hook_event_name\":\ *\"([A-Za-z]+)\" ]] && ev=${BASH_REMATCH[1]}
[[ $payload =~ \"session_id\":\ *\"([A-Za-z0-9-]+)\" ]] && sid=${BASH_REMATCH[1]}
if [[ $ev == SessionStart && $payload =~ \"source\":\ *\"([a-z]+)\" ]]; then
  detail=${BASH_REMATCH[1]}
elif [[ $ev == *ToolUse && $payload =~ \"tool_name\":\ *\"([A-Za-z]+)\" ]]; then
  detail=${BASH_REMATCH[1]}
fi
us0=${t0//[.,]/}; us1=${t1//[.,]/}
printf '{"event":"%s","detail":"%s","sid":"%s","us":%d,"rc":%d,"out_bytes":%d}\n' \
  "$ev" "$detail" "$sid" $(( 10#$us1 - 10#$us0 )) "$rc" "${#out}" >> __LOG__
exit $rc
"""


# ---------------------------------------------------------------------------------------------
# Locating the product
# ---------------------------------------------------------------------------------------------


def rolling_graph_bin() -> Path:
    """The ``rolling-graph`` console script of the interpreter running us (the venv's)."""
    here = Path(sys.executable).parent / "rolling-graph"
    if here.exists():
        return here
    found = shutil.which("rolling-graph")
    if found is None:
        raise RuntimeError("the rolling-graph console script is not installed (pip install -e .)")
    return Path(found)


# ---------------------------------------------------------------------------------------------
# Reading what the model received
# ---------------------------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def system_texts(body: dict[str, Any]) -> list[str]:
    """Texts of the ``role: "system"`` messages of a request (where hook context travels)."""
    return [
        _content_text(m.get("content"))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "system"
    ]


def delivered(body: dict[str, Any], block: str) -> str | None:
    """The ``<Event> hook additional context: <block>`` text in ``body`` carrying ``block``.

    Returns the prefix label + block exactly as sent, or None when the request lacks it.
    """
    for sys_text in system_texts(body):
        at = sys_text.find(CONTEXT_SUFFIX + block)
        if at < 0:
            continue
        start = sys_text.rfind("\n\n", 0, at)
        start = 0 if start < 0 else start + 2
        return sys_text[start : at + len(CONTEXT_SUFFIX) + len(block)]
    return None


def our_blocks_in(body: dict[str, Any], known: list[str] | None = None) -> list[str]:
    """The rolling-graph blocks in a request's system messages.

    With ``known`` (the exact blocks the transcripts recorded), those that were delivered;
    otherwise a rough split: from our header to the next blank line (Claude Code joins
    contexts, and follows them with its own text, after a blank line).
    """
    if known is not None:
        return [b for b in dict.fromkeys(known) if delivered(body, b) is not None]
    out: list[str] = []
    for sys_text in system_texts(body):
        for piece in sys_text.split(CONTEXT_SUFFIX)[1:]:
            if piece.startswith(HEADER):
                out.append(piece.split("\n\n", 1)[0])
    return out


_IN_FORCE = ("Decisions in force: ", "Uses: ")


def decision_labels(block: str) -> list[str]:
    """The label of each decision the block presents: full items tagged ``decision``
    (``- Use Bento (supersedes Use Resend) [project, decision]: …``) and the items of a
    "Decisions in force: a; b (supersedes c)." line (the resume block adds a summary after
    ": ", which is cut off).

    Why labels only: a decision's summary may quote the prompt that made it ("Bento instead
    of Resend"), which names the old choice without presenting it as current.
    """
    out: list[str] = []
    for ln in block.splitlines():
        if ln.startswith("- ") and "decision" in ln.split("]", 1)[0]:
            out.append(ln.split(" [", 1)[0].lstrip("- ").strip())
        elif ln.startswith(_IN_FORCE[0]):
            items = ln[len(_IN_FORCE[0]) :].rstrip(".").split("; ")
            out += [_label_part(item) for item in items if item.strip()]
    return out


def _label_part(item: str) -> str:
    """``Use Bento (supersedes Use Resend): why…`` → ``Use Bento (supersedes Use Resend)``."""
    depth, cut = 0, len(item)
    for i, ch in enumerate(item):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ":" and depth == 0:
            cut = i
            break
    return item[:cut].strip()


def current_mentions(line: str, name: str) -> bool:
    """Whether ``name`` is in ``line`` outside a ``(supersedes …)`` clause."""
    stripped = line
    while "(supersedes " in stripped:
        a = stripped.index("(supersedes ")
        b = stripped.find(")", a)
        stripped = stripped[:a] + stripped[b + 1 if b >= 0 else len(stripped) :]
    return name.lower() in stripped.lower()


# ---------------------------------------------------------------------------------------------
# Latency
# ---------------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]); small samples stay honest (p95 of 3 is the max)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def latency_table(samples: dict[str, list[float]], title: str) -> str:
    rows = [f"{title}", f"{'event':<24} {'n':>3} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}"]
    for name in sorted(samples):
        vals = samples[name]
        if vals:
            rows.append(
                f"{name:<24} {len(vals):>3} {percentile(vals, 50):>8.1f} "
                f"{percentile(vals, 95):>8.1f} {max(vals):>8.1f}"
            )
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# The scenario
# ---------------------------------------------------------------------------------------------

EMAIL_FILE = "email_config.py"
EMAIL_SOURCE = (
    '"""Transactional email settings (rg-e2e-email-config)."""\n\n'
    'EMAIL_PROVIDER = "resend"\n'
    'FROM_ADDRESS = "hello@example.test"\n'
)

PROMPTS = {
    "decision": (
        "For the signup confirmation flow, let's use Resend for transactional email. "
        "Check what is in the project first."
    ),
    "correction": (
        f"Actually, Bento instead of Resend for transactional email. Update {EMAIL_FILE} to match."
    ),
    "aside": (
        "Unrelated, but my sister Maya is visiting this weekend and I still need to book a "
        "table for her birthday dinner."
    ),
    "back": "Back to the signup work: show me the email settings once more.",
    "after_compact": "Which provider are we using for transactional email now?",
    "next_day": "Good morning! Let's continue with the signup confirmation emails.",
}
# Plain work turns after the aside (text replies only); at most dead_man_turns of them.
WORK_PROMPTS = [
    "Looks right. What else is left for the signup flow?",
    "Ok, keep going with the signup flow then.",
    "Fine, anything else to check there?",
    "Good, continue with the remaining signup work.",
    "Carry on with the signup flow, please.",
    "And after that, what is next for signup?",
    "Keep going with the signup tasks.",
]
COMPACT_SUMMARY = (
    "<analysis>\nThe user set up transactional email for the signup flow.\n</analysis>\n\n"
    "<summary>\n1. Primary Request and Intent: configure transactional email for signup.\n"
    f"2. Files and Code Sections: {EMAIL_FILE} holds the provider setting.\n"
    "3. Pending Tasks: none.\n4. Current Work: the provider setting was updated.\n</summary>"
)


@dataclass
class Run:
    """One ``claude -p`` invocation and the requests the stand-in received during it."""

    name: str
    prompt: str
    session_id: str
    result: dict[str, Any] = field(repr=False)
    requests: list[dict[str, Any]] = field(repr=False)  # main-loop request bodies, in order
    compact_requests: list[dict[str, Any]] = field(repr=False)
    wall_s: float


@dataclass
class ScenarioResult:
    claude_version: str
    project: Path
    home: Path
    data_home: Path
    settings_path: Path
    install_output: str
    runs: dict[str, Run] = field(repr=False)
    timings: list[dict[str, Any]] = field(repr=False)  # one per hook run, from the wrapper
    transcripts: dict[str, list[Line]] = field(repr=False)  # session id -> transcript lines
    worker_status: dict[str, Any] | None = field(repr=False)
    worker_log: str = field(default="", repr=False)
    aside_turns: int | None = None  # user turns after the aside until it reached the model
    doctor_output: str = field(default="", repr=False)
    doctor_rc: int | None = None
    notes: list[str] = field(default_factory=list)

    # -- views
    @property
    def session_ids(self) -> list[str]:
        return list(self.transcripts)

    def hook_records(self) -> list[Any]:
        return [r for lines in self.transcripts.values() for r in hook_records(lines)]

    def blocks(self, session_id: str | None = None) -> list[tuple[str, str]]:
        """(hookName, block) for every rolling-graph context Claude Code recorded."""
        out: list[tuple[str, str]] = []
        for sid, lines in self.transcripts.items():
            if session_id is not None and sid != session_id:
                continue
            for rec in additional_contexts(lines):
                out += [(rec.hook_name or "?", c) for c in rec.contexts if c.startswith(HEADER)]
        return out

    def hook_stdout(self, session_id: str, hook_name: str) -> list[str]:
        """The additionalContext of each ``hook_success`` record named ``hook_name``."""
        out: list[str] = []
        for rec in hook_records(self.transcripts[session_id]):
            if rec.kind == "hook_success" and rec.hook_name == hook_name and rec.stdout:
                data = json.loads(rec.stdout)
                out.append(data["hookSpecificOutput"]["additionalContext"])
        return out

    def client_durations(self) -> dict[str, list[float]]:
        """durationMs of our hook runs as Claude Code recorded them (hook_success only)."""
        out: dict[str, list[float]] = {}
        for rec in self.hook_records():
            if rec.kind == "hook_success" and rec.duration_ms is not None:
                out.setdefault(rec.hook_name or "?", []).append(float(rec.duration_ms))
        return out

    def wrapper_durations(self) -> dict[str, list[float]]:
        """Wall time of every hook command run, per event (SessionStart split by source)."""
        out: dict[str, list[float]] = {}
        for t in self.timings:
            name = t["event"] + (f":{t['detail']}" if t["event"] == "SessionStart" else "")
            out.setdefault(name, []).append(t["us"] / 1000.0)
        return out

    def report(self) -> str:
        lines = [
            f"Claude Code {self.claude_version}; hook runs: {len(self.timings)}; "
            f"sessions: {', '.join(self.session_ids)}",
            "events seen: " + ", ".join(sorted({_event_name(t) for t in self.timings})),
            latency_table(
                self.wrapper_durations(), "hook latency around the hook command (every run):"
            ),
            latency_table(
                self.client_durations(),
                "hook latency as Claude Code recorded it (durationMs, runs that printed):",
            ),
        ]
        lines.append(
            f"personal aside reached the model after {self.aside_turns} user turn(s)"
            if self.aside_turns
            else "personal aside never reached the model"
        )
        if self.worker_status and self.worker_status.get("hook_ms"):
            ms = self.worker_status["hook_ms"]
            lines.append(
                f"worker side: n={ms.get('n')} p50 {ms.get('p50', 0):.1f} ms "
                f"p95 {ms.get('p95', 0):.1f} ms max {ms.get('max', 0):.1f} ms"
            )
        return "\n".join(lines + self.notes)


def _event_name(t: dict[str, Any]) -> str:
    return t["event"] + (f"({t['detail']})" if t["event"] == "SessionStart" else "")


class Scenario:
    """Drives the session; call :meth:`run` inside :meth:`environment`."""

    def __init__(self, claude: ClaudeHarness, claude_version: str) -> None:
        self.claude = claude
        self.api: FakeMessagesAPI = claude.api
        self.claude_version = claude_version
        self.rg = rolling_graph_bin()
        base = claude.project.parent
        self.data_home = base / "rg-data"
        self.timing_log = base / "hook-timings.jsonl"
        self.wrapper = base / "rg-timed-hook"
        # Why a short /tmp path: the worker's Unix socket path must stay under ~104 bytes.
        self.runtime = Path(tempfile.mkdtemp(prefix="rg-e2e-"))
        os.chmod(self.runtime, 0o700)
        self.env = {
            "ROLLING_GRAPH_HOME": str(self.data_home),
            "ROLLING_GRAPH_CONFIG": str(base / "rg-config.toml"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "ROLLING_GRAPH_PROBE": "offline",
            "ROLLING_GRAPH_LOAD_PLUGINS": "0",
        }

    # -- helpers
    def rg_cmd(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.rg), *args],
            cwd=self.claude.project,
            env=self.claude.env(self.env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(
                f"rolling-graph {' '.join(args)} failed ({proc.returncode}):\n"
                f"{proc.stdout}\n{proc.stderr}"
            )
        return proc

    @contextmanager
    def environment(self) -> Iterator[Scenario]:
        """Yields with the runtime dir in place; always stops the worker and removes it."""
        try:
            yield self
        finally:
            self.rg_cmd("worker", "stop", check=False)
            shutil.rmtree(self.runtime, ignore_errors=True)

    def _install(self) -> tuple[Path, str]:
        proc = self.rg_cmd("install", "claude-code", "--scope", "project")
        settings = self.claude.project / ".claude" / "settings.json"
        installed = json.loads(settings.read_text())
        commands = {
            h["command"]
            for groups in installed["hooks"].values()
            for g in groups
            for h in g["hooks"]
        }
        # Project scope: the portable `rolling-graph hook` when PATH finds this very program
        # (a project's files are shared); else this machine's -I -S hook client by path.
        (command,) = commands
        args = shlex.split(command)
        floor = (
            len(args) >= 4
            and args[1:3] == ["-I", "-S"]
            and args[3].endswith("rolling_graph/transport/stdlib_hook.py")
            and Path(args[0]).resolve() == Path(sys.executable).resolve()
        )
        if not (command == "rolling-graph hook" or floor):
            raise AssertionError(f"install wrote {command!r}: not rolling-graph hook nor -I -S")
        # Re-install through the product with the timing wrapper in front of the same command;
        # it still ends in the hook script's path, so install replaces its own entries in place.
        self.wrapper.write_text(_WRAPPER.replace("__LOG__", str(self.timing_log)))
        self.wrapper.chmod(self.wrapper.stat().st_mode | stat.S_IXUSR)
        self.rg_cmd(
            "install", "claude-code", "--scope", "project", "--command", f"{self.wrapper} {command}"
        )
        return settings, proc.stdout

    def _script(self) -> None:
        s = self.api.script
        s.compact_summary = COMPACT_SUMMARY
        email = str(self.claude.project / EMAIL_FILE)
        s.when(
            "let's use Resend",
            reply=[text("Looking at the project."), tool_use("Bash", {"command": "ls -1"})],
        )
        s.when(EMAIL_FILE, reply="Resend it is; I will wire it into the signup flow.")
        s.when("Bento instead of Resend", reply=[tool_use("Read", {"file_path": email})])
        s.when(
            "rg-e2e-email-config",
            reply=[
                tool_use(
                    "Edit",
                    {
                        "file_path": email,
                        "old_string": 'EMAIL_PROVIDER = "resend"',
                        "new_string": 'EMAIL_PROVIDER = "bento"',
                    },
                )
            ],
        )
        s.when("has been updated", reply="Switched the provider to Bento.")
        s.when("sister Maya", reply="Noted. I hope the dinner goes well.")
        s.when(
            "email settings once more",
            reply=[tool_use("Bash", {"command": f"cat {EMAIL_FILE}"})],
        )
        s.when('EMAIL_PROVIDER = "bento"', reply="The provider is set to Bento.")
        s.when("Which provider", reply="Bento.")
        s.when("Good morning", reply="Good morning. Continuing with the signup emails.")

    def _run(self, name: str, prompt: str, resume: str | None) -> Run:
        before = len(self.api.exchanges)
        t0 = time.monotonic()
        result = self.claude.run(prompt, resume=resume, env=self.env, timeout=120)
        wall = time.monotonic() - t0
        new = self.api.exchanges[before:]
        return Run(
            name=name,
            prompt=prompt,
            session_id=str(result["session_id"]),
            result=result,
            requests=[e.body for e in new if e.kind == "main"],
            compact_requests=[e.body for e in new if e.kind == "compact"],
            wall_s=wall,
        )

    # -- the session
    def run(self) -> ScenarioResult:
        (self.claude.project / EMAIL_FILE).write_text(EMAIL_SOURCE)
        (self.claude.project / "README.md").write_text("# signup service\n")
        settings, install_out = self._install()
        # Start the worker up front (public CLI) so that spaCy loading is not in the session's
        # first hook: the latency measured is the steady state a person sees all day.
        self.rg_cmd("worker", "start")
        self._script()
        runs: dict[str, Run] = {}
        first = self._run("decision", PROMPTS["decision"], None)
        runs[first.name] = first
        sid = first.session_id
        for name in ("correction", "aside"):
            runs[name] = self._run(name, PROMPTS[name], sid)
        # Back to work until the aside reaches the model. The gate defers triggers that are
        # neither decisions nor corrections (coalesced, probe gap), so the personal aside may
        # take a few turns; the dead-man switch bounds the wait.
        aside_turns: int | None = None
        for i, prompt in enumerate([PROMPTS["back"], *WORK_PROMPTS]):
            name = "back" if i == 0 else f"work{i}"
            runs[name] = self._run(name, prompt, sid)
            if any("Maya" in b for b in our_blocks_in(runs[name].requests[0])):
                aside_turns = i + 1
                break
        runs["compact"] = self._run("compact", "/compact", sid)
        runs["after_compact"] = self._run("after_compact", PROMPTS["after_compact"], sid)
        # The next "day": a new session in the same project (the product has no fake clock).
        runs["next_day"] = self._run("next_day", PROMPTS["next_day"], None)
        # The person's own check of this setup, while the worker is up.
        doctor = self.rg_cmd("doctor", "--no-start", check=False)
        status_proc = self.rg_cmd("worker", "status", "--json", check=False)
        try:
            worker_status: dict[str, Any] | None = json.loads(status_proc.stdout)
        except ValueError:
            worker_status = None
        sessions = dict.fromkeys(r.session_id for r in runs.values())
        transcripts = {s: read_transcript(self.claude.transcript_path(s)) for s in sessions}
        timings = [json.loads(ln) for ln in self.timing_log.read_text().splitlines() if ln.strip()]
        log_path = self.data_home / "rolling-graph.log"
        return ScenarioResult(
            claude_version=self.claude_version,
            project=self.claude.project,
            home=self.claude.home,
            data_home=self.data_home,
            settings_path=settings,
            install_output=install_out,
            runs=runs,
            timings=timings,
            transcripts=transcripts,
            worker_status=worker_status,
            worker_log=log_path.read_text() if log_path.exists() else "",
            aside_turns=aside_turns,
            doctor_output=doctor.stdout + doctor.stderr,
            doctor_rc=doctor.returncode,
        )
