"""Token shapes: secrets recognised by their form alone, anywhere in a text.

The rule set covers the provider formats that gitleaks (MIT) and detect-secrets (Apache-2.0)
detect for these shapes, written here from the providers' documented token formats rather than
copied: each rule starts with its provider's literal prefix, so ``re`` finds candidates with a
fast literal search, and every quantifier is bounded or possessive, so no input backtracks.

A rule is ``(kind, priority, pattern, group, check)``: the secret is ``group`` of the match;
``check`` (optional) vetoes a match (a placeholder, an example key). Lower priority wins when
hits overlap. Compiled once, on first use (no work at import time).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from rolling_graph.privacy.redact.names import is_placeholder

_Check = Callable[[re.Match[str]], bool]
Rule = tuple[str, int, re.Pattern[str], int | str, _Check | None]

_TOKEN_CHARS = r"[A-Za-z0-9_\-]"
_B64 = r"[A-Za-z0-9+/]"
_HEX = r"[0-9a-f]"
_END = r"(?![A-Za-z0-9_\-])"  # the token does not run on into a longer word


def _tok(prefix: str, rest: str) -> str:
    """`prefix` must not continue a longer word (`task-ant-…`, `mask-…`, a marker's `]`).

    The boundary is a lookbehind *after* the literal so that `re` keeps its fast
    literal-prefix search instead of trying the pattern at every position.
    """
    return f"{prefix}(?<![A-Za-z0-9_\\-\\]]{prefix}){rest}"


def has_digit(m: re.Match[str]) -> bool:
    return any(c.isdigit() for c in m.group(0))


def _not_example(m: re.Match[str]) -> bool:
    # AWS documents AKIAIOSFODNN7EXAMPLE; docs keys end in EXAMPLE or are runs of one char.
    text = m.group(0)
    return not text.endswith("EXAMPLE") and len(set(text[4:])) > 3


def _mixed(m: re.Match[str]) -> bool:
    """Random bodies mix letters and digits; `hf_transformers_cache_dir` does not."""
    body = m.group("b") if "b" in m.re.groupindex else m.group(0)
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


_WORKFLOW_HOSTS = ("logic.azure.com", "powerplatform.com", "/workflows/")


def _signed_url(m: re.Match[str]) -> bool:
    """An Azure SAS (``sv=`` version), an AWS presigned URL or a Teams / Power Automate
    workflow trigger URL, not any ``sig=`` (YouTube…)."""
    before = m.string[max(0, m.start() - 2000) : m.start()]
    if "X-Amz-" in m.group(0) or "X-Amz-Credential=" in before or "sv=20" in before:
        return True
    url = before[before.rfind("http") :] if "http" in before else ""
    return any(h in url for h in _WORKFLOW_HOSTS)


def _random_body(m: re.Match[str]) -> bool:
    """Upper and lower case letters and a digit, as a random token has (not a name)."""
    body = m.group(0)
    return (
        any(c.isdigit() for c in body)
        and any(c.isupper() for c in body)
        and any(c.islower() for c in body)
    )


def _pem_ok(m: re.Match[str]) -> bool:
    # A block cut off before its END line must at least carry some key material.
    return bool(m.group("end")) or sum(c.isalnum() for c in m.group("trunc") or "") >= 32


def _url_password_ok(m: re.Match[str]) -> bool:
    return not is_placeholder(m.group("v"))


# (kind, prefix, rest-of-token regex, check): simple "literal prefix + body" tokens.
_PREFIXED: list[tuple[str, str, str, _Check | None]] = [
    ("anthropic-key", "sk-ant-", _TOKEN_CHARS + "{20,}+", has_digit),
    (
        "openai-key",
        "sk-",
        "(?!ant-)(?:proj-|svcacct-|admin-|or-v1-)?" + _TOKEN_CHARS + "{20,}+",
        has_digit,
    ),
    # Access key ids only (AKIA long-term, ASIA temporary…); AIDA/AROA ids name a user or role.
    ("aws-access-key-id", "A", "(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}+(?![A-Za-z0-9])", _not_example),
    ("github-token", "gh[pousr]_", "[A-Za-z0-9]{36,255}+", None),
    ("github-token", "github_pat_", "[A-Za-z0-9_]{22,255}+", None),
    (
        "gitlab-token",
        "gl",
        r"(?:pat|dt|ptt|rt|cbt|oas|ft|imt|agent|soat)-[A-Za-z0-9_\-]{20,}+",
        has_digit,
    ),
    ("slack-token", "xox[abposre]-", r"[A-Za-z0-9\-]{10,}+", has_digit),
    ("slack-token", "xapp-", r"[0-9]-[A-Za-z0-9\-]{10,}+", None),
    ("stripe-key", "sk_", "(?:live|test)_[A-Za-z0-9]{16,}+", None),
    ("stripe-key", "rk_", "(?:live|test)_[A-Za-z0-9]{16,}+", None),
    ("stripe-key", "whsec_", "[A-Za-z0-9]{20,}+", None),
    ("google-api-key", "AIza", r"[A-Za-z0-9_\-]{35}+" + _END, None),
    ("google-oauth-secret", "GOCSPX-", _TOKEN_CHARS + "{20,}+", None),
    ("google-oauth-token", r"ya29\.", _TOKEN_CHARS + "{20,}+", None),
    ("npm-token", "npm_", "[A-Za-z0-9]{36}+" + _END, has_digit),
    ("pypi-token", "pypi-", r"AgE[A-Za-z0-9_\-]{50,}+", None),
    ("huggingface-token", "hf_", "(?P<b>[A-Za-z0-9]{30,40}+)" + _END, _mixed),
    ("sendgrid-key", r"SG\.", r"[A-Za-z0-9_\-]{22}+\.[A-Za-z0-9_\-]{43}+" + _END, None),
    ("digitalocean-token", "do[opr]_v1_", _HEX + "{64}+", None),
    ("mailgun-key", "key-", "(?P<b>[0-9a-zA-Z]{32}+)" + _END, _mixed),
    ("twilio-key", "SK", "[0-9a-f]{32}+" + _END, has_digit),
    ("shopify-token", "shp", "(?:at|ss|ca|pa)_[a-fA-F0-9]{32}+", None),
    ("atlassian-token", "ATATT3", r"[A-Za-z0-9_\-=]{50,}+", None),
    ("databricks-token", "dapi", _HEX + "{32}+(?:-[0-9])?" + _END, has_digit),
    ("doppler-token", r"dp\.", r"(?:pt|st|ct|scim|audit)\.[A-Za-z0-9]{40,}+", None),
    ("linear-key", "lin_", "(?:api|oauth)_[A-Za-z0-9]{40}+", None),
    ("postman-key", "PMAK-", "[a-f0-9]{24}+-[a-f0-9]{34}+", None),
    ("pulumi-token", "pul-", _HEX + "{40}+", None),
    ("grafana-token", "gl", r"(?:c|sa)_[A-Za-z0-9_+/=]{32,}+", has_digit),
    ("newrelic-key", "NR", "(?:AK|JS|II)-[A-Za-z0-9]{27}+", None),
    ("sentry-token", "sntry[su]_", r"[A-Za-z0-9_+/=]{40,}+", None),
    ("square-token", "sq0", r"(?:atp|csp)-[A-Za-z0-9_\-]{22,}+", None),
    ("square-token", "EAAA", r"[A-Za-z0-9_\-+=]{60}+", has_digit),
    ("heroku-key", "HRKU-", r"[A-Za-z0-9_\-]{30,}+", None),
    ("vault-token", r"hv[sb]\.", r"[A-Za-z0-9_\-]{24,}+", has_digit),
    ("age-secret-key", "AGE-SECRET-KEY-1", "[0-9A-Z]{58}+", None),
    ("flyio-token", "fo1_", r"[A-Za-z0-9_\-]{43}+", None),
    ("supabase-token", "sb", r"(?:p|_secret)_[A-Za-z0-9_\-]{32,}+", has_digit),
    ("notion-token", "secret_", "[A-Za-z0-9]{40,}+", has_digit),
    ("notion-token", "ntn_", "[A-Za-z0-9]{40,}+", has_digit),
    ("airtable-token", "pat", "[A-Za-z0-9]{14}+\\.[a-f0-9]{64}+", None),
    ("alibaba-key", "LTAI", "[A-Za-z0-9]{20}+" + _END, has_digit),
    ("dropbox-token", r"sl\.", r"[A-Za-z0-9_\-=]{130,}+", None),
    ("facebook-token", "EAA[CG]", "[A-Za-z0-9]{80,}+", None),
    ("planetscale-token", "pscale_", r"(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,}+", None),
    ("replicate-token", "r8_", "[A-Za-z0-9]{37}+" + _END, has_digit),
    ("groq-key", "gsk_", "[A-Za-z0-9]{52}+", None),
    ("xai-key", "xai-", "[A-Za-z0-9]{80}+", None),
    ("perplexity-key", "pplx-", "[A-Za-z0-9]{48}+", None),
    ("tailscale-key", "tskey-", r"(?:api|auth|client|scim|webhook)-[A-Za-z0-9_\-]{20,}+", None),
    # Literal first (fast search), the id before it captured by a lookbehind ("pre").
    (
        "terraform-token",
        "",
        r"\.atlasv1\.(?<=(?P<pre>[A-Za-z0-9]{14})\.atlasv1\.)[A-Za-z0-9_\-=]{60,}+",
        None,
    ),
    ("clojars-token", "CLOJARS_", "[a-z0-9]{60}+", None),
    ("docker-token", "dckr_", r"(?:pat|oat)_[A-Za-z0-9_\-]{20,}+", None),
    ("buildkite-token", "bkua_", "[a-f0-9]{40}+", None),
    ("contentful-token", "CFPAT-", r"[A-Za-z0-9_\-]{43}+", None),
    ("mapbox-token", r"[ps]k\.eyJ", r"[A-Za-z0-9_\-]{20,}+\.[A-Za-z0-9_\-]{20,}+", None),
    ("figma-token", "figd_", r"[A-Za-z0-9_\-]{40}+", None),
    ("sourcegraph-token", "sgp_", r"(?:[a-f0-9]{16}_)?[a-f0-9]{40}+", None),
    (
        "azure-ad-secret",
        "",
        r"Q~(?<=(?P<pre>[A-Za-z0-9_~.]{3}[0-9])Q~)[A-Za-z0-9_~.\-]{31,34}+",
        None,
    ),
]


_ALT_RE = re.compile(r"\(\?:([^()]*)\)")


def _expand(prefix: str) -> list[str]:
    """`gl(?:pat|dt)-` → [`glpat-`, `gldt-`]: a look-behind needs a fixed-width prefix."""
    m = _ALT_RE.search(prefix)
    if m is None:
        return [prefix]
    head, tail = prefix[: m.start()], prefix[m.end() :]
    return [x for alt in m.group(1).split("|") for x in _expand(head + alt + tail)]


def _prefixed_rules() -> list[Rule]:
    out: list[Rule] = []
    for kind, prefix, rest, check in _PREFIXED:
        group: int | str = "wide" if "(?P<pre>" in rest else 0
        for p in _expand(prefix) if prefix else [""]:
            pattern = _tok(p, rest) if p else rest
            out.append((kind, 0, re.compile(pattern), group, check))
    return out


def _special_rules() -> list[Rule]:
    return [
        (
            "private-key",
            0,
            re.compile(
                r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
                # Body: anything up to the next "-----"; possessive, so each BEGIN costs at
                # most one pass to the next dash run.
                r"(?:(?:[^-]|-(?!----))*+(?P<end>-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----)"
                r"|(?P<trunc>[A-Za-z0-9+/=\s\\]*+))"
            ),
            0,
            _pem_ok,
        ),
        (
            "slack-webhook",
            0,
            # Keep the host (useful context), drop the path, which is the secret.
            re.compile(
                r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/\-]{8,}+)"
            ),
            "v",
            None,
        ),
        (
            "discord-webhook",
            0,
            re.compile(
                r"discord(?:app)?\.com/api/webhooks/(?P<v>[0-9]{5,30}+/[A-Za-z0-9_\-]{20,}+)"
            ),
            "v",
            None,
        ),
        (
            "jwt",
            0,
            re.compile(
                _tok(
                    "eyJ",
                    _TOKEN_CHARS + r"{10,}+\." + _TOKEN_CHARS + r"{10,}+\." + _TOKEN_CHARS + "*+",
                )
            ),
            0,
            None,
        ),
        (
            # <bot id>:<35 chars>, the shape BotFather hands out.
            "telegram-bot-token",
            0,
            re.compile(r":AA(?<=[0-9]{8}:AA)[A-Za-z0-9_\-]{33}+" + _END),
            0,
            None,
        ),
        (
            "mailchimp-key",
            0,
            re.compile(r"-us(?<=(?<![A-Za-z0-9])(?P<pre>[0-9a-f]{32})-us)[0-9]{1,2}+(?![0-9])"),
            "wide",
            None,
        ),
        (
            "url-password",
            1,
            # A raw password in a DSN may hold "#" or "?" (not "/": that would be a path).
            re.compile(r"://(?P<user>[^\s:/@?#\[\]\"'<>]{0,256}+):(?P<v>[^\s/@\"'<>]{1,256}+)@"),
            "v",
            _url_password_ok,
        ),
    ]


def _chat_rules() -> list[Rule]:
    """Chat-platform bot tokens and webhooks beyond the prefixed ones (Slack ``xox?-``,
    Discord's three-part bot token and webhook URL are in the other lists)."""
    return [
        (
            # Any <bot id>:<35 chars>: not every token's secret starts with "AA". The id is
            # public; the part after the colon is the secret, and must look random.
            "telegram-bot-token",
            0,
            re.compile(r":(?<=[0-9]{8}:)[A-Za-z0-9_\-]{35}+" + _END),
            0,
            _random_body,
        ),
        (
            # Microsoft Teams incoming webhooks (webhook.office.com/webhookb2/…, the older
            # outlook.office.com/webhook/…): the path is the secret.
            "teams-webhook",
            0,
            re.compile(r"office\.com/webhook(?:b2)?/(?P<v>[A-Za-z0-9@/_\-.]{20,600}+)"),
            "v",
            None,
        ),
    ]


def _split_rules() -> list[Rule]:
    """Shapes whose natural regex starts with a class or an alternation, written as several
    literal-first patterns (each found by a fast literal search)."""
    out: list[Rule] = []
    for n in (23, 24, 25, 26):  # base64(user id) . timestamp . HMAC; the id part varies
        rx = re.compile(
            r"\.(?<=(?<![A-Za-z0-9_\-.])(?P<pre>[MNO][A-Za-z0-9_\-]{"
            + str(n)
            + r"})\.)"
            + r"[A-Za-z0-9_\-]{6}+\.[A-Za-z0-9_\-]{27,40}+"
            + _END
        )
        out.append(("discord-bot-token", 0, rx, "wide", has_digit))
    for label in ("AccountKey", "SharedAccessKey", "accountkey", "sharedaccesskey"):
        rx = re.compile(label + rf"\s*+=\s*+(?P<v>{_B64}{{40,}}+={{0,2}})")
        out.append(("azure-storage-key", 0, rx, "v", None))
    # Azure SAS and other signed URLs: the signature is the credential.
    for label in ("sig", "Signature"):
        rx = re.compile(label + rf"=(?<=[?&\-]{label}=)(?P<v>[A-Za-z0-9%+/=\-_]{{20,}}+)")
        out.append(("url-signature", 1, rx, "v", _signed_url))
    return out


@functools.cache
def shape_rules() -> list[Rule]:
    """Every token-shape rule, compiled on first use."""
    return _special_rules() + _chat_rules() + _split_rules() + _prefixed_rules()


def kinds() -> list[str]:
    """The kinds the shape rules can report (for tests and docs)."""
    return sorted({r[0] for r in shape_rules()})
