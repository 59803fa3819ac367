"""Secret redaction: scrub text before it is sent to a probe or stored (DESIGN.md §7).

Each secret is replaced by ``[REDACTED:<kind>]``; everything around it is kept
byte-identical. Stdlib only; patterns compile on first use or import, never per call.

Two families of rules run over the *original* text and their hits are merged:

Token shapes (high confidence, recognised anywhere, even without context): about 60
providers' key formats — Anthropic, OpenAI, AWS, GitHub, GitLab, Slack, Stripe, Google, npm,
PyPI, Hugging Face, SendGrid, DigitalOcean, Mailgun, Telegram and Discord bots, Azure, JWTs,
PEM private keys… — see ``rolling_graph.privacy.redact.shapes``. A shape whose text is a documentation
example or a masked value (``…EXAMPLE``, ``ghp_xxxxx``, ``sk-...``, ``****``) is kept.

Context rules (they need a label, so ordinary code and prose stay untouched):
    bearer-token / basic-auth
        ``Authorization: Bearer|Token|Basic <v>``: the value is redacted when it has 8+
        chars and a digit. A bare ``bearer <v>`` outside a header needs 20+ chars with
        a digit and a letter, so "the bearer of bad news", ``Bearer {token}``,
        ``Bearer $TOKEN`` and ``Bearer QQ==`` come through unchanged.
    api-key-header       ``x-api-key: <v>`` and friends (8+ chars with a digit).
    url-password         ``scheme://user:password@host`` → only the password goes; user and
                         host stay. Placeholders (``password``, ``$PASS``, ``<pw>``, ``***``)
                         are kept.
    env-secret           ``[export ]NAME=value`` with an UPPER_CASE name written env-style
                         (no spaces around ``=``), quoted or not.
    secret-assignment    ``name = "literal"`` / ``"name": "literal"`` / ``name := 'lit'`` /
                         ``'name' => 'lit'`` in code, JSON, YAML: only *quoted literals*,
                         so ``password = input()`` or ``token = get_token()`` are code.
    secret-field         (``redact_obj`` only) a string value under a secret-ish dict key.
    unquoted values      YAML/INI/properties ``password: x`` (``secret-assignment``), prose
                         "my password is x" (``prose-secret``), ``--api-key x``
                         (``cli-secret``): only values that look like credentials (a digit or
                         a symbol, 6+ chars) and not like code (calls, attributes, paths,
                         dates, ``snake_case`` names); see ``redact_names.unquoted_credential``.
    cli-password         ``curl -u user:pw``, ``docker login -p pw``, ``mysql -ppw``.

When is a NAME secret-ish? It is split into words (``_``, ``-``, ``.``, camelCase):
  * strong words: SECRET(S), TOKEN, PASSWORD(S), PASSWD, PWD, PASSPHRASE, APIKEY,
    CREDENTIAL(S), DSN, or a compound ending in one (``AUTHTOKEN``, ``DBPASSWORD``);
    word pairs API KEY, ACCESS KEY, PRIVATE KEY, SIGNING KEY, ENCRYPTION KEY, MASTER KEY,
    AUTH KEY, LICENSE KEY, SESSION KEY;
  * weak words: AUTH, OAUTH, PASS, PRIVATE, CREDS — their values must also look like a
    credential (8+ chars, no spaces, a digit or a symbol), so ``"auth": "required"`` stays;
  * not secret when the *last* word is metadata about the secret rather than the secret:
    ``PASSWORD_MIN_LENGTH=8``, ``TOKEN_TYPES``, ``AUTH_URL``, ``PASSWORD_FILE``,
    ``TOKEN_TTL``, ``AUTH_ENABLED``, ``CLIENT_ID`` … (see ``_META_WORDS``);
  * whole-word matching: ``AUTHOR=``, ``TOKENIZERS_PARALLELISM``, ``MAX_TOKENS=4096``,
    ``KEY=`` alone are not secret; ``PWD``/``OLDPWD`` are the shell's cwd, not passwords.

Values that are kept even under a secret name: empty, placeholders (``xxx``, ``***``,
``...``, ``<token>``, ``${VAR}``, ``$(cmd)``, ``{{ var }}``, ``your-key-here``,
``YOUR_API_KEY``-style ALL_CAPS identifiers, ``changeme``, true/false/null/none), short
integers (≤5 digits: a setting, not a credential), values with spaces (prose such as
``help="API token for X"``), and values already containing ``[REDACTED:``
(which keeps ``redact`` idempotent).

Not covered on purpose (false-positive risk): bare high-entropy strings without a label
(git SHAs, UUIDs, base64 blobs), unquoted all-letter values (``password: hunter``), and
passphrases with spaces.

Overlapping hits are merged into one span (never leak half a secret); the merged span
takes the kind of its most specific rule, so ``OPENAI_API_KEY=sk-…`` reports
``openai-key``.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from rolling_graph.privacy.redact.names import DOC_EXAMPLE_DOTTED_RE as _DOC_DOTTED_RE
from rolling_graph.privacy.redact.names import DOC_EXAMPLE_RE as _DOC_EXAMPLE_RE
from rolling_graph.privacy.redact.names import MARKER_RE as _MARKER_RE
from rolling_graph.privacy.redact.names import acceptable_value as _acceptable_value
from rolling_graph.privacy.redact.names import is_placeholder as _is_placeholder
from rolling_graph.privacy.redact.names import is_secret_name, unquoted_credential, unquoted_value
from rolling_graph.privacy.redact.names import looks_credential as _looks_credential
from rolling_graph.privacy.redact.names import name_strength as _name_strength
from rolling_graph.privacy.redact.names import tokenish as _tokenish
from rolling_graph.privacy.redact.needle import needle
from rolling_graph.privacy.redact.prose import KIND as _PROSE_KIND
from rolling_graph.privacy.redact.prose import PRIORITY as _PROSE_PRIORITY
from rolling_graph.privacy.redact.prose import prose_hits
from rolling_graph.privacy.redact.shapes import Rule, shape_rules

__all__ = ["Finding", "is_secret_name", "redact", "redact_obj", "redact_with_report"]

MARKER = "[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class Finding:
    """One redacted span; offsets index the original text. The secret itself is not kept."""

    kind: str
    start: int
    end: int


# --- patterns --------------------------------------------------------------------------
# Every pattern starts with a literal where possible (fast prefix search in `re`), uses a
# character class that cannot contain its own terminator, and possessive quantifiers
# (`++`, `*+`, Python 3.11+), so no input can trigger backtracking blow-ups. Token shapes
# (provider key formats) live in `redact_shapes`; the rules here need context.

_TOKEN68 = r"[A-Za-z0-9._~+/\-]"  # RFC 7235 token68, the alphabet of Bearer/Basic values
_QUOTE = r"(?:\\?[\"'])"  # a quote, possibly JSON-escaped (\") in raw transcript text

# Command lines that carry a password in a flag: `curl -u user:pw`, `docker login -p pw`,
# `mysql -ppw`. They start with a literal, so they run over the whole text cheaply.
_CLI_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "cli-password",
        re.compile(
            r"curl\b[^\n|;&]{0,300}?\s(?:-u|--user)(?:=|\s{1,4}+)['\"]?"
            r"[^\s:'\"$+%]{1,256}+:(?P<v>[^\s'\"@]{1,4096}+)"
        ),
    ),
    (
        "cli-password",
        re.compile(
            r"docker(?:-compose)? login\b[^\n|;&]{0,200}?\s(?:-p|--password)[=\s]\s*+['\"]?(?P<v>[^\s'\"]{1,4096}+)"
        ),
    ),
    (
        "cli-password",
        re.compile(r"mysql(?:dump|admin)?\b[^\n|;&]{0,200}?\s-p(?P<v>[^\s'\"]{1,4096}+)"),
    ),
]

# Context rules need a label (Authorization, a secret-ish name…) that always contains one
# of these keywords, so they only run in windows around a keyword: long stretches of prose
# or base64 without one are skipped at C speed.
_KEYWORD_RE = re.compile(
    r"secret|token|pass|pwd|pw|key|auth|cred|private|dsn|bearer|pin|log ?in|sign ?in|ssh"
)
_WINDOW_BACK = 128  # a name starts at most ~100 chars before its keyword
_WINDOW_FWD = 4400  # and a match ends within the 4096-char value cap (+ slack) after it
_WINDOW_STEP = _WINDOW_FWD // 2

_AUTH_HEADER_RE = re.compile(
    r"(?:Authorization|authorization|AUTHORIZATION)"
    rf"{_QUOTE}?\s{{0,4}}+[:=]\s{{0,4}}+{_QUOTE}?\s{{0,4}}+"
    r"(?P<scheme>Bearer|bearer|BEARER|Token|token|TOKEN|Basic|basic|BASIC)"
    rf"\s{{1,4}}+(?P<v>{_TOKEN68}{{1,4096}}+={{0,3}})"
)
_BARE_BEARER_RE = re.compile(
    r"(?:Bearer|bearer|BEARER)(?<![A-Za-z\]](?:Bearer|bearer|BEARER))"
    rf"\s{{1,4}}+(?P<v>{_TOKEN68}{{20,4096}}+={{0,3}})"
)
# One pass for every "name <op> value" form (env lines, code, JSON, YAML, HTTP headers,
# labelled AWS secrets); _classify_assignment decides what, if anything, it is.
_ASSIGN_RE = re.compile(
    r"(?<![\w.$\-\]])(?P<name>[A-Za-z_][\w.\-]{0,100}+)(?P<nq>\\?[\"'])?\]?"
    r"(?P<sp1>\s{0,4}+)(?P<op>:=|=>|[:=])(?!=)(?P<sp2>\s{0,4}+)"
    r"(?:\\?(?P<q>[\"']))?(?P<v>[^\s\"'`\\]{1,4096}+)(?(q)\\?(?P=q))"
)
# Prose: "my password is hunter2", "the API token was abc123." (value judged like YAML's).
# One literal-first pattern per label spelling: `re` finds literals fast, not `(?i)` words.
_PROSE_LABELS = ("password", "passphrase", "passwd", "passcode", "pin", "secret", "token")
_PROSE_RES = [
    re.compile(
        f"{w}(?<![A-Za-z0-9_]{w})" + r"\s{1,4}+(?:is|was|is now)\s{1,4}+:?\s{0,4}+[`'\"]?"
        r"(?P<v>[^\s`'\"]{4,512}+)"
    )
    for label in _PROSE_LABELS + ("API key", "api key")
    for w in dict.fromkeys((label, label.capitalize(), label.upper()))
]
# `--password=x`, `--api-key x`, `--client-secret x` on a command line; the flag must end in
# the secret's noun (`gpg --list-secret-keys ID` names a key, it does not hold one).
_FLAG_NOUNS = frozenset(
    ["PASSWORD", "PASSWD", "PASS", "PWD", "PASSPHRASE", "TOKEN", "SECRET", "KEY", "APIKEY"]
)


def _secret_flag(flag: str) -> bool:
    return (
        _name_strength(flag) == 2 and flag.replace("-", "_").upper().split("_")[-1] in _FLAG_NOUNS
    )


_FLAG_RE = re.compile(
    r"--(?<![\w-]--)(?P<flag>[a-z][a-z0-9-]{1,40}+)(?:=|\s{1,4}+)['\"]?(?P<v>[^\s'\"]{1,4096}+)"
)
_ENV_NAME_RE = re.compile(r"[A-Z_][A-Z0-9_]*")
_AWS_SECRET_NAMES = frozenset({"awssecretaccesskey", "awssecretkey", "secretaccesskey"})
_AWS_SECRET_RE = re.compile(r"[A-Za-z0-9/+]{40}")
_HEADER_NAMES = frozenset(
    {"x-api-key", "api-key", "apikey", "x-auth-token", "x-access-token", "private-token"}
    | {"x-goog-api-key"}
)


def _classify_assignment(m: re.Match[str], text: str) -> tuple[str, int] | None:
    """(kind, priority) for a `name <op> value` match, or None if it is ordinary code."""
    name, value, quote = m.group("name"), m.group("v"), m.group("q")
    lname = name.lower()
    if _KEYWORD_RE.search(lname) is None:  # cheap exit for the bulk of ordinary code
        return None
    if (
        "secret" in lname
        and _AWS_SECRET_RE.fullmatch(value)
        and "".join(c for c in lname if c.isalpha()) in _AWS_SECRET_NAMES
    ):
        return "aws-secret-key", 0
    glued = m.group("op") == "=" and not (m.group("nq") or m.group("sp1") or m.group("sp2"))
    strength = _name_strength(name)
    if glued and _ENV_NAME_RE.fullmatch(name):  # KEY=value, the .env / shell form
        return ("env-secret", 2) if _acceptable_value(value, strength) else None
    if quote is None:
        start = m.start("name")
        if glued and start and text[start - 1] in "?&":  # ?access_token=… in a URL
            return ("url-param", 2) if strength == 2 and _acceptable_value(value, 2) else None
        if m.group("op") == ":" and lname in _HEADER_NAMES and _tokenish(value, 8):
            return "api-key-header", 1
        # Unquoted YAML/INI/properties (`password: x`, `db.password=x`): credential shapes
        # only, so `password = input()` or `token: str` stay code.
        if strength == 2 and m.group("op") in ":=" and unquoted_credential(unquoted_value(value)):
            return "secret-assignment", 3
        return None
    return ("secret-assignment", 3) if _acceptable_value(value, strength) else None


def _keyword_windows(text: str, low: str) -> list[tuple[int, int]]:
    """Merged [lo, hi) ranges around keyword hits (in ``low``, the text lower-cased), where
    context rules may match."""
    n = len(text)
    if len(low) != n:  # a few code points change length when lowered: scan everything
        return [(0, n)]
    out: list[tuple[int, int]] = []
    pos = 0
    while (m := _KEYWORD_RE.search(low, pos)) is not None:
        # Keywords between this one and `pos` are not visited one by one (dense code has
        # thousands); the window is widened as if one sat right at `pos`.
        pos = m.start() + _WINDOW_STEP
        lo, hi = max(0, m.start() - _WINDOW_BACK), min(n, pos + _WINDOW_FWD)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


_Hit = tuple[int, int, int, str]  # start, end, priority, kind


def _context_hits(text: str, low: str, lo: int, hi: int, hits: list[_Hit]) -> None:
    # ``low``: the text lower-cased, character for character. A word that is not in the window
    # of ``low`` is in the window in no case: the rules that need it are not searched.
    if low.find("authorization", lo, hi) >= 0:
        for m in _AUTH_HEADER_RE.finditer(text, lo, hi):
            if _tokenish(m.group("v"), 8):
                kind = "basic-auth" if m.group("scheme").lower() == "basic" else "bearer-token"
                hits.append((m.start("v"), m.end("v"), 1, kind))
    if low.find("bearer", lo, hi) >= 0:
        for m in _BARE_BEARER_RE.finditer(text, lo, hi):
            if _tokenish(m.group("v"), 20):
                hits.append((m.start("v"), m.end("v"), 1, "bearer-token"))
    for guard, rules in _context_groups():
        if low.find(guard, lo, hi) < 0:
            continue  # the label in no case: no spelling of it is searched for
        _needle_hits(text, lo, hi, rules, hits)
    # Passwords in other wordings: "pw: …", "… is the password", "log in as admin with …".
    hits.extend((s, e, _PROSE_PRIORITY, _PROSE_KIND) for s, e in prose_hits(text, lo, hi))
    _assignment_hits(text, low, lo, hi, hits)


def _needle_hits(
    text: str, lo: int, hi: int, rules: list[tuple[re.Pattern[str], str]], hits: list[_Hit]
) -> None:
    """Prose labels ("the password is …") and secret flags (``--api-key …``) in ``[lo, hi)``."""
    for rx, lit in rules:
        if lit and text.find(lit, lo, hi) < 0:
            continue  # cannot match in this window: not searched
        for m in rx.finditer(text, lo, hi):
            if rx is _FLAG_RE and not _secret_flag(m.group("flag")):
                continue
            value = unquoted_value(m.group("v"), ";" if rx is _FLAG_RE else ".,;:!?)*_`")
            if rx is not _FLAG_RE and not any(c.isdigit() for c in value):
                continue  # prose: "the token is short-lived", "1Password is locked"
            if unquoted_credential(value):
                kind, prio = ("cli-secret", 3) if rx is _FLAG_RE else ("prose-secret", 4)
                hits.append((m.start("v"), m.start("v") + len(value), prio, kind))


# What a name that _classify_assignment reads on holds (a keyword), or our marker's "REDACTED",
# searched for in the lower-cased text, as _classify_assignment looks for it in the name.
_NAME_HINT_RE = re.compile(f"{_KEYWORD_RE.pattern}|redacted")
_NAME_RUN_RE = re.compile(r"[\w.\-]*+")  # name characters (_ASSIGN_RE's), read backwards here
_NAME_MAX = 101  # characters of a name (_ASSIGN_RE's name group)


def _assignment_hits(text: str, low: str, lo: int, hi: int, hits: list[_Hit]) -> None:
    """The ``name <op> value`` hits in ``[lo, hi)``: what searching _ASSIGN_RE from ``lo`` on,
    match after match, finds, trying only the names that hold a keyword (or are "REDACTED").

    A match starts only where a run of name characters does (its lookbehind refuses one before
    it), so each keyword found in ``low`` names one place to try: its run's start, read in the
    window reversed. A match whose name holds no keyword is refused by _classify_assignment and
    only moves the search on to its value, where no other match could have started before (no
    name character lies between a name and its value): not trying it changes nothing."""
    base = max(0, lo - _NAME_MAX - 1)
    back = text[base:hi][::-1]  # back[hi - k:] reads text[:k] backwards
    pos, run_end = lo, -1
    for hint in _NAME_HINT_RE.finditer(low, lo, hi):
        k = hint.start()
        if k < pos or k < run_end:
            continue  # passed, or in the run tried last
        run = _NAME_RUN_RE.match(back, hi - k, hi - k + _NAME_MAX + 1)
        start = k - (run.end() - run.start()) if run is not None else k
        if start < lo or k - start > _NAME_MAX:
            continue  # the run starts before the window, or too far back to reach the keyword
        run_end = start + _NAME_RUN_RE.match(text, start).end() - start
        if start < pos or (m := _ASSIGN_RE.match(text, start, hi)) is None:
            continue
        if m.group("name") == "REDACTED" and (mk := _MARKER_RE.match(text, start - 1)):
            # Our own marker: its kind (`env-secret`, `bearer-token`) is not a name.
            pos = mk.end()
            continue
        found = _classify_assignment(m, text)
        if found is not None:
            end = m.end("v")
            if found[0] == "secret-assignment" and not m.group("q"):
                end = m.start("v") + len(unquoted_value(m.group("v")))
            hits.append((m.start("v"), end, found[1], found[0]))
            # A value cut short ("00000=" of "KEY=00000=;PASSWORD=…") leaves the rest of the
            # match to read: a name there is tried now, not on a second pass over the output.
            pos = end if end < m.end("v") else m.end()
        else:
            # Not a secret, but its value may hold a name of its own (`"cmd": "API_KEY=…"`,
            # `x='password:…'`): resume there rather than after the match, so what is found
            # does not depend on where an earlier, rejected match happened to end.
            pos = m.start("v")


_DOTTED_KINDS = frozenset({"azure-ad-secret"})  # a "." is one of the value's characters


@functools.cache
def _shape_needles() -> list[tuple[Rule, str]]:
    return [(rule, needle(rule[2])) for rule in shape_rules()]


@functools.cache
def _context_needles() -> list[tuple[re.Pattern[str], str]]:
    return [(rx, needle(rx)) for rx in (*_PROSE_RES, _FLAG_RE)]


@functools.cache
def _context_groups() -> list[tuple[str, list[tuple[re.Pattern[str], str]]]]:
    """The context needles by their lower-case spelling ("password" for "password", "Password"
    and "PASSWORD"): one look in the lower-cased window tells whether any can match."""
    groups: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for rx, lit in _context_needles():
        groups.setdefault(lit.lower(), []).append((rx, lit))
    return list(groups.items())


# Short texts come back again and again (a model's name, a tool's path, "Todos have been
# modified"): what was found in the last few thousand is kept. Each of them costs the ~80
# needle looks however short it is; findings are frozen, the lists handed out are copies.
# Kept by a 128-bit digest of the text, never the text: a long-lived worker must not hold
# the secrets it was given to remove (the findings are offsets and kinds only).
_KEPT: dict[bytes, list[Finding]] = {}
_KEPT_TEXT = 2048  # characters: longer texts rarely repeat
_KEPT_MAX = 4096  # texts kept; when full, emptied


def _scan(text: str) -> list[Finding]:
    if len(text) > _KEPT_TEXT:
        return _scan_text(text)
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    found = _KEPT.get(key)
    if found is None:
        if len(_KEPT) >= _KEPT_MAX:
            _KEPT.clear()
        found = _KEPT[key] = _scan_text(text)
    return list(found)


def _scan_text(text: str) -> list[Finding]:
    hits: list[_Hit] = []
    for (kind, prio, rx, group, check), lit in _shape_needles():
        if lit not in text:
            continue  # every match holds the literal: most texts start no search at all
        for m in rx.finditer(text):
            doc = _DOC_DOTTED_RE if kind in _DOTTED_KINDS else _DOC_EXAMPLE_RE
            if (check is None or check(m)) and (
                kind == "private-key" or doc.search(m.group(0)) is None
            ):
                start, end = (m.start("pre"), m.end()) if group == "wide" else m.span(group)
                if start < end:
                    hits.append((start, end, prio, kind))
    for kind, rx in _CLI_RULES:
        for m in rx.finditer(text):
            value = unquoted_value(m.group("v"))
            if not _is_placeholder(value):
                hits.append((m.start("v"), m.start("v") + len(value), 1, kind))
    low = text.lower()
    windows = _keyword_windows(text, low)
    if len(low) != len(text):
        # "İ" is the one character that lower-casing makes two: as "i", ``low`` lines up with
        # the text again (no keyword holds an "i" that "İ" lower-cased could stand for).
        low = text.replace("\u0130", "i").lower()
    for lo, hi in windows:
        _context_hits(text, low, lo, hi, hits)
    if not hits:
        return []
    hits.sort()
    # Merge overlapping hits into one span so no fragment of a secret survives; the most
    # specific rule (lowest priority) names the merged span.
    out: list[Finding] = []
    cur_s, cur_e, best_p, best_k = hits[0]
    for s, e, p, k in hits[1:]:
        if s < cur_e:
            cur_e = max(cur_e, e)
            if p < best_p:
                best_p, best_k = p, k
        else:
            out.append(Finding(best_k, cur_s, cur_e))
            cur_s, cur_e, best_p, best_k = s, e, p, k
    out.append(Finding(best_k, cur_s, cur_e))
    return out


def _apply(text: str, findings: list[Finding]) -> str:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(MARKER.format(kind=f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def redact_with_report(text: str) -> tuple[str, list[Finding]]:
    """Redact `text`; also return what was found (offsets into the original text)."""
    findings = _scan(text)
    return (_apply(text, findings) if findings else text), findings


def redact(text: str) -> str:
    """Replace every secret in `text` with ``[REDACTED:<kind>]``; the rest is unchanged."""
    return redact_with_report(text)[0]


_FIELD_MAX = 1024  # longer strings under a secret key are content; scan them instead


def _redact_field(key: Any, value: Any) -> Any:
    if isinstance(key, str) and isinstance(value, str):
        strength = _name_strength(key)
        v = value.strip()
        # A value under a secret-ish key is the secret as a whole, even without a shape
        # we recognise ({"db_password": "hunter2"}); spaces are allowed here because the
        # key already says what it is.
        if (
            strength
            and len(value) <= _FIELD_MAX
            and "\n" not in v
            and not _is_placeholder(v)
            and (strength == 2 or _looks_credential(v))
        ):
            found = _scan(value)
            kind = found[0].kind if found and found[0].kind != "secret-assignment" else None
            return MARKER.format(kind=kind or "secret-field")
    return redact_obj(value)


def redact_obj(obj: Any) -> Any:
    """Return a copy of `obj` with every string inside dicts/lists/tuples redacted.

    Dict keys are kept as they are; a string value under a secret-ish key (``password``,
    ``api_key``, ``client_secret``…) is redacted whole. Other scalars pass through.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: _redact_field(k, v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact_obj(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(redact_obj(v) for v in obj)
    return obj
