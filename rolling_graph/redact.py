"""Secret redaction: scrub text before it is sent to a probe or stored (DESIGN.md §7).

Each secret is replaced by ``[REDACTED:<kind>]``; everything around it is kept
byte-identical. Stdlib only; the patterns are compiled once at import time.

Two families of rules run over the *original* text and their hits are merged:

Specific token shapes (high confidence, recognised anywhere, even without context):
    anthropic-key        ``sk-ant-…`` (20+ token chars after the prefix)
    openai-key           ``sk-…``, ``sk-proj-…``, ``sk-svcacct-…``, ``sk-admin-…`` (20+ chars,
                         must contain a digit, so ``sk-learn``/``sk-some-long-name`` survive)
    aws-access-key-id    ``AKIA``/``ASIA``/``ABIA``/``ACCA`` + 16 upper-case alphanumerics
    aws-secret-key       40-char secret only when labelled (``aws_secret_access_key = …``)
    github-token         ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36+, ``github_pat_…``
    slack-token          ``xoxb-``/``xoxp-``/``xoxa-``/``xoxr-``/``xoxs-``, ``xapp-``
    slack-webhook        ``https://hooks.slack.com/services/…`` (whole URL)
    discord-webhook      ``https://discord.com/api/webhooks/<id>/<token>`` (whole URL)
    stripe-key           secret and restricted keys ``sk_live_``/``sk_test_``/``rk_live_``/
                         ``rk_test_``, webhook secrets ``whsec_``. Publishable keys
                         (``pk_live_``/``pk_test_``) are public by design and are kept.
    google-api-key       ``AIza`` + 35 chars
    google-oauth-secret  ``GOCSPX-…``
    google-oauth-token   ``ya29.…``
    jwt                  ``eyJ…`` . ``…`` . ``…`` (two 10+ char base64url segments + signature)
    private-key          a whole PEM block ``-----BEGIN … PRIVATE KEY-----`` … ``-----END …``
                         (RSA/EC/DSA/OPENSSH/ENCRYPTED/PGP). A block cut off before its END
                         line is redacted through its base64 body.

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
(git SHAs, UUIDs, base64 blobs), unquoted ``password = something`` in INI/YAML, and
passphrases with spaces.

Overlapping hits are merged into one span (never leak half a secret); the merged span
takes the kind of its most specific rule, so ``OPENAI_API_KEY=sk-…`` reports
``openai-key``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Finding", "redact", "redact_obj", "redact_with_report"]

MARKER = "[REDACTED:{kind}]"
_MARKER_PREFIX = "[REDACTED:"


@dataclass(frozen=True, slots=True)
class Finding:
    """One redacted span; offsets index the original text. The secret itself is not kept."""

    kind: str
    start: int
    end: int


# --- name classification ------------------------------------------------------------

_STRONG_WORDS = frozenset(
    {
        "SECRET",
        "SECRETS",
        "TOKEN",
        "PASSWORD",
        "PASSWORDS",
        "PASSWD",
        "PWD",
        "PASSPHRASE",
        "APIKEY",
        "APIKEYS",
        "CREDENTIAL",
        "CREDENTIALS",
        "DSN",
    }
)
# Compounds like AUTHTOKEN / CLIENTSECRET / DBPASSWORD; TOKENIZER does not end in TOKEN.
_STRONG_SUFFIXES = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY")
_WEAK_WORDS = frozenset({"AUTH", "OAUTH", "PASS", "PRIVATE", "CREDS"})
_KEY_PAIRS = frozenset(
    {"API", "ACCESS", "PRIVATE", "SIGNING", "ENCRYPTION", "MASTER", "AUTH", "LICENSE", "SESSION"}
)
# A trailing word that describes the secret (its length, type, location…) rather than
# holding it: PASSWORD_MIN_LENGTH=8, TOKEN_TYPES=[…], AUTH_URL=https://…
_META_WORDS = frozenset(
    [
        "LENGTH",
        "LEN",
        "MIN",
        "MAX",
        "SIZE",
        "COUNT",
        "LIMIT",
        "NUM",
        "NUMBER",
        "BUDGET",
        "TTL",
        "TIMEOUT",
        "EXPIRY",
        "EXPIRES",
        "EXPIRE",
        "EXPIRATION",
        "LIFETIME",
        "AGE",
        "TYPE",
        "TYPES",
        "KIND",
        "FORMAT",
        "ALG",
        "ALGORITHM",
        "ALGO",
        "ROUNDS",
        "COST",
        "FILE",
        "FILES",
        "PATH",
        "DIR",
        "DIRECTORY",
        "ENV",
        "VAR",
        "VARS",
        "NAME",
        "NAMES",
        "FIELD",
        "FIELDS",
        "HEADER",
        "HEADERS",
        "URL",
        "URI",
        "URLS",
        "ENDPOINT",
        "HOST",
        "PORT",
        "DOMAIN",
        "ISSUER",
        "AUDIENCE",
        "CALLBACK",
        "REDIRECT",
        "SCOPE",
        "SCOPES",
        "REGION",
        "USER",
        "USERNAME",
        "EMAIL",
        "LOGIN",
        "ID",
        "IDS",
        "ENABLED",
        "DISABLED",
        "ENABLE",
        "DISABLE",
        "REQUIRED",
        "OPTIONAL",
        "POLICY",
        "MODE",
        "METHOD",
        "PROVIDER",
        "STRATEGY",
        "PREFIX",
        "SUFFIX",
        "REGEX",
        "PATTERN",
        "VERSION",
        "STORE",
        "BACKEND",
        "CLASS",
        "HELP",
        "LABEL",
        "PROMPT",
        "PLACEHOLDER",
        "HINT",
        "ERROR",
        "MESSAGE",
        "MSG",
        "STATUS",
        "VALID",
        "CHECK",
    ]
)
_SHELL_VARS = frozenset({"PWD", "OLDPWD"})
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _name_strength(name: str) -> int:
    """0: not secret-ish, 1: weak (value must look like a credential), 2: strong."""
    if name.upper() in _SHELL_VARS:
        return 0
    words = [w.upper() for w in _WORD_RE.findall(name)]
    if not words or words[-1] in _META_WORDS:
        return 0
    strength = 0
    for i, w in enumerate(words):
        if w in _STRONG_WORDS or (
            len(w) > 6 and w.endswith(_STRONG_SUFFIXES) and not w.endswith("TOKENS")
        ):
            return 2
        if w == "KEY" and i > 0 and words[i - 1] in _KEY_PAIRS:
            return 2
        if w in _WEAK_WORDS:
            strength = 1
    return strength


def is_secret_name(name: str) -> bool:
    """True when a variable/field name looks like it holds a secret (see module doc)."""
    return _name_strength(name) > 0


# --- value classification ------------------------------------------------------------

_PLACEHOLDER_RE = re.compile(
    r"""(?ix)
    x+ | \*+ | \.{3,} | … | -+ | _+ | \#+ | <[^>]*> | \[[^\]]*\] | \(\w*\)
    | \$.* | \{\{.*\}\} | \{[\w.\[\]'"]*\} | %\(\w+\)s | %s
    | (?:your|my|insert|enter|replace|example)[-_\s.].* | .*[-_]here
    | changeme | change[-_]me | null | none | nil | undefined | true | false | yes | no | on
    | off | todo | tbd | redacted | example | string | str | password | passwd | pass | secret
    | token | key | api[-_]?key | dummy | test | placeholder | required | optional | default
    | [A-Z][A-Z0-9_]*_[A-Z0-9_]*   # YOUR_API_KEY, DB_PASSWORD: a name, not a value
    | [0-9]{1,5}                   # short integers are settings (lengths, ports, counts)
    """
)


def _is_placeholder(value: str) -> bool:
    return (
        not value.strip()
        or _MARKER_PREFIX in value
        or _PLACEHOLDER_RE.fullmatch(value) is not None
        or "${" in value
        or "{{" in value
    )


def _looks_credential(value: str) -> bool:
    """For weak names: 8+ chars, no spaces, and a digit or a symbol."""
    return (
        len(value) >= 8
        and not any(c.isspace() for c in value)
        and any(c.isdigit() or not c.isalpha() for c in value)
    )


def _acceptable_value(value: str, strength: int) -> bool:
    if strength == 0 or _is_placeholder(value):
        return False
    if any(c.isspace() for c in value):  # prose, e.g. help="API token for GitHub"
        return False
    return strength == 2 or _looks_credential(value)


def _tokenish(value: str, min_len: int) -> bool:
    return (
        len(value) >= min_len
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not _is_placeholder(value)
    )


# --- patterns --------------------------------------------------------------------------
# Every pattern starts with a literal where possible (fast prefix search in `re`), uses a
# character class that cannot contain its own terminator, and possessive quantifiers
# (`++`, `*+`, Python 3.11+), so no input can trigger backtracking blow-ups.
