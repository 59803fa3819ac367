"""Is this name secret-ish, is this value a credential or a placeholder? (see ``redact``).

Names are split into words (``_``, ``-``, ``.``, camelCase) and judged by their words; values
are judged by their shape: placeholders and documentation examples are never secrets.
"""

from __future__ import annotations

import re

MARKER_RE = re.compile(r"\[REDACTED:[a-z\-]{1,40}\]")

# --- name classification ------------------------------------------------------------

_STRONG = (
    "SECRET SECRETS TOKEN PASSWORD PASSWORDS PASSWD PWD PASSPHRASE APIKEY APIKEYS CREDENTIAL"
    " CREDENTIALS DSN"
)
_STRONG_WORDS = frozenset(_STRONG.split())
# Compounds like AUTHTOKEN / CLIENTSECRET / DBPASSWORD; TOKENIZER does not end in TOKEN.
_STRONG_SUFFIXES = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY")
_WEAK_WORDS = frozenset({"AUTH", "OAUTH", "PASS", "PRIVATE", "CREDS"})
_KEY_PAIRS = frozenset(
    {"API", "ACCESS", "PRIVATE", "SIGNING", "ENCRYPTION", "MASTER", "AUTH", "LICENSE", "SESSION"}
)
# A trailing word that describes the secret (its length, type, location…) rather than
# holding it: PASSWORD_MIN_LENGTH=8, TOKEN_TYPES=[…], AUTH_URL=https://…
_META = """
    LENGTH LEN MIN MAX SIZE COUNT LIMIT NUM NUMBER BUDGET TTL TIMEOUT EXPIRY EXPIRES EXPIRE
    EXPIRATION LIFETIME AGE TYPE TYPES KIND FORMAT ALG ALGORITHM ALGO ROUNDS COST FILE FILES
    PATH DIR DIRECTORY ENV VAR VARS NAME NAMES FIELD FIELDS HEADER HEADERS URL URI URLS
    ENDPOINT HOST PORT DOMAIN ISSUER AUDIENCE CALLBACK REDIRECT SCOPE SCOPES REGION USER
    USERNAME EMAIL LOGIN ID IDS ENABLED DISABLED ENABLE DISABLE REQUIRED OPTIONAL POLICY MODE
    METHOD PROVIDER STRATEGY PREFIX SUFFIX REGEX PATTERN VERSION STORE BACKEND CLASS HELP LABEL
    PROMPT PLACEHOLDER HINT ERROR MESSAGE MSG STATUS VALID CHECK STDIN SOCK SOCKET SET LAST CHANGED UPDATED
    """
_META_WORDS = frozenset(_META.split())
_SHELL_VARS = frozenset({"PWD", "OLDPWD"})
_WS_RE = re.compile(r"\s")
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_strength(name: str) -> int:
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
    return name_strength(name) > 0


# --- value classification ------------------------------------------------------------

_PLACEHOLDER_RE = re.compile(
    r"""(?ix)
    x+ | \*+ | \.{3,} | … | -+ | _+ | \#+ | <.* | \[[^\]]*\] | \(\w*\)
    | .*(?:x{5,}|\*{3,}|\.\.\.|…).*   # ghp_xxxxxxxx, sk-***abcd, sk-...: a masked or docs value
    | \$.* | \{\{.*\}\} | \{[\w.\[\]'"]*\} | %\(\w+\)s | %s
    | (?:your|my|insert|enter|replace|example)[-_\s.].* | .*[-_]here
    | changeme | change[-_]me | null | none | nil | undefined | true | false | yes | no | on
    | off | todo | tbd | redacted | example | string | str | password | passwd | pass | secret
    | token | key | api[-_]?key | dummy | test | placeholder | required | optional | default
    | (?-i:[A-Z][A-Z0-9_]*_[A-Z0-9_]*)  # YOUR_API_KEY, DB_PASSWORD: a name, not a value
    | (?-i:[A-Z]+)                 # IDENT, NUMBER: an enum/constant name
    | [0-9]{1,5}                   # short integers are settings (lengths, ports, counts)
    """
)


# A token of the right shape that is a documentation example or a masked value. A run of x is
# one case ("xxxxx", "XXXXX"): a random signature may hold "xxXxx".
DOC_EXAMPLE_RE = re.compile(
    r"(?i)(?-i:x{5,}|X{5,})|\*{4,}|\.\.\.|…|example|your[-_]?(?:api[-_]?)?(?:key|token)"
)
# The same for a shape whose value may hold dots (an Azure AD client secret): "..." can be
# three of its random characters, so only the other marks count.
DOC_EXAMPLE_DOTTED_RE = re.compile(
    r"(?i)(?-i:x{5,}|X{5,})|\*{4,}|example|your[-_]?(?:api[-_]?)?(?:key|token)"
)


def is_placeholder(value: str) -> bool:
    return (
        not value.strip()
        or MARKER_RE.search(value) is not None
        or _PLACEHOLDER_RE.fullmatch(value) is not None
        or "${" in value
        or "{{" in value
    )


def looks_credential(value: str) -> bool:
    """For weak names: 8+ chars, no spaces, and a digit or a symbol."""
    return (
        len(value) >= 8
        and _WS_RE.search(value) is None
        and any(c.isdigit() or not c.isalpha() for c in value)
    )


def acceptable_value(value: str, strength: int) -> bool:
    if strength == 0 or is_placeholder(value):
        return False
    if _WS_RE.search(value) is not None:  # prose, e.g. help="API token for GitHub"
        return False
    return strength == 2 or looks_credential(value)


def tokenish(value: str, min_len: int) -> bool:
    return (
        len(value) >= min_len
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not is_placeholder(value)
    )


# Unquoted values (YAML `password: x`, INI `password = x`, prose "my password is x") are
# usually code or words; only credential-looking values count, and code shapes never do.
_CODE_RE = re.compile(
    r"""(?x)
    .*[()\[\]{}<>|].*      # a call, an index, a generic, a template, a pipe or `||`
    | .*::.* | :.*         # a Rust/C++ path: anchor_spl::token
    | [A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+[!?]*   # attributes: self.pw, cfg?.key!
    | [\d/.:\-]+           # a date, a time, a number: 11/12/2023
    | \d+:.*               # grep output: file.ts:265:code
    | [a-z_][a-z0-9_]*_[a-z0-9_]*       # a snake_case name: hash_pw1, token_value
    | [./~].*              # a path: ./secret.txt, /run/secrets/db
    | -.*                  # a flag: --password-stdin, -
    | \d+(?:\.\d+)*        # a number or version
    """
)


def unquoted_value(value: str, trim: str = ".,;)") -> str:
    """The credential part of an unquoted value: up to a `;`/`&` separator, minus the
    punctuation that ends a sentence or a list ("my token is abc123.")."""
    for sep in (";", "&"):
        value = value.split(sep, 1)[0]
    return value.rstrip(trim)


def unquoted_credential(value: str) -> bool:
    """A strong-named unquoted value that looks like a credential rather than code or prose:
    6+ chars, a digit or a symbol, not a placeholder, not a code shape."""
    return (
        len(value) >= 6
        and any(not c.isalpha() for c in value)
        and _WS_RE.search(value) is None
        and not is_placeholder(value)
        and _CODE_RE.fullmatch(value) is None
    )
