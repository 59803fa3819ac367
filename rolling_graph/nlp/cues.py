"""Decision and correction cues: the phrases that matched, after discarding false friends
("no problem", "actually works", "wait for", …). Plain regexes: no spaCy."""

from __future__ import annotations

import re
from functools import lru_cache

from rolling_graph.nlp.lexicon import expand
from rolling_graph.nlp.pipeline import MAX_CHARS
from rolling_graph.privacy.redact.needle import literal_run

# Each cue is a regex over the lower-cased text; the matched words are reported. "@class" stands
# for the words of a class of the lexicon (nlp.lexicon.expand, when the cues are compiled).
_IMPERATIVE_VERBS = (
    r"implement|add|remove|create|make|change|rename|replace|delete|install|uninstall|set ?up|"
    r"setup|build|write|rewrite|update|upgrade|move|convert|deploy|commit|push|pull|switch|use|"
    r"refactor|migrate|drop|host|apply|perform|ignore|leave|keep|start|stop|sync|clean|save|"
    r"configure|config|enable|disable|log|name|call|put|merge|revert|force|scrub|purge|"
    r"harden|pin|bump|restrict|allow|block|skip|turn|split|combine|extract|generate|publish|"
    r"release|ship|prefer|go|do|wire|run|open|close|archive|upload|download|integrate"
)
# Each cue is a regex over the lower-cased text; the matched words are reported.
_DECISION = [
    r"\blet'?s (?:go with|use|do|switch|stick with|keep|make|pick|try|move|add|remove|drop|build|"
    r"change|create|implement|start|go ahead|proceed|rename|replace|call|name|be|call)\b",
    r"\blets (?:go with|use|do|switch|stick with|keep|make|pick|start|add|call|name|be)\b",
    r"\blet us (?:go with|use|do|switch|stick with|keep)\b",
    r"\b(?:we|i)(?:'ll| will| are going to|'re going to| am going to|'m going to) "
    r"(?:use|go with|switch|stick with|keep|host|deploy|build|move|adopt|drop|need|start)\b",
    r"\b(?:i|we)(?:'ve| have)? decided\b",
    r"\bdecid(?:ed|ing) (?:to|on|against)\b",
    r"\b(?:the|our|my) (?:plan|decision|approach|choice) (?:is|will be|should be)\b",
    r"\bgo with\b",
    r"\bgo ahead\b",
    r"\bswitch(?:ing)? (?:to|over|from)\b",
    r"\bstick (?:with|to)\b",
    r"\b(?:use|using) [\w./@-]+ instead\b",
    r"\binstead of\b",
    r"\b(?:don'?t|do not|never|no longer|stop) (?:use|using|add|adding|do|doing|touch|include|"
    r"change|create|commit|push|deploy)\b",
    r"\b(?:always|from now on|going forward|in the future|for now)\b",
    r"\bwe (?:should|must|need to|have to)\b",
    r"\b(?:i|we) (?:only |really |just )?(?:want|prefer|'d like|would like|'d rather|would rather)\b",
    r"\bi (?:don'?t|do not) want\b",
    r"\b(?:would be|is) (?:a |much )?better\b|\bpreferably\b|\bsounds best\b",
    r"\b(?:make|keep) (?:it|this|that|them|sure)\b",
    r"\b(?:approved?|agreed|settled|confirmed|chosen|picked|sounds good|lgtm)\b",
    r"\b(?:yes|yep|ok|okay|sure),? (?:do|go|let'?s|proceed|implement|use|please)\b",
    rf"\bplease (?:{_IMPERATIVE_VERBS})\b",
    # An imperative at the start of the text, a line, a sentence or a clause ("yes, install x").
    # Possessive runs (``*+``): what follows a run is never a space, so giving some back cannot
    # match, and a blanked code block (all spaces) is not retried once per verb per position.
    rf"(?:^|[\n.;!:]\s*+|\b(?:yes|yep|ok|okay|sure|great|cool|nice|now|then|and|also|so),?\s+|"
    rf"^\s*+(?:claude\s+)?\"?(?:/[\w:-]+\s+)?|^\s*+[-*\d.)]++\s++)(?:{_IMPERATIVE_VERBS})\b",
    rf"\b(?:can|could|would) you (?:please )?(?:{_IMPERATIVE_VERBS})\b",
    # Picking one of the options the agent offered: "2", "option 3", "1.A 2. B", "start with 4".
    r"^\s*(?:option\s*)?\d{1,2}\s*[.):]?\s*(?:[a-e]\b|\w+|$)",
    r"\boption\s*\d{1,2}\b|\bwith option\b",
    r"^\s*[a-e]\s*[.)]?\s*$",
    # Chinese, French, Spanish, German cues for wanting/choosing.
    r"我希望|我想要|我要|就用|决定|改成|换成|先.{0,20}吧",
    r"\bje (?:veux|voudrais|préfère)\b|\bon (?:garde|utilise|part sur)\b",
    r"\b(?:quiero|usemos|vamos a usar)\b|\b(?:ich will|wir nehmen|lass uns)\b",
]
# Phrases that look like a decision cue but are not one.
_DECISION_FALSE = [
    r"\bgo ahead and (?:tell|explain|show)\b",
    r"\binstead of (?:me|you) (?:having to|doing)\b",
]

_CORRECTION = [
    r"\bactually\b",
    r"(?:^|[.!?]\s+|\n)no[,.!:;]",  # "No, …" at a sentence start
    r"^no\b",
    r"(?:^|[.!?]\s+|\n)nope\b",
    r"\bwait\b",
    r"\bhold on\b",
    r"\bnot (?:that|this|what i|quite|right|correct|true|like that|the)\b",
    r"\bi meant\b",
    r"\bwhat i meant\b",
    r"\bi mean\b",
    r"\bthat'?s (?:not|wrong|incorrect)\b",
    r"\bthat is (?:not|wrong|incorrect)\b",
    r"\b(?:is|are|was|were|it'?s|isn'?t|doesn'?t|don'?t) (?:still )?(?:wrong|incorrect|broken)\b",
    r"\bwrong\b",
    r"\bincorrect\b",
    r"\bmistake\b",
    r"\bi said\b",
    r"\bi told you\b",
    r"\bundo\b",
    r"\brevert\b",
    r"\broll ?back\b",
    r"\bscratch that\b",
    r"\bnever ?mind\b",
    r"\bnvm\b",
    r"\bcorrection\b",
    r"\bthat'?s not what\b",
    r"\bstill (?:not|doesn'?t|don'?t|isn'?t|broken|failing|fails|wrong|the same|getting|seeing|"
    r"shows?|happening|no)\b",
    r"\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not|won'?t|can'?t|not) "
    r"(?:work|working|load|loading|show|showing|fix|fixed|help|change|compile|build|run|start|"
    r"display|appear|render|happen|seem)\b",
    r"\bnot what i (?:asked|wanted|meant|said)\b",
    # "why did you …", "why won't you run it?" challenge what the agent did or refused; "why
    # don't you have a look" suggests work (saross__trap-extraction): a request, not a cue.
    r"\bwhy (?:did|would|are|won'?t|wouldn'?t|didn'?t|can'?t|aren'?t|do|is|isn'?t) you\b",
    # Handing the task back: "you run it", "figure it out yourself".
    r"(?:^|[.!?;,\n]\s*)you (?:run|do|try|check|fix|handle|test|execute|restart|can) "
    r"@object_pronoun\b",
    r"\byourself\b",
    # A correcting preamble: "update: …", "correction: …", "fix: …".
    r"^\s*(?:update|correction|clarification|edit|fix|note)\s*:",
    # Restating what something is: "X is our repo", "this is the staging box".
    r"^\s*[\w.-]+ (?:is|are) (?:our|my|the real|the actual|actually)\b",
    r"\bdouble[- ]?check\b|\buh+h\b",
    r"\b(?:always|never) (?:verify|check|run|use|test|ask|sign|commit|push)\b",
    r"\byou (?:forgot|missed|broke|removed|deleted|ignored|didn'?t)\b",
    r"\binstead\b",
    r"\brather than\b",
    r"\bshould(?:n'?t| not)? (?:be|have)\b",
    r"\bbroke\b|\bbroken\b",
    r"\bno longer\b",
]
#: What "not" hedges rather than rejects ("not sure", "not yet"): a false friend of the correction
#: cues, and no rejected thing after "Y, not …" (probe.offline.corrections).
HEDGED_NOT = (
    "the same",
    "only",
    "just",
    "sure",
    "yet",
    "bad",
    "too",
    "a big deal",
    "a problem",
    "worth",  # "keep cron, not worth a broker just for this": a reason, "worth" no rejected thing
)
# False friends: matched spans inside these are discarded before the cue counts.
_CORRECTION_FALSE = [
    r"\bno (?:problem|problems|worries|worry|need|rush|pressure|idea|doubt|biggie|sweat|"
    r"matter|thanks|thank you)\b",
    r"\bno,? (?:that'?s|it'?s) (?:fine|ok|okay|great|perfect|good|alright)\b",
    r"\bactually (?:works?|worked|working|looks? (?:good|great|fine)|pretty|quite|really|very|"
    r"nice|good|great|love|like)\b",
    r"\bwait(?:s|ed|ing)? (?:for|until|till|on|a (?:bit|second|minute|moment|sec)|until)\b",
    r"\b(?:can'?t|cannot|couldn'?t) wait\b",
    r"\bwait time\b",
    r"\bno one\b|\bno-one\b|\bno longer (?:need|needed|required)\b",
    rf"\bnot (?:{'|'.join(HEDGED_NOT)})\b",
    r"\bnothing wrong\b|\bwhat(?:'s| is| was) wrong\b|\bgo(?:es|ne)? wrong\b|\bcould go wrong\b",
    r"\bi mean,? (?:it|this|that)'?s (?:great|good|perfect|nice|awesome)\b",
    r"\bnever mind the\b",
    r"\bnot that (?:i|it|we|you|there)\b",
]


Cue = tuple[re.Pattern[str], str]  # a cue's pattern and the literal every match of it holds


@lru_cache(maxsize=1)
def _compiled() -> tuple[list[Cue], ...]:
    flags = re.I | re.M
    return tuple(
        [(re.compile(expand(p), flags), literal_run(expand(p), re.M)) for p in cues]
        for cues in (_DECISION, _DECISION_FALSE, _CORRECTION, _CORRECTION_FALSE)
    )


_FENCED = re.compile(r"```.*?(?:```|$)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://\S+")
_QUOTED = re.compile(r"(?m)^\s*>.*$")
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(m: re.Match[str]) -> str:
    return _NOT_NEWLINE.sub(" ", m.group(0))


def _strip_code(text: str) -> str:
    """Blank out fenced code, inline code, quoted blocks and URLs: cue words there are not the
    person's own ("wrong" in a pasted error message) — same length, so offsets stay valid.
    Each is looked for only where its mark is in the text (most prompts hold none)."""
    if "`" in text:
        text = _INLINE.sub(_blank, _FENCED.sub(_blank, text))
    if "://" in text:
        text = _URL.sub(_blank, text)
    if ">" in text:
        text = _QUOTED.sub(_blank, text)
    return text


def _cues(text: str, pos: list[Cue], neg: list[Cue]) -> list[str]:
    if not text:
        return []
    body = _strip_code(text[:MAX_CHARS]).lower()
    body = body.replace("\u2019", "'")
    # Lower-cased ASCII holds no character that case-blind matching takes for another: a cue
    # whose literal is not in it cannot match, and is not searched (most are not).
    plain = body.isascii()
    false_spans = [m.span() for p, lit in neg if not plain or lit in body for m in p.finditer(body)]
    out: list[str] = []
    for p, lit in pos:
        if plain and lit not in body:
            continue
        for m in p.finditer(body):
            s, e = m.span()
            if any(fs <= s < fe or fs < e <= fe for fs, fe in false_spans):
                continue
            word = " ".join(m.group(0).strip(" ,.!:;\n").split())
            if word and word not in out:
                out.append(word)
    return out


def decision_cues(text: str) -> list[str]:
    """Decision language in ``text`` ("let's go with", "we'll use", "switch to", "decided",
    imperatives that commit to a change…), as the matched words; [] if none."""
    return list(_decision_cues(text))


def correction_cues(text: str) -> list[str]:
    """Correction language ("actually", "no,", "wait", "I meant", "that's wrong", "still not
    working"…) minus false friends ("no problem", "no worries", "no need", "actually works",
    "wait for", "can't wait"); the matched words, [] if none."""
    return list(_correction_cues(text))


# The gate reads a prompt's cues and the prompt rules read each sentence's: a prompt of one
# sentence is read once.
@lru_cache(maxsize=256)
def _decision_cues(text: str) -> tuple[str, ...]:
    pos, neg, _, _ = _compiled()
    return tuple(_cues(text, pos, neg))


@lru_cache(maxsize=256)
def _correction_cues(text: str) -> tuple[str, ...]:
    _, _, pos, neg = _compiled()
    return tuple(_cues(text, pos, neg))
