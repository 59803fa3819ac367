"""Salient names that recur in what the person and the agent wrote."""

from __future__ import annotations

import re
from typing import Any

from rolling_graph.probe.base import ProbeRequest
from rolling_graph.probe.offline.entities import is_generic, occurrences, useful
from rolling_graph.probe.offline.plan import (
    EDGE_ROOM,
    MAX_PROSE_NEW,
    MAX_PROSE_STRENGTHEN,
    REDACTED,
    Plan,
)

# Lines that are harness or tool boilerplate, not content ("Co-Authored-By: Claude …").
_BOILERPLATE = re.compile(
    r"^.*(?:Co-Authored-By|Signed-off-by|Generated with \[?Claude|noreply@anthropic).*$",
    re.I | re.M,
)
# Words every boilerplate line holds: most windows hold none, and the case-blind search reads a
# long window line by line. Lower-cased, a text shows them as that search sees them unless it
# holds a letter ``re`` folds to an ASCII one that ``str.lower`` does not (long s, dotless i).
_BOILERPLATE_WORDS = ("co-authored-by", "signed-off-by", "generated with", "noreply@anthropic")
_ODD_FOLDS = ("\u017f", "\u0131", "\u0130")
_BACKTICKED = re.compile(r"(?<!`)`([A-Za-z_~./][\w.\-/]{2,79})`(?!`)")


def _without_boilerplate(text: str) -> str:
    plain = text.isascii() or not any(c in text for c in _ODD_FOLDS)
    if plain and not any(w in text.lower() for w in _BOILERPLATE_WORDS):
        return text
    return _BOILERPLATE.sub(" ", text)


def _entities(text: str, nlp_mod: Any, model: str) -> tuple[list[Any], str]:
    """The window's entities and domain. Without a trained model they are read from the
    characters: the window is long and no other rule needs its tokens. A trained model's
    statistical names (organisations, products) need its doc."""
    if model:
        doc = nlp_mod.analyse(text, model)
        return nlp_mod.entities_from_doc(doc), nlp_mod.classify_domain(text, doc=doc).winner
    window = text[: nlp_mod.MAX_CHARS]
    spans = nlp_mod.entity_spans(window)
    return nlp_mod.text_entities(window, spans), nlp_mod.classify_domain_text(window, spans).winner


def prose_activity(plan: Plan, req: ProbeRequest, nlp_mod: Any, model: str) -> None:
    """Salient names that recur in what the person and the agent wrote: proper names
    capitalised mid-sentence (Twilio, OpenVPN), acronyms, code identifiers and file names in
    prose or backticks. A name the graph knows is strengthened (again, for many repetitions:
    frequency becomes weight through the engine's steps); a new one is added when it recurs in
    this window (twice or more in the text, or in the text and in a tool call). Boilerplate
    lines, stop words, generic verbs and nouns, and sentence-initial capitals are left out;
    labels keep the writer's spelling."""
    parts = [REDACTED.sub(" ", t.user) for t in req.turns if t.user]
    parts += [REDACTED.sub(" ", t.assistant) for t in req.turns if t.assistant]
    text = _without_boilerplate("\n".join(parts))
    if not text.strip():
        return
    tools = _without_boilerplate(
        "\n".join(REDACTED.sub(" ", x) for t in req.turns for x in t.tools)
    )
    found: dict[str, str] = {}  # label → entity kind, in text order
    ents, domain = _entities(text, nlp_mod, model)
    domain = domain or "project"
    for ent in ents:
        if not useful(ent) or ent.kind not in (
            "file",
            "module",
            "identifier",
            "proper",
            "acronym",
            "package",
        ):
            continue
        label = ent.text.removesuffix("()").strip(" .,:;")
        if len(label) < 3 or len(label) > 80 or is_generic(label):
            continue
        if ent.kind == "proper" and len(label.split()) > 3:
            continue  # a title-case run ("Add The New Button Now") is a heading, not a name
        found.setdefault(label, ent.kind)
    for m in _BACKTICKED.finditer(text):
        label = m.group(1).rstrip(".")
        if len(label) >= 3 and not is_generic(label) and label not in found:
            found[label] = (
                "file" if "/" in label or re.search(r"\.\w{1,5}$", label) else "identifier"
            )
    if not found:
        return
    counts: dict[str, int] = {}
    for label, kind in found.items():
        exact = kind in ("proper", "acronym")
        counts[label] = occurrences(label, text, exact_case=exact) + (
            occurrences(label, tools, exact_case=exact) if label in tools or not exact else 0
        )
    # The agent's latest message is what the next turn most often answers or builds on: a name
    # it states once there is worth keeping while it is fresh (decay retires it otherwise).
    latest = next((REDACTED.sub(" ", t.assistant) for t in reversed(req.turns) if t.assistant), "")
    new_cap = plan.n_added + MAX_PROSE_NEW + (MAX_PROSE_NEW if latest else 0)
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
        elif n >= 2 or occurrences(label, latest, exact_case=kind in ("proper", "acronym")):
            code = kind in ("file", "module", "identifier", "package")
            plan.node(
                label,
                "file" if kind == "file" else "concept" if kind == "acronym" else "entity",
                "technical" if code else domain,
                f"named {n}× in the conversation",
                cap=new_cap,
            )
