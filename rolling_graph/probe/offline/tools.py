"""Nodes from what the agent did, read from the tool digest lines: files edited and read,
identifiers of edits and commands, programs run, error types."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.core.hook_event import EDIT_TOOLS
from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline.entities import useful
from rolling_graph.probe.offline.plan import EDGE_ROOM, REDACTED, Plan, clip, quote

# A tool digest line (see rolling_graph.observe.digest.tool_digest):
# "<Tool> <path or pattern or ': text'> [(error[: Type])] [| ids: a, b, c]".
_TOOL_LINE = re.compile(
    r"^(?P<tool>[A-Za-z][\w-]*)(?::\s*|\s+)(?P<arg>.*?)"
    r"(?:\s+\(error(?::\s*(?P<etype>[\w.]+))?\))?(?:\s+\|\s+ids:\s+(?P<ids>.*))?$"
)
_SEARCH_TOOLS = frozenset(["Grep", "Glob"])
# Shell utilities and wrappers: running them says little about what the work is about.
_TRIVIAL_PROGRAMS = frozenset(
    """cd ls cat head tail echo printf grep rg egrep find sed awk wc sort uniq cut tr xargs
    sleep true false test mkdir rm rmdir cp mv touch chmod chown pwd which env export set
    source exec sudo time timeout nohup tee less more file stat du df clear kill pkill ps
    date basename dirname readlink realpath diff cmp bash sh zsh python python3 node git npm
    npx yarn pnpm pip pip3 uv brew apt apt-get open code""".split()  # noqa: SIM905
)
_WRAPPERS = frozenset(["sudo", "time", "timeout", "nohup", "env", "exec", "npx", "uv", "poetry"])
_PROGRAM = re.compile(r"^[A-Za-z][\w.+-]{1,30}$")
# Caps for what tool activity may add per patch (on top of what the prompts add).
MAX_TOOL_NEW = 40
MAX_TOOL_STRENGTHEN = 30


@dataclass
class _Seen:
    """One thing tool activity named, aggregated over the probe's window."""

    label: str
    count: int = 0  # tool calls that named it
    edits: int = 0
    reads: int = 0
    last: int = 0  # position of the last call that named it (recency)
    turns: list[int] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # files (for identifiers), commands…
    defined: bool = False

    def see(self, pos: int, turn: int, where: str = "") -> None:
        self.count += 1
        self.last = pos
        if turn not in self.turns:
            self.turns.append(turn)
        if where and where not in self.where:
            self.where.append(where)

    def span(self) -> str:
        a, b = min(self.turns), max(self.turns)
        return f"turn {a}" if a == b else f"turns {a}–{b}"


def command_segments(command: str) -> list[str]:
    """The segments of a shell command line split on ``&&``, ``||``, ``;`` and ``|`` outside
    quotes: a quoted regex alternation (``grep -E "rwa|property|tokeniz"``) is one argument,
    not three programs."""
    out: list[str] = []
    buf: list[str] = []
    quote = ""
    i = 0
    while i < len(command):
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                buf.append(c)
                i += 1
                c = command[i] if i < len(command) else ""
            buf.append(c)
        elif c in "\"'":
            quote = c
            buf.append(c)
        elif c in ";|&":
            if command[i : i + 2] in ("&&", "||"):
                i += 1
            elif c == "&":  # a background "&" or a redirection (2>&1): not a separator
                buf.append(c)
                i += 1
                continue
            out.append("".join(buf))
            buf = []
        else:
            buf.append(c)
        i += 1
    out.append("".join(buf))
    return out


def command_programs(command: str) -> list[tuple[str, str]]:
    """(program, its command segment) for each segment of a shell command line."""
    out: list[tuple[str, str]] = []
    for seg in command_segments(command):
        words = seg.strip().lstrip("(\"'").split()
        while words and (words[0] in _WRAPPERS or "=" in words[0] or words[0].isdigit()):
            words = words[1:]
        if not words:
            continue
        prog = words[0].rsplit("/", 1)[-1]
        if words[0] in ("python", "python3") and len(words) > 2 and words[1] == "-m":
            prog = words[2]  # python -m pytest: the module is the program
        if _PROGRAM.match(prog) and prog not in _TRIVIAL_PROGRAMS:
            out.append((prog, " ".join(seg.split())))
    return out


def _code_names(text: str, nlp_mod: Any) -> tuple[list[str], list[str]]:
    """(file paths, code identifiers and modules) the gate's rule layer finds in ``text``, a
    command or a search: read from its characters (``text_entities``; a trained model's names
    are for prose, not code)."""
    files: list[str] = []
    names: list[str] = []
    for ent in nlp_mod.text_entities(text[:2_000]):
        if not useful(ent):
            continue
        if ent.kind == "file" and ("/" in ent.text or "." in ent.text):
            files.append(ent.text.rstrip("/.,:;"))
        elif ent.kind in ("identifier", "module") and len(ent.text) >= 3:
            names.append(ent.text.removesuffix("()"))
    return files, names


@dataclass
class _Activity:
    """What the tool digest lines of one probe's window named, by table, in call order."""

    files: dict[str, _Seen] = field(default_factory=dict)
    names: dict[str, _Seen] = field(default_factory=dict)
    programs: dict[str, _Seen] = field(default_factory=dict)
    errors: dict[str, _Seen] = field(default_factory=dict)
    cooccur: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)  # per call
    pos: int = 0  # tool calls read


def tool_activity(plan: Plan, req: ProbeRequest, nlp_mod: Any, model: str) -> None:
    """Nodes from what the agent did: files it edited and read, the identifiers of its edits
    and commands, the programs it ran, the error types it hit. Each is ranked by how many tool
    calls named it, then by recency; seen again in a later probe, it is strengthened.
    ``model`` is not read: tool lines are code, read from their characters."""
    act = _Activity()
    for t in req.turns:
        for line in t.tools:
            _read_call(act, line, t.turn, nlp_mod)
    if not act.pos:
        return
    em = _Emitter(plan, req)
    _emit_nodes(em, act)
    _link(plan, act, em.ids)


def _read_call(act: _Activity, line: str, turn: int, nlp_mod: Any) -> None:
    """Aggregate one tool digest line into ``act``."""
    m = _TOOL_LINE.match(REDACTED.sub(" ", line).strip())
    if not m:
        return
    act.pos += 1
    pos = act.pos
    tool, arg = m.group("tool"), m.group("arg").strip()
    call: list[tuple[str, str]] = []
    where = ""
    if tool in EDIT_TOOLS or tool == "Read":
        path = arg.split()[0] if arg else ""
        if not path or "REDACTED" in path:
            return
        f = act.files.setdefault(path, _Seen(path))
        f.see(pos, turn)
        if tool == "Read":
            f.reads += 1
        else:
            f.edits += 1
        call.append(("file", path))
        where = path.rsplit("/", 1)[-1]
    elif tool == "Bash":
        _read_command(act, call, arg, pos, turn, nlp_mod)
    elif tool in _SEARCH_TOOLS:
        _, found = _code_names(arg, nlp_mod)
        for name in found[:2]:
            act.names.setdefault(name, _Seen(name)).see(pos, turn, "a search")
            call.append(("name", name))
    for name in (m.group("ids") or "").split(", "):
        name = name.strip()
        if len(name) < 3 or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            continue
        act.names.setdefault(name, _Seen(name)).see(pos, turn, where)
        call.append(("name", name))
    if m.group("etype"):
        act.errors.setdefault(m.group("etype"), _Seen(m.group("etype"))).see(
            pos, turn, clip(line.split(" (error")[0], 80)
        )
        call.append(("error", m.group("etype")))
    act.cooccur.append((f"turn {turn}: {quote(line)}", call))


def _read_command(
    act: _Activity,
    call: list[tuple[str, str]],
    arg: str,
    pos: int,
    turn: int,
    nlp_mod: Any,
) -> None:
    """A shell command: the programs it runs, the files and identifiers it names."""
    for prog, seg in command_programs(arg):
        act.programs.setdefault(prog, _Seen(prog)).see(pos, turn, seg)
        call.append(("program", prog))
    paths, found = _code_names(arg, nlp_mod)
    for path in paths[:3]:
        act.files.setdefault(path, _Seen(path)).see(pos, turn)
        call.append(("file", path))
    for name in found[:4]:
        act.names.setdefault(name, _Seen(name)).see(pos, turn, "a command")
        call.append(("name", name))


def _rank(seen: dict[str, _Seen], *, by_edits: bool = False) -> list[_Seen]:
    return sorted(
        seen.values(),
        key=lambda x: (-(x.edits if by_edits else 0), -x.count, -x.last, x.label),
    )


class _Emitter:
    """Adds or strengthens one node per ranked item, within the caps of tool activity, and
    remembers the node id of each (table, label) for the edges."""

    def __init__(self, plan: Plan, req: ProbeRequest) -> None:
        self.plan = plan
        self.new_cap = plan.n_added + MAX_TOOL_NEW
        self.str_cap = plan.n_strengthened + MAX_TOOL_STRENGTHEN
        self.room = req.max_ops - EDGE_ROOM
        self.ids: dict[tuple[str, str], str] = {}

    def emit(
        self,
        table: str,
        x: _Seen,
        kind: str,
        summary: str,
        reason: str,
        alias: str = "",
        refresh: bool = True,
    ) -> None:
        plan = self.plan
        if len(plan.node_ops) >= self.room:
            return
        nid = plan.node(
            x.label,
            kind,
            "technical",
            reason,
            summary=summary,
            aliases=[alias] if alias else None,
            cap=self.new_cap,
        )
        if nid is None:
            return
        if nid not in plan.new:  # seen before: refresh what is known about it
            plan.strengthen(nid, reason, cap=self.str_cap)
            if refresh:
                plan.set_summary(nid, summary, reason)
        extra = min(2, (x.count - 1) // 2)  # frequency within this window counts too
        if extra:
            plan.defer_boost(nid, extra, f"named by {x.count} tool calls in {x.span()}")
        self.ids[(table, x.label)] = nid


def _emit_nodes(em: _Emitter, act: _Activity) -> None:
    """Nodes in priority order: edited files, identifiers, programs, errors, other files,
    then the directories of edited files."""
    edited = [f for f in _rank(act.files, by_edits=True) if f.edits]
    for f in edited[:8]:
        base = f.label.rsplit("/", 1)[-1]
        what = f"edited {f.edits}×" + (f", read {f.reads}×" if f.reads else "")
        em.emit(
            "file",
            f,
            "file",
            f"{what} in {f.span()}",
            f"the agent edited it ({f.span()})",
            base if base != f.label else "",
        )
    for n in _rank(act.names)[:32]:
        where = ", ".join(n.where[:3])
        em.emit(
            "name",
            n,
            "entity",
            f"named in {n.count} tool call{'s' if n.count > 1 else ''} ({n.span()})"
            + (f"; in {where}" if where else ""),
            f"in the agent's tool calls ({n.span()})",
            refresh=False,  # ops are scarce: identifiers keep their first summary
        )
    for p in _rank(act.programs)[:4]:
        em.emit(
            "program",
            p,
            "tool",
            f"command run {p.count}× ({p.span()}); last: {clip(p.where[-1], 90)}",
            f"the agent ran it ({p.span()})",
        )
    for e in _rank(act.errors)[:3]:
        em.emit(
            "error",
            e,
            "concept",
            f"error reported {e.count}× ({e.span()}), by {e.where[-1]}",
            f"a tool call failed with it ({e.span()})",
        )
    for f in [f for f in _rank(act.files) if not f.edits][:6]:
        base = f.label.rsplit("/", 1)[-1]
        em.emit(
            "file",
            f,
            "file",
            f"read {f.count}× in {f.span()}" if f.reads else f"used in commands ({f.span()})",
            f"the agent read or used it ({f.span()})",
            base if base != f.label else "",
        )
    _emit_dirs(em, edited)


def _emit_dirs(em: _Emitter, edited: list[_Seen]) -> None:
    """Directories of edited files (the module a file is part of), linked to their files."""
    ids = em.ids
    dirs: dict[str, _Seen] = {}
    for f in edited:
        if "/" in f.label.strip("/") and (("file", f.label) in ids):
            d = f.label.rsplit("/", 1)[0] + "/"
            x = dirs.setdefault(d, _Seen(d))
            for turn in f.turns:
                x.see(f.last, turn)
    for d in _rank(dirs)[:3]:
        em.emit(
            "dir", d, "entity", f"directory of edited files ({d.span()})", "it holds edited files"
        )
        if ("dir", d.label) in ids:
            for f in edited:
                if f.label.startswith(d.label) and ("file", f.label) in ids:
                    em.plan.edge(
                        ids[("file", f.label)],
                        "part-of",
                        ids[("dir", d.label)],
                        "the file is in this directory",
                    )


def _link(plan: Plan, act: _Activity, ids: dict[tuple[str, str], str]) -> None:
    """Identifiers are part of the files whose edits name them; co-occurrence in one call."""
    for n in act.names.values():
        nid = ids.get(("name", n.label))
        for w in n.where[:2] if nid else []:
            for f in act.files.values():
                if f.label.rsplit("/", 1)[-1] == w and ("file", f.label) in ids:
                    plan.edge(nid, "part-of", ids[("file", f.label)], f"named in an edit of {w}")
    for reason, call in reversed(act.cooccur):  # latest calls first: edges are capped
        present = list(dict.fromkeys(ids[c] for c in call if c in ids))[:3]
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                plan.edge(a, "relates-to", b, f"named in one tool call, {reason}", symmetric=True)
