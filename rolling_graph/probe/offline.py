"""The ``offline`` probe: deterministic, no network, built on the gate's spaCy layer.

Rules, per user turn (assistant prose is ignored: it repeats and embellishes; files the agent
wrote count, from the tool digest):

- **entities → nodes**: files, packages, modules, identifiers, acronyms, proper nouns and
  people (:func:`rolling_graph.gate.nlp.extract_entities`) become nodes with slug ids; an entity
  already in the graph (label, alias or id) is strengthened instead.
- **co-mention → edges**: entities named in one sentence get ``relates-to``; a sentence that
  says "use"/"using"/"with" links the first non-tool entity to the tools with ``uses``.
- **decision language** ("let's use X", "we'll go with X", "switch to X", "the plan is to …")
  → a ``decision`` node ("Use X") with ``uses`` edges to what it names.
- **correction language** ("actually, Bento instead", "no, I meant …") → the new decision, a
  ``supersedes`` edge to the decision it replaces (the one whose object the sentence names,
  else the most recent live decision), and a strengthening of the named nodes. The engine
  weakens the superseded node: nothing is ever deleted.

Every op it emits is one the patch engine accepts (slug ids, known enums, size limits, edges
only between nodes that exist or are added earlier in the same patch, at most ``max_ops``).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from rolling_graph.model import MAX_ALIASES
from rolling_graph.probe.base import ProbeBackend, ProbeReply, ProbeRequest
from rolling_graph.slug import normalize_term, slugify

PROMPT_ID = "offline.v1"  # the rules in this module are the "prompt"; bump when they change

MAX_NEW_NODES = 10
MAX_STRENGTHEN = 10
MAX_DECISIONS = 3
MAX_PAIR_ENTITIES = 4  # co-mention edges among the first N entities of a sentence
RECENT_DECISION_TURNS = 20  # a correction only supersedes a decision this recent

_REDACTED = re.compile(r"\[REDACTED:[^\]]{0,40}\]")
_USE_WORDS = re.compile(r"\b(?:use|uses|used|using|with|via|through)\b", re.I)
_VERBS = r"(?:go with|use|using|switch(?:ing)? (?:over )?to|stick with|pick|adopt|move to|migrate to|try)"
# "let's use X", "we'll go with X", "switch to X", "decided on X", "X instead"
_DECISION_OBJ = [
    re.compile(
        r"\b(?:let'?s|let us|we(?:'ll| will| should| are going to|'re going to)|"
        r"i(?:'ll| will|'m going to| am going to| want to| prefer to|'d rather)|decided to|"
        r"plan is to|please)\s+" + _VERBS + r"\s+(?P<obj>[^.,;!?\n]{1,80})",
        re.I,
    ),
    re.compile(
        r"\b(?:decided on|decision is|go with|switch(?:ing)? to|stick with)\s+(?P<obj>[^.,;!?\n]{1,80})",
        re.I,
    ),
    re.compile(
        r"(?:^|[,;:]\s*|\b(?:actually|no|rather|wait)[,!]?\s+)(?:use\s+)?(?P<obj>[\w.@/+-]+(?:\s+[\w.@/+-]+)?)\s+instead\b",
        re.I,
    ),
]
# "the plan is to ship on Friday", "we decided to drop the cache"
_DECISION_CLAUSE = re.compile(
    r"\b(?:the plan is to|plan is to|(?:we|i) decided to|decided to|we(?:'ll| will) now)\s+(?P<clause>[^.,;!?\n]{3,80})",
    re.I,
)
_NEGATED_OBJ = re.compile(
    r"\b(?:not|instead of|rather than|no longer|drop|stop using)\s+(?P<obj>[\w.@/+-]+)", re.I
)
# A tool digest line (see rolling_graph.default_plugins.probe_plugin.tool_digest):
# "<Tool> <path or pattern or ': text'> [(error[: Type])] [| ids: a, b, c]".
_TOOL_LINE = re.compile(
    r"^(?P<tool>[A-Za-z][\w-]*)(?::\s*|\s+)(?P<arg>.*?)"
    r"(?:\s+\(error(?::\s*(?P<etype>[\w.]+))?\))?(?:\s+\|\s+ids:\s+(?P<ids>.*))?$"
)
_EDIT_TOOLS = frozenset(["Edit", "Write", "MultiEdit", "NotebookEdit", "Create"])
_SEARCH_TOOLS = frozenset(["Grep", "Glob"])
# Shell utilities and wrappers: running them says little about what the work is about.
_TRIVIAL_PROGRAMS = frozenset(
    """cd ls cat head tail echo printf grep rg egrep find sed awk wc sort uniq cut tr xargs
    sleep true false test mkdir rm rmdir cp mv touch chmod chown pwd which env export set
    source exec sudo time timeout nohup tee less more file stat du df clear kill pkill ps
    date basename dirname readlink realpath diff cmp bash sh zsh python python3 node""".split()  # noqa: SIM905
)
_WRAPPERS = frozenset(["sudo", "time", "timeout", "nohup", "env", "exec", "npx", "uv", "poetry"])
_PROGRAM = re.compile(r"^[A-Za-z][\w.+-]{1,30}$")
# Caps for what tool activity may add per patch (on top of what the prompts add).
MAX_TOOL_NEW = 40
MAX_TOOL_STRENGTHEN = 30
EDGE_ROOM = 16  # ops kept free for edges when node ops pile up
MAX_PROSE_NEW = 12  # recurring names from what the person and the agent wrote, per patch
MAX_PROSE_STRENGTHEN = 16
_STOP_OBJ = frozenset(
    [
        "it",
        "this",
        "that",
        "them",
        "these",
        "those",
        "the",
        "a",
        "an",
        "one",
        "something",
        "anything",
        "everything",
        "same",
        "other",
        "approach",
        "way",
        "thing",
        "option",
        "version",
        "instead",
    ]
)

# Entity kinds from the gate's layer → (node kind, domain or "" for the sentence's domain).
_KIND_MAP: dict[str, tuple[str, str]] = {
    "file": ("file", "technical"),
    "module": ("entity", "technical"),
    "package": ("tool", "technical"),
    "identifier": ("entity", "technical"),
    "acronym": ("concept", ""),
    "proper": ("entity", ""),
    "person": ("person", "relationship"),
    "url": ("entity", "technical"),
}
_KIND_PRIORITY = {
    "person": 0,
    "proper": 0,
    "package": 1,
    "file": 2,
    "module": 3,
    "url": 3,
    "identifier": 4,
    "acronym": 5,
}


@dataclass
class _Plan:
    """The patch being built: node ops first, then edge ops, each deduplicated."""

    req: ProbeRequest
    known: dict[str, str]  # normalized label/alias/id → node id
    node_ops: list[dict[str, Any]] = field(default_factory=list)
    edge_ops: list[dict[str, Any]] = field(default_factory=list)
    new: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → value of nodes we add
    touched: set[str] = field(default_factory=set)
    edges: set[str] = field(default_factory=set)
    decisions: list[str] = field(default_factory=list)  # decisions added/strengthened, in order
    notes: list[str] = field(default_factory=list)
    deferred: list[dict[str, Any]] = field(default_factory=list)  # boosts, summary refreshes
    n_added: int = 0
    n_strengthened: int = 0

    def defer_boost(self, nid: str, times: int, reason: str) -> None:
        """Extra strengthening for a node seen many times in this window: frequency becomes
        weight through the engine's own step, applied once per op. Deferred: ops are scarce
        (a patch has ``max_ops``), and a name the graph lacks matters more than a heavier one."""
        for _ in range(times):
            self.deferred.append(
                {
                    "op": "replace",
                    "path": f"/nodes/{nid}/weight",
                    "value": "strengthen",
                    "reason": _clip(reason, 280),
                }
            )

    def set_summary(self, nid: str, summary: str, reason: str) -> None:
        """A new node carries its summary in the add; an existing one gets a replace."""
        summary = _clip(summary, 190)
        if nid in self.new:
            self.new[nid]["summary"] = summary
        elif self.req.node(nid) is not None:
            self.deferred.append(  # a refresh: after new nodes and edges, if there is room
                {
                    "op": "replace",
                    "path": f"/nodes/{nid}/summary",
                    "value": summary,
                    "reason": _clip(reason, 280),
                }
            )

    @property
    def existing(self) -> set[str]:
        return {n.id for n in self.req.nodes}

    def exists(self, nid: str) -> bool:
        return nid in self.new or self.req.node(nid) is not None

    def resolve(self, label: str) -> str | None:
        norm = normalize_term(label)
        if norm in self.known:
            return self.known[norm]
        sid = slugify(label)
        return sid if self.exists(sid) else None

    def node(
        self,
        label: str,
        kind: str,
        domain: str,
        reason: str,
        *,
        summary: str = "",
        aliases: list[str] | None = None,
        cap: int = MAX_NEW_NODES,
    ) -> str | None:
        label = " ".join(label.split())
        if len(label) > 80:
            label = "…" + label[-79:]
        if not normalize_term(label):
            return None
        nid = self.resolve(label)
        if nid is not None:
            self.strengthen(nid, reason, cap=cap)
            return nid
        nid = slugify(label)
        if self.n_added >= cap:
            return None
        value: dict[str, Any] = {"id": nid, "label": label, "domain": domain, "kind": kind}
        if summary:
            value["summary"] = _clip(summary, 190)
        clean = [
            a
            for a in dict.fromkeys(" ".join(x.split()) for x in aliases or [])
            if a and a != label and len(a) <= 80
        ]
        if clean:
            value["aliases"] = clean[:MAX_ALIASES]
        self.new[nid] = value
        self.known[normalize_term(label)] = nid
        for a in clean:
            self.known.setdefault(normalize_term(a), nid)
        self.touched.add(nid)
        self.n_added += 1
        self.node_ops.append(
            {"op": "add", "path": f"/nodes/{nid}", "value": value, "reason": _clip(reason, 280)}
        )
        return nid

    def strengthen(self, nid: str, reason: str, *, cap: int = MAX_STRENGTHEN) -> None:
        if nid in self.touched:
            return
        if self.n_strengthened >= cap:
            return
        self.touched.add(nid)
        self.n_strengthened += 1
        self.node_ops.append(
            {
                "op": "replace",
                "path": f"/nodes/{nid}/weight",
                "value": "strengthen",
                "reason": _clip(reason, 280),
            }
        )

    def edge(
        self, source: str, rel: str, target: str, reason: str, *, symmetric: bool = False
    ) -> None:
        if source == target or rel not in self.req.relationships:
            return
        if symmetric and source > target:
            source, target = target, source
        key = f"{source}|{rel}|{target}"
        if symmetric:
            rev = f"{target}|{rel}|{source}"
            if rev in self.edges or (target, rel, source) in self._live_edges:
                key = rev
        if key in self.edges:
            return
        self.edges.add(key)
        s, r, t = key.split("|")
        self.edge_ops.append(
            {
                "op": "add",
                "path": f"/edges/{key}",
                "value": {"source": s, "relationship": r, "target": t},
                "reason": _clip(reason, 280),
            }
        )

    @property
    def _live_edges(self) -> set[tuple[str, str, str]]:
        return set(self.req.edges)

    def ops(self) -> list[dict[str, Any]]:
        """Node ops, then the edges whose ends exist, within ``max_ops``."""
        out = list(self.node_ops[: self.req.max_ops])
        kept_new = {op["path"].split("/")[2] for op in out if op["op"] == "add"}
        for op in self.edge_ops:
            if len(out) >= self.req.max_ops:
                break
            v = op["value"]
            if all(
                end in kept_new or self.req.node(end) is not None
                for end in (v["source"], v["target"])
            ):
                out.append(op)
        for op in self.deferred:  # what room is left: boosts and summary refreshes
            if len(out) >= self.req.max_ops:
                break
            nid = op["path"].split("/")[2]
            if nid in kept_new or self.req.node(nid) is not None:
                out.append(op)
        return out


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _quote(text: str) -> str:
    return "'" + _clip(text, 80) + "'"


class OfflineBackend(ProbeBackend):
    name = "offline"

    def __init__(self, settings: Any = None) -> None:
        self.model: str = getattr(settings, "spacy_model", "") or ""

    def run(self, request: ProbeRequest) -> ProbeReply:
        started = time.perf_counter()
        patch = build_patch(request, self.model)
        return ProbeReply(
            raw=patch,
            backend=self.name,
            prompt_id=PROMPT_ID,
            prompt_hash=None,
            ms=(time.perf_counter() - started) * 1000,
        )


def _known_terms(req: ProbeRequest) -> dict[str, str]:
    known: dict[str, str] = {}
    for n in req.nodes:
        known.setdefault(normalize_term(n.id.replace("-", " ")), n.id)
        for a in n.aliases:
            known.setdefault(normalize_term(a), n.id)
    for n in req.nodes:  # labels win over aliases and ids
        known[normalize_term(n.label)] = n.id
    known.pop("", None)
    return known


def _entity_node(plan: _Plan, ent: Any, sentence_domain: str, reason: str) -> str | None:
    kind, domain = _KIND_MAP.get(ent.kind, ("entity", ""))
    text = ent.text
    aliases: list[str] = []
    if ent.kind == "url":
        text = re.sub(r"^(?:https?|ftp|file)://(?:www\.)?", "", text).rstrip("/")
        if len(text) > 60 or "/" in text:
            return None  # long URLs are details, not topics
    if (
        ent.kind == "file"
        and "/" not in text
        and text[:1].isupper()
        and text.lower().endswith(".js")
    ):
        kind, domain = "tool", "technical"  # Next.js, Vue.js: frameworks, not files
    elif ent.kind == "file":
        base = text.rstrip("/").rsplit("/", 1)[-1]
        if base and base != text:
            aliases.append(base)
    return plan.node(text, kind, domain or sentence_domain or "project", reason, aliases=aliases)


_CUT_OBJ = frozenset(
    [
        "instead",
        "for",
        "to",
        "because",
        "as",
        "in",
        "on",
        "with",
        "since",
        "so",
        "and",
        "but",
        "rather",
    ]
)
_SHOUTED = frozenset(
    [
        "NO",
        "YES",
        "OK",
        "OKAY",
        "CODE",
        "ALL",
        "AND",
        "THE",
        "NOT",
        "BUT",
        "FOR",
        "DONE",
        "STOP",
        "PLEASE",
        "NOTE",
        "IN",
        "IS",
        "IT",
        "TO",
        "OF",
        "ON",
        "AT",
        "MY",
        "WE",
        "YOU",
        "ME",
        "THIS",
        "THAT",
        "WHY",
        "HOW",
        "NOW",
        "NEW",
    ]
)
_BLOB = re.compile(r"[A-Za-z0-9+/]{20,}")


def _useful(ent: Any) -> bool:
    """Drop what is a detail or noise rather than a topic: commands, versions, flags, shouted
    words (THANKS, WARNING), "either/or" word pairs, key material, secrets' markers."""
    text = ent.text
    if "redacted" in ent.norm or len(ent.norm) < 2 or ent.kind in ("command", "version", "issue"):
        return False
    if ent.kind == "identifier" and (text.startswith("-") or "=" in text):
        return False
    if ent.kind == "acronym" and (text.upper() in _SHOUTED or (len(text) >= 5 and text.isalpha())):
        return False
    if ent.kind == "proper" and _is_generic(text):
        return False  # "Build" after a slash command, "Next Steps": common words, not names
    if ent.kind == "file" and "/" in text:
        last = text.rstrip("/").rsplit("/", 1)[-1]
        rooted = text.startswith(("/", "./", "../", "~"))
        if _BLOB.search(text) or not re.fullmatch(r"[\w./@+~-]+", text):
            return False
        if not rooted and "." not in last and text.count("/") < 2:
            return False  # "crashes/restarts", "w/o": alternatives in prose, not paths
    return True


def _decision_label(obj: str, ents: list[Any]) -> str | None:
    """'Resend for email' → 'Use Resend' (the named entity), else the first words of the phrase."""
    obj = obj.strip(" '\"`")
    for ent in ents:
        if ent.norm and ent.norm in normalize_term(obj) and _useful(ent):
            return f"Use {ent.text}"
    words: list[str] = []
    for w in re.findall(r"[\w.@/+-]+", obj)[:4]:
        if w.lower() in _CUT_OBJ:
            break  # "SQLite instead", "Redis for the cache": the object ends here
        words.append(w)
    if not words or words[0].lower() in _STOP_OBJ:
        return None
    return "Use " + " ".join(words)


def _sentences(text: str, nlp_mod: Any, model: str) -> list[tuple[str, list[Any], str]]:
    """(sentence, entities in it, its domain) for each sentence of ``text``."""
    doc = nlp_mod.analyse(text, model)
    ents = nlp_mod.entities_from_doc(doc)
    out = []
    for sent in doc.sents:
        s_text = sent.text.strip()
        if not s_text:
            continue
        s_ents = [e for e in ents if sent.start_char <= e.start < sent.end_char]
        out.append((s_text, s_ents, ""))
    dom = nlp_mod.classify_domain(text, doc=doc).winner
    return [(s, e, dom) for s, e, _ in out]


def _live_decisions(plan: _Plan, turn: int) -> list[str]:
    """Decisions a correction may replace, most recent first (this patch's own come first)."""
    superseded = {t for _, r, t in plan.req.edges if r == "supersedes"}
    old = [
        n
        for n in plan.req.nodes
        if n.kind == "decision"
        and not n.superseded
        and n.id not in superseded
        and turn - n.last_activated <= RECENT_DECISION_TURNS
    ]
    old.sort(key=lambda n: (-n.last_activated, -n.weight, n.id))
    return list(reversed(plan.decisions)) + [n.id for n in old if n.id not in plan.decisions]


def _decisions_in(sentence: str, ents: list[Any]) -> list[tuple[str, str]]:
    """(label, matched object text) for each decision the sentence states."""
    found: list[tuple[str, str]] = []
    for rx in _DECISION_OBJ:
        for m in rx.finditer(sentence):
            label = _decision_label(m.group("obj"), ents)
            if label and label not in (f for f, _ in found):
                found.append((label, m.group("obj")))
    if not found:
        m = _DECISION_CLAUSE.search(sentence)
        if m:
            words = m.group("clause").split()[:6]
            if words and words[0].lower() not in _STOP_OBJ:
                found.append((" ".join(words)[:1].upper() + " ".join(words)[1:], m.group("clause")))
    return found


def build_patch(req: ProbeRequest, model: str = "") -> dict[str, Any]:
    """The offline patch for ``req``: ``{"rationale": ..., "ops": [...]}``, always engine-valid."""
    from rolling_graph.gate import nlp as nlp_mod  # lazy: spaCy

    plan = _Plan(req, _known_terms(req))
    n_decisions = 0
    for t in req.turns:
        text = _REDACTED.sub(" ", t.user or "")
        if text.strip():
            for sentence, ents, domain in _sentences(text, nlp_mod, model):
                useful = [e for e in ents if _useful(e)]
                useful.sort(key=lambda e: (_KIND_PRIORITY.get(e.kind, 9), e.start))
                reason = f"turn {t.turn}: {_quote(sentence)}"
                ids: list[str] = []
                for e in useful:
                    nid = _entity_node(plan, e, domain, f"named in {reason}")
                    if nid and nid not in ids:
                        ids.append(nid)
                # Nodes already in the graph, named by label or alias (any case): strengthened.
                norm_sentence = f" {normalize_term(sentence)} "
                existing = plan.existing
                for term, nid in plan.known.items():
                    if len(term) >= 3 and f" {term} " in norm_sentence and nid in existing:
                        label = _label_of(req, nid)
                        # "Build", "Bento": a capitalised one-word name is mentioned only as
                        # written, not by its common-word homonym ("build it").
                        if (
                            _is_name_word(label)
                            and term == normalize_term(label)
                            and not _occurrences(label, sentence, exact_case=True)
                        ):
                            continue
                        plan.strengthen(nid, f"mentioned again in {reason}")
                        if nid not in ids:
                            ids.append(nid)
                # Cues: the gate's rules decide whether this sentence decides or corrects.
                is_decision = bool(nlp_mod.decision_cues(sentence))
                corrections = nlp_mod.correction_cues(sentence)
                stated = _decisions_in(sentence, useful) if (is_decision or corrections) else []
                for label, obj in stated[:2]:
                    if n_decisions >= MAX_DECISIONS:
                        break
                    candidates = _live_decisions(plan, req.turn) if corrections else []
                    did = plan.node(
                        label,
                        "decision",
                        domain or "project",
                        f"decision in {reason}",
                        summary=sentence,
                    )
                    if did is None:
                        continue
                    n_decisions += 1
                    if did not in plan.decisions:
                        plan.decisions.append(did)
                    for e_id in ids:
                        if normalize_term(
                            plan.new.get(e_id, {}).get("label", "") or _label_of(req, e_id)
                        ) in normalize_term(obj):
                            plan.edge(did, "uses", e_id, f"the decision names it ({reason})")
                    if corrections:
                        old = _replaced(plan, req, sentence, did, candidates)
                        if old:
                            plan.edge(
                                did,
                                "supersedes",
                                old,
                                f"correction ({', '.join(corrections[:3])}) in {reason}",
                            )
                            _replace_entities(plan, req, old, obj, ids, reason)
                            for e_id in ids:
                                plan.strengthen(e_id, f"named in a correction, {reason}")
                # Co-mention.
                pair = ids[:MAX_PAIR_ENTITIES]
                for i, a in enumerate(pair):
                    for b in pair[i + 1 :]:
                        plan.edge(a, "relates-to", b, f"named together in {reason}", symmetric=True)
                if len(ids) >= 2 and _USE_WORDS.search(sentence):
                    tools = [i for i in ids if _kind_of(plan, req, i) == "tool"]
                    users = [i for i in ids if _kind_of(plan, req, i) not in ("tool", "decision")]
                    if tools and users:
                        for tool in tools[:2]:
                            plan.edge(users[0], "uses", tool, f"'use' with both named in {reason}")
    _tool_activity(plan, req, nlp_mod, model)
    _prose_activity(plan, req, nlp_mod, model)
    ops = plan.ops()
    added = sum(1 for op in ops if op["op"] == "add" and op["path"].startswith("/nodes/"))
    edges = sum(1 for op in ops if op["path"].startswith("/edges/"))
    rationale = (
        f"offline rules: {added} new nodes, {len(ops) - added - edges} strengthened, {edges} edges"
    )
    if plan.decisions:
        rationale += f"; decisions: {', '.join(plan.decisions[:3])}"
    return {"rationale": rationale, "ops": ops}


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


def _segments(command: str) -> list[str]:
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


def _programs(command: str) -> list[tuple[str, str]]:
    """(program, its command segment) for each segment of a shell command line."""
    out: list[tuple[str, str]] = []
    for seg in _segments(command):
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


def _code_names(text: str, nlp_mod: Any, model: str) -> tuple[list[str], list[str]]:
    """(file paths, code identifiers and modules) the gate's rule layer finds in ``text``."""
    files: list[str] = []
    names: list[str] = []
    for ent in nlp_mod.extract_entities(text[:2_000], model):
        if not _useful(ent):
            continue
        if ent.kind == "file" and ("/" in ent.text or "." in ent.text):
            files.append(ent.text.rstrip("/.,:;"))
        elif ent.kind in ("identifier", "module") and len(ent.text) >= 3:
            names.append(ent.text.removesuffix("()"))
    return files, names


def _tool_activity(plan: _Plan, req: ProbeRequest, nlp_mod: Any, model: str) -> None:
    """Nodes from what the agent did: files it edited and read, the identifiers of its edits
    and commands, the programs it ran, the error types it hit. Each is ranked by how many tool
    calls named it, then by recency; seen again in a later probe, it is strengthened."""
    files: dict[str, _Seen] = {}
    names: dict[str, _Seen] = {}
    programs: dict[str, _Seen] = {}
    errors: dict[str, _Seen] = {}
    cooccur: list[tuple[str, list[tuple[str, str]]]] = []  # per call: (reason, [(table, key)])
    pos = 0
    for t in req.turns:
        for line in t.tools:
            m = _TOOL_LINE.match(_REDACTED.sub(" ", line).strip())
            if not m:
                continue
            pos += 1
            tool, arg = m.group("tool"), m.group("arg").strip()
            call: list[tuple[str, str]] = []
            where = ""
            if tool in _EDIT_TOOLS or tool == "Read":
                path = arg.split()[0] if arg else ""
                if not path or "REDACTED" in path:
                    continue
                f = files.setdefault(path, _Seen(path))
                f.see(pos, t.turn)
                if tool == "Read":
                    f.reads += 1
                else:
                    f.edits += 1
                call.append(("file", path))
                where = path.rsplit("/", 1)[-1]
            elif tool == "Bash":
                for prog, seg in _programs(arg):
                    programs.setdefault(prog, _Seen(prog)).see(pos, t.turn, seg)
                    call.append(("program", prog))
                paths, found = _code_names(arg, nlp_mod, model)
                for path in paths[:3]:
                    files.setdefault(path, _Seen(path)).see(pos, t.turn)
                    call.append(("file", path))
                for name in found[:4]:
                    names.setdefault(name, _Seen(name)).see(pos, t.turn, "a command")
                    call.append(("name", name))
            elif tool in _SEARCH_TOOLS:
                _, found = _code_names(arg, nlp_mod, model)
                for name in found[:2]:
                    names.setdefault(name, _Seen(name)).see(pos, t.turn, "a search")
                    call.append(("name", name))
            for name in (m.group("ids") or "").split(", "):
                name = name.strip()
                if len(name) < 3 or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
                    continue
                n = names.setdefault(name, _Seen(name))
                n.see(pos, t.turn, where)
                call.append(("name", name))
            if m.group("etype"):
                errors.setdefault(m.group("etype"), _Seen(m.group("etype"))).see(
                    pos, t.turn, _clip(line.split(" (error")[0], 80)
                )
                call.append(("error", m.group("etype")))
            cooccur.append((f"turn {t.turn}: {_quote(line)}", call))
    if not pos:
        return

    new_cap = plan.n_added + MAX_TOOL_NEW
    str_cap = plan.n_strengthened + MAX_TOOL_STRENGTHEN
    room = req.max_ops - EDGE_ROOM
    ids: dict[tuple[str, str], str] = {}

    def rank(seen: dict[str, _Seen], *, by_edits: bool = False) -> list[_Seen]:
        return sorted(
            seen.values(),
            key=lambda x: (-(x.edits if by_edits else 0), -x.count, -x.last, x.label),
        )

    def emit(
        table: str,
        x: _Seen,
        kind: str,
        summary: str,
        reason: str,
        alias: str = "",
        refresh: bool = True,
    ) -> None:
        if len(plan.node_ops) >= room:
            return
        nid = plan.node(
            x.label,
            kind,
            "technical",
            reason,
            summary=summary,
            aliases=[alias] if alias else None,
            cap=new_cap,
        )
        if nid is None:
            return
        if nid not in plan.new:  # seen before: refresh what is known about it
            plan.strengthen(nid, reason, cap=str_cap)
            if refresh:
                plan.set_summary(nid, summary, reason)
        extra = min(2, (x.count - 1) // 2)  # frequency within this window counts too
        if extra:
            plan.defer_boost(nid, extra, f"named by {x.count} tool calls in {x.span()}")
        ids[(table, x.label)] = nid

    edited = [f for f in rank(files, by_edits=True) if f.edits]
    for f in edited[:8]:
        base = f.label.rsplit("/", 1)[-1]
        what = f"edited {f.edits}×" + (f", read {f.reads}×" if f.reads else "")
        emit(
            "file",
            f,
            "file",
            f"{what} in {f.span()}",
            f"the agent edited it ({f.span()})",
            base if base != f.label else "",
        )
    for n in rank(names)[:32]:
        where = ", ".join(n.where[:3])
        emit(
            "name",
            n,
            "entity",
            f"named in {n.count} tool call{'s' if n.count > 1 else ''} ({n.span()})"
            + (f"; in {where}" if where else ""),
            f"in the agent's tool calls ({n.span()})",
            refresh=False,  # ops are scarce: identifiers keep their first summary
        )
    for p in rank(programs)[:4]:
        emit(
            "program",
            p,
            "tool",
            f"command run {p.count}× ({p.span()}); last: {_clip(p.where[-1], 90)}",
            f"the agent ran it ({p.span()})",
        )
    for e in rank(errors)[:3]:
        emit(
            "error",
            e,
            "concept",
            f"error reported {e.count}× ({e.span()}), by {e.where[-1]}",
            f"a tool call failed with it ({e.span()})",
        )
    for f in [f for f in rank(files) if not f.edits][:6]:
        base = f.label.rsplit("/", 1)[-1]
        emit(
            "file",
            f,
            "file",
            f"read {f.count}× in {f.span()}" if f.reads else f"used in commands ({f.span()})",
            f"the agent read or used it ({f.span()})",
            base if base != f.label else "",
        )
    # Directories of edited files: the module a file is part of.
    dirs: dict[str, _Seen] = {}
    for f in edited:
        if "/" in f.label.strip("/") and (("file", f.label) in ids):
            d = f.label.rsplit("/", 1)[0] + "/"
            x = dirs.setdefault(d, _Seen(d))
            for turn in f.turns:
                x.see(f.last, turn)
    for d in rank(dirs)[:3]:
        emit("dir", d, "entity", f"directory of edited files ({d.span()})", "it holds edited files")
        if ("dir", d.label) in ids:
            for f in edited:
                if f.label.startswith(d.label) and ("file", f.label) in ids:
                    plan.edge(
                        ids[("file", f.label)],
                        "part-of",
                        ids[("dir", d.label)],
                        "the file is in this directory",
                    )
    # Identifiers are part of the files whose edits name them; co-occurrence in one call.
    for n in names.values():
        nid = ids.get(("name", n.label))
        for w in n.where[:2] if nid else []:
            for f in files.values():
                if f.label.rsplit("/", 1)[-1] == w and ("file", f.label) in ids:
                    plan.edge(nid, "part-of", ids[("file", f.label)], f"named in an edit of {w}")
    for reason, call in reversed(cooccur):  # latest calls first: edges are capped
        present = list(dict.fromkeys(ids[c] for c in call if c in ids))[:3]
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                plan.edge(a, "relates-to", b, f"named in one tool call, {reason}", symmetric=True)


# Lines that are harness or tool boilerplate, not content ("Co-Authored-By: Claude …").
_BOILERPLATE = re.compile(
    r"^.*(?:Co-Authored-By|Signed-off-by|Generated with \[?Claude|noreply@anthropic).*$",
    re.I | re.M,
)
_BACKTICKED = re.compile(r"(?<!`)`([A-Za-z_~./][\w.\-/]{2,79})`(?!`)")
# Title-case words that are not names even mid-sentence: imperatives after a slash command
# ("/build-with-claude Build the …"), table headers, UI words, generic nouns and verbs.
_GENERIC = frozenset(
    """build create add fix update make run test tests check use get set show start stop done
    note step next first last new old all any none true false yes no ok okay error errors
    warning info debug success failed failure pass passed fail result results output input
    file files folder directory line lines code function method class value values type types
    name names data item items list table row rows column columns field fields key keys id ids
    status summary overview details description example examples option options default
    feature features issue issues change changes task tasks todo plan phase part section page
    user users today tomorrow yesterday now here there this that these those what why how
    when where which who please thanks thank hello hi sure great perfect good nice awesome
    excellent important critical key main current total count number numbers version
    remove delete edit read write open close save load send receive copy move rename search
    find verify review clean install configure deploy commit push pull merge branch
    implement implemented implementation created updated added fixed removed changed
    authored co claude opus sonnet haiku assistant human model agent tool tools command
    commands script scripts config configuration settings setting project projects app
    application service services system systems server client api apis""".split()  # noqa: SIM905
)


def _stop_words() -> frozenset[str]:
    try:  # spaCy's English stop list (spaCy is a dependency)
        from spacy.lang.en.stop_words import STOP_WORDS

        return frozenset(w.lower() for w in STOP_WORDS) | _GENERIC
    except ImportError:  # pragma: no cover
        return _GENERIC


_STOP_WORDS: frozenset[str] | None = None


def _is_generic(label: str) -> bool:
    """Whether ``label`` is only common words: "Build", "The Plan", "Next Step"."""
    global _STOP_WORDS
    if _STOP_WORDS is None:
        _STOP_WORDS = _stop_words()
    words = re.findall(r"[A-Za-z]+", label)
    return not words or all(w.lower() in _STOP_WORDS for w in words)


def _is_name_word(label: str) -> bool:
    """A single title-case word: a name as written ("Bento", "Solana"), unlike code names."""
    return bool(re.fullmatch(r"[A-Z][a-z]+", label))


def _occurrences(label: str, text: str, *, exact_case: bool) -> int:
    """Whole-word occurrences of ``label`` in ``text``: as written for names (a capitalised
    name is not its common-word homonym: "Bento" vs "bento box"), any case for code names."""
    flags = 0 if exact_case else re.I
    return len(re.findall(rf"(?<![\w.]){re.escape(label)}(?![\w])", text, flags))


def _prose_activity(plan: _Plan, req: ProbeRequest, nlp_mod: Any, model: str) -> None:
    """Salient names that recur in what the person and the agent wrote: proper names
    capitalised mid-sentence (Twilio, OpenVPN), acronyms, code identifiers and file names in
    prose or backticks. A name the graph knows is strengthened (again, for many repetitions:
    frequency becomes weight through the engine's steps); a new one is added when it recurs in
    this window (twice or more in the text, or in the text and in a tool call). Boilerplate
    lines, stop words, generic verbs and nouns, and sentence-initial capitals are left out;
    labels keep the writer's spelling."""
    parts = [_REDACTED.sub(" ", t.user) for t in req.turns if t.user]
    parts += [_REDACTED.sub(" ", t.assistant) for t in req.turns if t.assistant]
    text = _BOILERPLATE.sub(" ", "\n".join(parts))
    if not text.strip():
        return
    tools = _BOILERPLATE.sub(
        " ", "\n".join(_REDACTED.sub(" ", x) for t in req.turns for x in t.tools)
    )
    doc = nlp_mod.analyse(text, model)
    domain = nlp_mod.classify_domain(text, doc=doc).winner or "project"
    found: dict[str, str] = {}  # label → entity kind, in text order
    for ent in nlp_mod.entities_from_doc(doc):
        if not _useful(ent) or ent.kind not in (
            "file",
            "module",
            "identifier",
            "proper",
            "acronym",
            "package",
        ):
            continue
        label = ent.text.removesuffix("()").strip(" .,:;")
        if len(label) < 3 or len(label) > 80 or _is_generic(label):
            continue
        if ent.kind == "proper" and len(label.split()) > 3:
            continue  # a title-case run ("Add The New Button Now") is a heading, not a name
        found.setdefault(label, ent.kind)
    for m in _BACKTICKED.finditer(text):
        label = m.group(1).rstrip(".")
        if len(label) >= 3 and not _is_generic(label) and label not in found:
            found[label] = (
                "file" if "/" in label or re.search(r"\.\w{1,5}$", label) else "identifier"
            )
    if not found:
        return
    counts: dict[str, int] = {}
    for label, kind in found.items():
        exact = kind in ("proper", "acronym")
        counts[label] = _occurrences(label, text, exact_case=exact) + (
            _occurrences(label, tools, exact_case=exact) if label in tools or not exact else 0
        )
    new_cap = plan.n_added + MAX_PROSE_NEW
    str_cap = plan.n_strengthened + MAX_PROSE_STRENGTHEN
    room = req.max_ops - EDGE_ROOM
    first = {label: i for i, label in enumerate(found)}
    for label in sorted(found, key=lambda x: (-counts[x], first[x])):
        if len(plan.node_ops) >= room:
            break
        n = counts[label]
        kind = found[label]
        known = plan.resolve(label)
        if known is not None:
            plan.strengthen(known, f"named again ({n}× in this window)", cap=str_cap)
            if n >= 4:
                plan.defer_boost(known, 1 if n < 8 else 2, f"named {n}× in this window")
        elif n >= 2:
            code = kind in ("file", "module", "identifier", "package")
            plan.node(
                label,
                "file" if kind == "file" else "concept" if kind == "acronym" else "entity",
                "technical" if code else domain,
                f"named {n}× in the conversation",
                cap=new_cap,
            )


def _replace_entities(
    plan: _Plan, req: ProbeRequest, old: str, obj: str, ids: list[str], reason: str
) -> None:
    """ "Bento instead of Resend": the thing the new decision names supersedes the thing only
    the old decision named, so the old one is retired like its decision (hidden in renders
    except as "Bento (supersedes Resend)", weakened once by the engine), never deleted."""
    old_label = f" {normalize_term(plan.new.get(old, {}).get('label', '') or _label_of(req, old))} "
    new_obj = f" {normalize_term(obj)} "
    chosen, dropped = [], []
    for e_id in ids:
        if e_id == old or _kind_of(plan, req, e_id) == "decision":
            continue
        lab = normalize_term(plan.new.get(e_id, {}).get("label", "") or _label_of(req, e_id))
        if not lab:
            continue
        if f" {lab} " in new_obj:
            chosen.append(e_id)
        elif f" {lab} " in old_label:
            dropped.append(e_id)
    if len(chosen) == 1 and len(dropped) == 1:
        plan.edge(chosen[0], "supersedes", dropped[0], f"chosen instead of it in {reason}")


def _label_of(req: ProbeRequest, nid: str) -> str:
    n = req.node(nid)
    return n.label if n else nid


def _kind_of(plan: _Plan, req: ProbeRequest, nid: str) -> str | None:
    if nid in plan.new:
        return plan.new[nid].get("kind")
    n = req.node(nid)
    return n.kind if n else None


def _replaced(
    plan: _Plan, req: ProbeRequest, sentence: str, new_id: str, candidates: list[str]
) -> str | None:
    """The decision a correction replaces: one whose object the sentence negates or names, else
    the most recent live decision."""
    candidates = [c for c in candidates if c != new_id]
    if not candidates:
        return None
    negated = {normalize_term(m.group("obj")) for m in _NEGATED_OBJ.finditer(sentence)}
    named = normalize_term(sentence)
    for c in candidates:
        label = normalize_term(
            plan.new.get(c, {}).get("label", "") or _label_of(req, c)
        ).removeprefix("use ")
        if label and (label in negated or any(label.startswith(x) for x in negated if x)):
            return c
    for c in candidates:
        label = normalize_term(
            plan.new.get(c, {}).get("label", "") or _label_of(req, c)
        ).removeprefix("use ")
        if label and f" {label} " in f" {named} ":
            return c
    return candidates[0]


@dataclass
class ReplayResult:
    """What :func:`replay_prompts` did: the session, and every patch the engine refused."""

    session: Any
    probes: int = 0
    ops: int = 0
    rejected: list[str] = field(default_factory=list)


def replay_prompts(prompts: list[str], session_id: str = "replay", model: str = "") -> ReplayResult:
    """Feed prompts one per turn through redaction, the offline probe and the patch engine, with
    a decay step per turn as in the live pipeline (no gate: every turn is probed)."""
    from rolling_graph.patch import PatchSource
    from rolling_graph.probe.base import TurnDigest
    from rolling_graph.probe.runner import graph_view
    from rolling_graph.redact import redact
    from rolling_graph.session import HotSession

    sess = HotSession.in_memory(session_id)
    out = ReplayResult(sess)
    backend = OfflineBackend()
    backend.model = model
    for text in prompts:
        turn = sess.advance_turn()
        sess.decay()
        nodes, edges = graph_view(sess.graph, sess.params.decay.focus_size)
        req = ProbeRequest(
            session_id,
            turn,
            [TurnDigest(turn, redact(text))],
            nodes,
            edges,
            max_ops=sess.params.limits.max_ops,
            relationships=tuple(sorted(sess.params.limits.relationships)),
        )
        reply = backend.run(req)
        res = sess.apply(reply.raw, PatchSource(reply.backend, reply.prompt_id))
        out.probes += 1
        out.ops += res.ops_applied
        if not res.applied:
            out.rejected.append(f"turn {turn}: {res.error}")
    return out
