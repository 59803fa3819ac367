"""Passwords stated in prose, in the wordings people use (see ``redact``; issue 30).

Four shapes, each anchored on a literal so that ``re`` finds candidates fast:

* a label, then the value: ``pw: …``, ``db pwd …``, ``passwd for root is …``, ``the postgres
  password for prod is …``, ``passphrase: cobalt Orbit 47 lantern!``, ``password is "a b 4!"``;
* the value, then the label: ``… is the password for staging``, ``use … — that's the admin
  password``;
* a login given mid-sentence: ``log in as admin with … then``, ``sign in as deploy using …``;
* a login pair: ``login is admin / …``, ``creds: deploy:…``.

Only values that look like a credential count: 6+ characters, a letter, and a digit or a
symbol (``hashing``, ``required``, ``stored in ~/.netrc``, ``os.environ["PW"]`` stay); the bare
word ``pass`` ("tests pass 42/42") needs a separator or a value with a digit *and* a symbol.
A value with spaces counts when quoted, or after ``passphrase`` (to the end of the clause).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from rolling_graph.privacy.redact.names import is_placeholder

KIND = "prose-password"
PRIORITY = 4  # as the other prose rule: a token shape inside the value names the span
SYMBOLS = frozenset("!@#$%^&*+=?~<>")
# label -> how it is judged: "strong" (any credential value), "phrase" (may hold spaces),
# "loose" (an English word as well: a separator, or a digit *and* a symbol, is needed).
LABELS = {
    "password": "strong",
    "passwd": "strong",
    "passcode": "strong",
    "pwd": "strong",
    "pw": "strong",
    "passphrase": "phrase",
    "pass": "loose",
}
_TAIL_LABELS = ("password", "passwd", "passphrase", "pwd", "pw")
_LOGIN_LEADS = ("log in", "login", "logged in", "sign in", "signed in", "ssh in", "ssh")
_PAIR_LABELS = ("login", "logins", "creds", "credentials", "user/pass", "username/password")
_CLAUSE_STOP = re.compile(r"\s(?:then|and|but|for|on|to|so|if|when|—|–|-)\s|[.,;:()\n]\s|[\n,;]")
_CODE = re.compile(
    r"""(?x)
    .*(?:[()\[\]{}/\\|]|::|\.\w+\().*    # a call, an index, a path, a pipe or alternation
    | \$[\w{].* | -.*                       # a variable, a flag
    | [A-Za-z_]\w*=.*                        # an argument: is_causal=False
    | [A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+  # an attribute: self.pw, cfg.key
    | [a-z_][a-z0-9_]*_[a-z0-9_]*              # a snake_case name
    | [^@\s]+@[^@\s]+\.[A-Za-z]{2,}            # an e-mail address (a login, not a password)
    | [\d\W_]+                                 # numbers, dates, versions, punctuation
    """
)


def _label_re(label: str) -> re.Pattern[str]:
    w = re.escape(label)
    return re.compile(
        f"{w}(?<![A-Za-z0-9_]{w})(?![A-Za-z0-9_/])"
        r"(?:[ \t]{1,4}+(?:for|of|on)[ \t]{1,4}+[\w.@\-]{1,40}+)?"
        r"(?P<sep>[ \t]{0,4}+(?:is now|is|was|are|:=|=>|->|=|:)(?![A-Za-z0-9_]))?[ \t]{0,4}+"
        r"(?:(?P<q>[\"'`“‘])(?P<qv>[^\"'`“”‘’\n]{4,128}+)[\"'`”’]|(?P<v>[^\s\"'`]{1,128}+))"
    )


@functools.cache
def _rules() -> dict[str, list[re.Pattern[str]]]:
    """Compiled on first use: one literal-first pattern per spelling."""

    def spellings(word: str) -> list[str]:
        return list(dict.fromkeys((word, word.capitalize(), word.upper())))

    tail = "|".join(_TAIL_LABELS)
    lead = "|".join(re.escape(x) for x in _LOGIN_LEADS)
    pair = "|".join(re.escape(x) for x in _PAIR_LABELS)
    return {
        **{label: [_label_re(s) for s in spellings(label)] for label in LABELS},
        # "<value> is the [db] password", "<value> — that's the admin password": the label is
        # found first, the value then looked for just before it.
        "tail": [re.compile(rf"(?i)(?<![A-Za-z0-9_])(?:{tail})(?![A-Za-z0-9_])")],
        "login": [
            re.compile(
                rf"(?i)(?<![A-Za-z0-9_])(?:{lead})(?:[ \t]+(?:to|into)[ \t]+\S{{1,80}}+)?"
                r"[ \t]+as[ \t]+[\w.@\-]{1,64}+[ \t]+(?:with|using|and|/)"
                r"(?:[ \t]+(?:the[ \t]+)?(?:password|passwd|pass|pwd|pw))?[ \t]+"
                r"(?P<v>[^\s\"'`]{4,128}+)"
            )
        ],
        "pair": [
            re.compile(
                rf"(?i)(?<![A-Za-z0-9_])(?:{pair})[ \t]{{0,4}}+(?:is|are|=|:)[ \t]{{0,4}}+"
                r"[\w.@\-]{1,64}+[ \t]{0,3}+[/:][ \t]{0,3}+(?P<v>[^\s\"'`]{4,128}+)"
            )
        ],
    }


_BEFORE = re.compile(
    r"(?<![^\s(\"'`])[\"'`]?(?P<v>[^\s\"'`]{6,128}+)[\"'`]?[ \t]{0,4}+"
    r"(?:(?:is|was|=)|[—–,:\-]?[ \t]{0,4}+(?:that's|that’s|that is|it's|it’s|it is|which is))"
    r"[ \t]{1,4}+(?:the|my|our|your|their)[ \t]{1,4}+(?:[\w\-]{1,20}+[ \t]{1,4}+){0,2}$",
    re.IGNORECASE,
)


def credential(value: str, *, strict: bool = False, spaces: bool = False) -> bool:
    """6+ characters, a letter, and a digit or a symbol (with ``strict``, both); not code, a
    path, an e-mail address or a placeholder. ``spaces``: a quoted or phrase value."""
    if not 6 <= len(value) <= 128 or is_placeholder(value):
        return False
    if not spaces and any(c.isspace() for c in value):
        return False
    digit = any(c.isdigit() for c in value)
    # "password prompt?": a question mark ends a question (a strict value needs a digit too).
    symbol = any(c in SYMBOLS for c in (value if strict else value[:-1]))
    if not any(c.isalpha() for c in value) or not (digit and symbol if strict else digit or symbol):
        return False
    words = value.split()
    if spaces and (len(words) > 8 or value.rstrip().endswith(".")):
        return False  # a sentence (an error message), not a passphrase
    # A number among a passphrase's words is part of it; code shapes are judged per word.
    return not any(_CODE.fullmatch(w) for w in words if any(c.isalpha() for c in w))


def _trim(value: str) -> str:
    value = value.rstrip(".,;:)”’")
    # "**Weak Password Policy**": bold markdown, not the value; one "*" may end a password.
    return value.rstrip("*").rstrip(".,;:)”’") if value.endswith("**") else value


def _phrase(text: str, start: int, hi: int) -> str:
    """A passphrase written without quotes: the words up to the end of the clause."""
    window = text[start : min(hi, start + 128)]
    stop = _CLAUSE_STOP.search(window)
    return _trim(window[: stop.start() if stop else len(window)].rstrip())


def _labelled(label: str, m: re.Match[str], text: str, hi: int) -> tuple[int, int] | None:
    how = LABELS[label]
    if m.group("q"):
        if how == "loose" and not m.group("sep"):
            return None  # "pass `--net=host`", "pass "Test created"": an argument, a message
        value = m.group("qv")
        ok = credential(value, spaces=True)
        return (m.start("qv"), m.end("qv")) if ok else None
    start = m.start("v")
    if how == "phrase":
        value = _phrase(text, start, hi)
        return (start, start + len(value)) if credential(value, spaces=True) else None
    value = _trim(m.group("v"))
    strict = how == "loose" and not m.group("sep")
    return (start, start + len(value)) if credential(value, strict=strict) else None


def _folded(window: str) -> str:
    """``window`` as a case-blind pattern compares an ASCII word with it: lower-cased, with the
    two letters that fold to ASCII only in ``re`` (long s, dotless i) replaced. A word not in it
    cannot match, so its patterns need no search (each searches the window position by position)."""
    low = window.lower()
    return low if low.isascii() else low.replace("\u017f", "s").replace("\u0131", "i")


# Every word the rules look for holds one of these: a window without it holds none of its words
# (one look for "pass" instead of one per "password", "passwd", "passcode" ...).
_GUARDS = ("pass", "pw", "log", "sign", "ssh", "cred")
_GUARD_OF = {
    w: next(g for g in _GUARDS if g in w)
    for w in (*LABELS, *_TAIL_LABELS, *_LOGIN_LEADS, *_PAIR_LABELS)
}


def prose_hits(text: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each password stated in prose within ``text[lo:hi]``."""
    rules = _rules()
    low = _folded(text[lo:hi])
    present = {g for g in _GUARDS if g in low}
    if not present:
        return

    def has(word: str) -> bool:
        return _GUARD_OF[word] in present and word in low

    for label in LABELS:
        if not has(label):
            continue
        for rx in rules[label]:
            for m in rx.finditer(text, lo, hi):
                span = _labelled(label, m, text, hi)
                if span is not None:
                    yield span
    if any(has(label) for label in _TAIL_LABELS):
        for m in rules["tail"][0].finditer(text, lo, hi):
            b = _BEFORE.search(text, max(lo, m.start() - 200), m.start())
            if b is not None and credential(value := _trim(b.group("v"))):
                yield b.start("v"), b.start("v") + len(value)
    for key, words in (("login", _LOGIN_LEADS), ("pair", _PAIR_LABELS)):
        if not any(has(word) for word in words):
            continue
        for m in rules[key][0].finditer(text, lo, hi):
            if credential(value := _trim(m.group("v"))):
                yield m.start("v"), m.start("v") + len(value)
