"""Secrets generated at test time: random bodies in each provider's documented shape, each set
in a line of the kind people paste (a prompt, a shell command, a config file, prose).

Nothing here is a real credential, and nothing is taken from the redactor's own examples: each
call draws fresh bodies. ``corpus(seed, carriers)`` gives (kind, secret, line) triples; the
held-out corpus uses another seed and other carrier lines (``HELD_OUT``).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UP = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"


class Gen:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        """Random string with at least one digit and one letter (as real keys have)."""
        while True:
            out = "".join(self.rnd.choice(alphabet) for _ in range(n))
            letters = any(c.isalpha() for c in out) or not any(c.isalpha() for c in alphabet)
            if any(c.isdigit() for c in out) and letters:
                return out

    def b64url(self, obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    def pw(self) -> str:
        words = ["Tiger", "maple", "Orbit", "quartz", "Nimbus", "cobalt"]
        return self.rnd.choice(words) + self.s(4, string.digits) + self.rnd.choice("!#%*+")


# kind -> (secret body generator, shape of the whole token); lines put the token in context.
Shape = Callable[[Gen], str]
SHAPES: dict[str, Shape] = {
    "anthropic": lambda g: "sk-ant-api03-" + g.s(93, URLSAFE) + "AA",
    "openai": lambda g: "sk-proj-" + g.s(48, URLSAFE),
    "openrouter": lambda g: "sk-or-v1-" + g.s(64, HEX),
    "aws-key-id": lambda g: "AKIA" + g.s(16, UP),
    "aws-key-id-letters": lambda g: (
        "ASIA" + "".join(g.rnd.choice("QWERTYUPLKJHGFDSZXCVBNM") for _ in range(16))
    ),
    "github-pat": lambda g: "ghp_" + g.s(36),
    "github-fine": lambda g: "github_pat_" + g.s(22) + "_" + g.s(59),
    "gitlab": lambda g: "glpat-" + g.s(20, URLSAFE),
    "slack-bot": lambda g: f"xoxb-{g.s(11, string.digits)}-{g.s(12, string.digits)}-{g.s(24)}",
    "stripe": lambda g: "sk_live_" + g.s(24),
    "stripe-restricted": lambda g: "rk_live_" + g.s(24),
    "google-api": lambda g: "AIza" + g.s(35, URLSAFE),
    "google-oauth-secret": lambda g: "GOCSPX-" + g.s(28, URLSAFE),
    "npm": lambda g: "npm_" + g.s(36),
    "pypi": lambda g: "pypi-AgEIcHlwaS5vcmc" + g.s(60, URLSAFE),
    "huggingface": lambda g: "hf_" + g.s(34),
    "sendgrid": lambda g: "SG." + g.s(22, URLSAFE) + "." + g.s(43, URLSAFE),
    "digitalocean": lambda g: "dop_v1_" + g.s(64, HEX),
    "mailgun": lambda g: "key-" + g.s(32, HEX),
    "telegram": lambda g: g.s(10, string.digits) + ":AA" + g.s(33, URLSAFE),
    "discord-bot": lambda g: "M" + g.s(25) + "." + g.s(6) + "." + g.s(38, URLSAFE),
    "twilio": lambda g: "SK" + g.s(32, HEX),
    "shopify": lambda g: "shpat_" + g.s(32, HEX),
    "databricks": lambda g: "dapi" + g.s(32, HEX),
    "doppler": lambda g: "dp.pt." + g.s(43),
    "linear": lambda g: "lin_api_" + g.s(40),
    "postman": lambda g: "PMAK-" + g.s(24, HEX) + "-" + g.s(34, HEX),
    "pulumi": lambda g: "pul-" + g.s(40, HEX),
    "grafana": lambda g: "glsa_" + g.s(32) + "_" + g.s(8, HEX),
    "newrelic": lambda g: "NRAK-" + g.s(27, UP),
    "sentry": lambda g: "sntrys_" + g.s(60),
    "vault": lambda g: "hvs." + g.s(90, URLSAFE),
    "age": lambda g: "AGE-SECRET-KEY-1" + g.s(58, UP),
    "supabase": lambda g: "sbp_" + g.s(40, HEX),
    "groq": lambda g: "gsk_" + g.s(52),
    "replicate": lambda g: "r8_" + g.s(37),
    "tailscale": lambda g: "tskey-auth-" + g.s(12) + "-" + g.s(30),
    "docker-hub": lambda g: "dckr_pat_" + g.s(27, URLSAFE),
    "figma": lambda g: "figd_" + g.s(40, URLSAFE),
    "perplexity": lambda g: "pplx-" + g.s(48),
    "jwt": lambda g: (
        g.b64url({"alg": "RS256", "typ": "JWT"})
        + "."
        + g.b64url({"sub": g.s(12), "exp": g.rnd.randint(1_700_000_000, 1_900_000_000)})
        + "."
        + g.s(86, URLSAFE)
    ),
    "azure-ad": lambda g: g.s(3) + "8Q~" + g.s(34, ALNUM + "_~.-"),
    "private-key": lambda g: (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(g.s(70, ALNUM + "+/") for _ in range(5))
        + "\n-----END OPENSSH PRIVATE KEY-----"
    ),
}

# Secrets that are only secrets by their label: (kind, value maker, line template).
LABELLED: dict[str, tuple[Shape, str]] = {
    "aws-secret": (lambda g: g.s(40, ALNUM + "/+"), "aws_secret_access_key = {v}"),
    "azure-storage": (
        lambda g: g.s(86, ALNUM + "+/") + "==",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={v};EndpointSuffix=core.windows.net",
    ),
    "curl-user": (lambda g: g.pw(), "curl -u deploy:{v} https://ci.example.org/api/jobs"),
    "docker-login": (lambda g: g.pw(), "docker login -u builder -p {v} registry.example.org"),
    "yaml-password": (lambda g: g.pw(), "database:\n  user: app\n  password: {v}\n  port: 5432"),
    "prose-password": (lambda g: g.pw(), "fyi my password is {v} for the staging box"),
    "env-line": (lambda g: g.s(32), "export STRIPE_WEBHOOK_SECRET={v}"),
    "json-field": (lambda g: g.pw() + g.s(6), '{{"client_secret": "{v}", "client_id": "web"}}'),
    "url-password": (lambda g: g.pw(), "psql postgresql://app:{v}@db.internal:5432/app"),
    "bearer": (lambda g: g.s(40, URLSAFE), "curl -H 'Authorization: Bearer {v}' https://api.x.io"),
    "labelled-dot": (lambda g: g.s(24), "The deploy token is {v}."),
    "cli-flag": (lambda g: g.s(30), "gh-release upload --api-key {v} dist/*.whl"),
    "conn-string": (
        lambda g: g.pw(),
        "Server=tcp:sql.example.net;User Id=app;Password={v};Encrypt=True",
    ),
    "mysql": (lambda g: g.pw(), "mysql -u root -p{v} -h 127.0.0.1 shop"),
}

CARRIERS = [
    "here is the key: {t}",
    "export TOKEN_FOR_CI={t}",
    "it failed with {t} in the config",
    'config = {{"key": "{t}"}}',
    "{t}",
]
HELD_OUT = [
    "can you check why `{t}` gets rejected?",
    "- credential: {t}",
    "curl https://api.example.com -H 'X-Api-Key: {t}'",
    "the CI log shows {t} near line 40",
    "settings.py:12: KEY = '{t}'",
]


def corpus(seed: int, carriers: list[str], per_kind: int = 2) -> list[tuple[str, str, str]]:
    """(kind, secret, line) triples: every shape in ``per_kind`` carriers, every labelled kind."""
    g = Gen(seed)
    out: list[tuple[str, str, str]] = []
    for kind, make in SHAPES.items():
        for i in range(per_kind):
            token = make(g)
            line = carriers[(i + len(out)) % len(carriers)].format(t=token)
            out.append((kind, token, line))
    for kind, (make, template) in LABELLED.items():
        for _ in range(per_kind):
            value = make(g)
            out.append((kind, value, template.format(v=value)))
    return out


def fragments(secret: str) -> list[str]:
    """What must not survive: the secret, and for a PEM block each of its body lines."""
    if "PRIVATE KEY" in secret:
        return [ln for ln in secret.splitlines() if "-----" not in ln]
    return [secret]
