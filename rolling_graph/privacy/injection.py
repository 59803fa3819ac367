"""What a model wrote may be stored only when it is no instruction and the person said it.

Two doors let a model's text into the graph (issue 28): the harness's compaction summary and
the agent's ``memory_note`` calls. Either may carry a prompt injection the agent read in a
web page or a tool result (issue 30). Two checks hold them to the rule tool output meets:

- :func:`instruction` — the text reads as an instruction addressed to the agent (override,
  standing rule, persuasion, secrecy, exfiltration, a disabled safeguard, a role change);
  such a text is never stored, whatever its source.
- :func:`supported` — a decision, correction or task must be found in the person's own words
  (their prompts, or the summary's "All user messages"); otherwise it is only a claim.

The patterns are data, kept here once; both doors use them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

# Each pattern names a way a text speaks to the agent rather than about the work. Matched
# case-insensitively on the text with its markdown emphasis removed.
INSTRUCTION_PATTERNS: dict[str, str] = {
    "override": (
        r"\b(?:ignore|disregard|forget|override|bypass|drop|abandon|set aside)\b[^.\n]{0,40}"
        r"\b(?:previous|prior|above|earlier|preceding|original|all|any|every|existing|your)\b"
        r"[^.\n]{0,25}\b(?:instructions?|rules?|guidelines?|prompts?|directions?|directives?|"
        r"constraints?|polic(?:y|ies)|guardrails?|context|messages?)\b"
    ),
    "system_prompt": r"\b(?:system|developer|hidden|secret)\s+(?:prompt|message|instructions?)\b",
    "standing_rule": (
        r"(?:^|[.:;!\-–—]\s*|\b(?:you|agent|assistant|model)\s+(?:should|must|will)\s+)"
        r"(?:always|never)\s|\bfrom (?:now|this point|here) on\b|\bhenceforth\b|"
        r"\bgoing forward\b|\bin (?:all )?(?:future|later|subsequent|every) "
        r"(?:sessions?|conversations?|turns?|responses?|replies|tasks?)\b|\bat all times\b|"
        r"\bevery (?:time|session|response) you\b|\bwhenever you\b|\bfor all future\b"
    ),
    "addressed": (
        r"\b(?:you|the agent|the assistant|the model|the ai|claude|codex|gemini|copilot)\s+"
        r"(?:must|shall|should|need to|have to|(?:are|is) (?:now |hereby )?(?:required|allowed|"
        r"authori[sz]ed|instructed|permitted|expected|supposed)|are now|will now|may now)\b|"
        r"\byour (?:new |real |true |actual |primary |only )?(?:task|instructions?|job|goal|"
        r"role|purpose|orders|mission|directive)\b|\bnote to (?:the )?(?:agent|assistant|ai|"
        r"model|self)\b|\b(?:dear|attention|hey) (?:agent|assistant|ai|claude|model)\b"
    ),
    "persuasion": (
        r"\b(?:user|person|owner|admin(?:istrator)?|developer|human|operator|maintainer|team|"
        r"boss|manager)s?\b[^.\n]{0,30}\b(?:wants?|would like|asked|asks|told|tells|instructs?|"
        r"instructed|authori[sz]ed|authori[sz]es|approved|permits?|permitted|allows?|allowed|"
        r"expects?|requires?|needs?|prefers?|wishes?|orders?|ordered|has asked|has told)\s+"
        r"(?:you|the (?:agent|assistant|model|ai)|claude|codex)\b|"
        r"\b(?:pre-?approved|already (?:approved|authori[sz]ed|confirmed)|has (?:given|granted) "
        r"(?:permission|consent|approval)|with (?:full|explicit|standing) (?:permission|"
        r"approval|consent)|no need to (?:ask|confirm|check|verify|tell)|without (?:asking|"
        r"confirm(?:ing|ation)|telling|notifying|approval|review|checking|permission))\b"
    ),
    "secrecy": (
        r"\b(?:do not|don'?t|never|avoid|stop)\s+(?:tell|telling|mention|mentioning|inform|"
        r"informing|reveal|revealing|show|showing|report|reporting|disclose|disclosing|alert|"
        r"notify|log|logging)\b|\bkeep (?:this|it|that)\b[^.\n]{0,15}\b(?:secret|hidden|"
        r"quiet|private|between us)\b|\b(?:secretly|covertly)\b"
    ),
    "exfiltration": (
        r"\b(?:send|upload|post|e-?mail|forward|exfiltrate|transmit|leak|paste|share|publish|"
        r"pipe|dump)\b[^.\n]{0,60}(?:\b(?:credentials?|secrets?|tokens?|"
        r"api[ _-]?keys?|passwords?|passphrases?|ssh keys?|id_rsa|private keys?|"
        r"env(?:ironment)? (?:vars?|variables?)|cookies?|session ids?|keychain|wallet)|\.env\b)|"
        r"\bexfiltrat\w*|\b(?:curl|wget)\b[^\n]{0,80}(?:\|\s*|\bpipe\w*\b[^\n]{0,20}\binto\s+)"
        r"(?:ba|z)?sh\b"
    ),
    "unsafe": (
        r"\b(?:disable|turn off|switch off|bypass|circumvent|deactivate|"
        r"suppress|weaken)\b[^.\n]{0,30}\b(?:auth(?:entication|orization)?|security|2fa|mfa|"
        r"tls|ssl|certificate (?:checks?|verification)|signature (?:checks?|verification)|"
        r"safety|guardrails?|sandbox(?:ing)?|audit(?:ing| logs?)?|firewall|antivirus|"
        r"permission (?:checks?|prompts?)|confirmation prompts?|code review|csrf|cors|"
        r"rate[- ]limit(?:ing|s)?|protection|encryption|(?:input )?validation|fraud checks?)\b|"
        r"\b(?:remove|delete|skip|drop|strip|turn off|wipe)\b[^.\n]{0,30}\b(?:(?:input )?"
        r"validation|encryption|audit logs?|fraud checks?|backups?|csrf|2fa|mfa)\b|"
        r"\b(?:passwords?|secrets?|credentials?)\b[^.\n]{0,30}\bplain ?text\b|"
        r"\b(?:secrets?|credentials?|passwords?|keys?)\b[^.\n]{0,20}\bcommit(?:ted)?\b|"
        r"\b(?:grant|give|giving|granting)\b[^.\n]{0,30}\b(?:root|admin|sudo|superuser|owner|"
        r"write access)\b|"
        r"\brm\s+-rf\s+[/~]|--no-verify\b|\bchmod\s+(?:-R\s+)?777\b|\bauthorized_keys\b|"
        r"\bbackdoor\b|\breverse shell\b|\bkeylogger\b|"
        r"\bforce[- ]push(?:ed|ing)?\b[^.\n]{0,40}\b(?:main|master|prod)|"
        r"\bdrop (?:the )?(?:production|prod|live) (?:database|db|tables?)\b"
    ),
    "exposure": (
        r"\b(?:publish|expose|share|send|sends|sending|wire|upload|sync|copy|mirror)\w*\b[^.\n]{0,60}"
        r"\b(?:to|on|with|over)\s+(?:the )?(?:internet|public|open web|an? (?:external|outside|"
        r"unknown|third[- ]party|personal)|(?:external|outside|unknown|third[- ]party|personal) "
        r"\w+|partner|plain e-?mail)"
    ),
    "role": (
        r"\b(?:act as|pretend (?:to be|you)|you are now|new persona|role-?play as|"
        r"jailbreak|developer mode|do anything now|unrestricted mode|god mode)\b"
    ),
    "markup": (
        r"<\s*/?\s*(?:system|instructions?|im_start|im_end|admin|override)\b|"
        r"\[/?(?:system|INST|SYS)\]|#{2,}\s*(?:system|instructions?|new instructions?)\b|"
        r"\bBEGIN (?:SYSTEM|INSTRUCTIONS|OVERRIDE)\b"
    ),
}

# A line that states what the person decided ("User chose …", "Decision: …"): it is a decision
# and must be found in their words, whatever section or field carries it.
DECIDED = re.compile(
    r"^(?:\*\*)?deci(?:sion|ded)(?:\*\*)?\s*:\s*|\b(?:the )?(?:user|person|they|he|she)\s+"
    r"(?:explicitly\s+)?(?:chose|decided|picked|selected|opted|confirmed|agreed|approved)\b"
    r"(?:\s+(?:on|to|that|for))?\s*:?\s*",
    re.IGNORECASE,
)
# A web address or a host name: where a poisoned task would send something.
ADDRESS = re.compile(
    r"\bhttps?://\S+|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|xyz|ru|cn|site|example|info|biz|"
    r"cloud|top)\b",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"\*\*|__|`")
# Words that carry no meaning on their own: a claim is supported by the words that remain.
_STOP = frozenset(
    """the a an and or but if then else for to of in on at by with from into over under this
    that these those it its is are was were be been being do does did done have has had i you
    he she we they me my your our their not no yes ok please thanks so as up out all any some
    more most very just also too only than there here what which who whom when where why how
    will would should could can may might must shall let lets use used using make made get got
    set now new user users person agent assistant wants want wanted asked asks said says told
    decided decision chose chosen go going keep need needs like about after before again
    instead rather one two via per each every both other such same""".split()  # noqa: SIM905
)
MIN_WORDS = 2
SHARE = 0.6  # of a claim's meaning words one message of the person must hold


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((k, re.compile(p, re.IGNORECASE)) for k, p in INSTRUCTION_PATTERNS.items())


def instruction(text: str) -> str | None:
    """The kind of instruction to the agent ``text`` reads as, or None."""
    plain = " ".join(_EMPHASIS.sub(" ", text).split())
    for kind, pattern in _compiled():
        if pattern.search(plain):
            return kind
    return None


def secret(text: str) -> bool:
    """Whether ``text`` holds something the redaction rules take for a secret."""
    from rolling_graph.privacy.redact.secrets import redact_with_report

    return bool(redact_with_report(text)[1])


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def meaning_words(text: str) -> set[str]:
    """The words of ``text`` that carry its meaning, lower case and crudely stemmed."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.\-]*[A-Za-z0-9]|[A-Za-z0-9]{2,}", text.lower())
    return {_stem(w) for w in words if len(w) >= 3 and w not in _STOP}


def supported(text: str, evidence: Iterable[str], share: float = SHARE) -> bool:
    """Whether one of the texts in ``evidence`` (the person's messages) holds most of what
    ``text`` says (at least :data:`MIN_WORDS` meaning words, and ``share`` of them)."""
    want = meaning_words(text)
    if len(want) < MIN_WORDS:
        return False
    need = max(MIN_WORDS, int(len(want) * share + 0.999))
    return any(len(want & meaning_words(said)) >= need for said in evidence)


def task_refusal(text: str, evidence: Iterable[str]) -> str | None:
    """Why a task a model wrote may not be stored as one: it states a decision of the person
    (those are held to their words), or names an address their words never gave."""
    if DECIDED.search(" ".join(_EMPHASIS.sub(" ", text).split())):
        return "it states a decision of the person, not a task"
    said = [e.lower() for e in evidence]
    for address in ADDRESS.findall(text):
        if not any(address.lower() in e for e in said):
            return f"it names an address ({address}) the person never gave"
    return None
