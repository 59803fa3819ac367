"""Issue 30's shapes, generated at test time: passwords stated in prose in the wordings people
use (abbreviated labels, other words, the value first, values with spaces or symbols, a login
given mid-sentence) and chat-platform bot tokens and webhook URLs (Discord, Slack, Telegram,
Microsoft Teams). Every value is drawn fresh from a seeded generator: none is a real credential.

``trust_corpus(seed)`` gives (kind, secret, line) triples, every wording and shape at least twice.
"""

from __future__ import annotations

import string
from collections.abc import Callable

from tests.security.secret_corpus import ALNUM, HEX, URLSAFE, Gen

SYMBOLS = "!#%*+@&?~^"
WORDS = ["Tiger", "maple", "Orbit", "quartz", "Nimbus", "cobalt", "lantern", "Falcon", "ember"]


def password(g: Gen) -> str:
    """Letters with digits or symbols, in any order (``m4ple#Orbit``, ``Falcon&ember7?``)."""
    parts = [g.rnd.choice(WORDS), g.s(g.rnd.randint(2, 5), string.digits), g.rnd.choice(SYMBOLS)]
    g.rnd.shuffle(parts)
    return "".join(parts) + g.rnd.choice(["", g.rnd.choice(WORDS).lower()])


def symbol_password(g: Gen) -> str:
    """Symbols and letters, no digit: ``q@ntern#Falcon!``."""
    word = g.rnd.choice(WORDS).lower()
    return word[:2] + g.rnd.choice("@#%&") + word[2:] + g.rnd.choice("!?*") + g.rnd.choice(WORDS)


def passphrase(g: Gen) -> str:
    """Words with spaces and a digit or symbol: ``cobalt Orbit 47 lantern!``."""
    words = g.rnd.sample(WORDS, 3)
    words.insert(g.rnd.randint(0, 3), g.s(2, string.digits))
    return " ".join(words) + g.rnd.choice(SYMBOLS)


def guid(g: Gen) -> str:
    return "-".join(g.s(n, HEX) for n in (8, 4, 4, 4, 12))


# kind -> (value maker, line templates: each is used in turn)
Maker = Callable[[Gen], str]
PROSE: dict[str, tuple[Maker, list[str]]] = {
    "pw-label": (
        password,
        ["staging pw: {v}", "fyi pw is {v} for the box", "my pw = {v}, don't share"],
    ),
    "pwd-label": (password, ["db pwd {v} (rotate monthly)", "pwd: {v}"]),
    "passwd-label": (password, ["passwd for root is {v}", "the passwd: {v}"]),
    "pass-label": (password, ["user: deploy pass: {v}", "admin / pass {v} on the old server"]),
    "passphrase": (
        passphrase,
        ['the passphrase is "{v}"', "passphrase: {v}", "ssh key passphrase is '{v}'"],
    ),
    "login-is": (password, ["login is admin / {v}", "the login is deploy:{v}"]),
    "value-first": (
        password,
        ["{v} is the password for the staging db", "use {v} — that's the admin password"],
    ),
    "db-password": (
        password,
        ["the db password is {v} btw", "the postgres password for prod is {v}"],
    ),
    "mid-sentence": (
        password,
        [
            "log in as admin with {v} then open the settings page",
            "sign in as deploy using {v} and restart the job",
            "ssh in as root with password {v} and check the disk",
        ],
    ),
    "symbols-only": (symbol_password, ["password is {v}", "the wifi password: {v}"]),
    "spaces-quoted": (passphrase, ['my password is "{v}"', "password: '{v}'"]),
}

CHAT: dict[str, Maker] = {
    "discord-bot": lambda g: g.rnd.choice("MNO") + g.s(25) + "." + g.s(6) + "." + g.s(38, URLSAFE),
    "discord-webhook": lambda g: (
        f"https://discord.com/api/webhooks/{g.s(18, string.digits)}/{g.s(68, URLSAFE)}"
    ),
    "slack-bot": lambda g: f"xoxb-{g.s(12, string.digits)}-{g.s(13, string.digits)}-{g.s(24)}",
    "slack-user": lambda g: (
        f"xoxp-{g.s(12, string.digits)}-{g.s(12, string.digits)}-{g.s(13, string.digits)}-"
        + g.s(32, HEX)
    ),
    "slack-app": lambda g: (
        f"xapp-1-A{g.s(10, string.ascii_uppercase + string.digits)}-"
        + f"{g.s(13, string.digits)}-{g.s(64, HEX)}"
    ),
    "slack-webhook": lambda g: (
        f"https://hooks.slack.com/services/T{g.s(10, string.ascii_uppercase + string.digits)}/"
        f"B{g.s(10, string.ascii_uppercase + string.digits)}/{g.s(24)}"
    ),
    # <bot id>:<35 chars>; not every token's secret part starts with "AA".
    "telegram-bot": lambda g: f"{g.s(10, string.digits)}:{g.s(35, URLSAFE)}",
    "teams-webhook": lambda g: (
        f"https://contoso.webhook.office.com/webhookb2/{guid(g)}@{guid(g)}/IncomingWebhook/"
        f"{g.s(32, HEX)}/{guid(g)}/V2{g.s(40, ALNUM)}"
    ),
    "teams-workflow": lambda g: (
        f"https://prod-{g.s(2, string.digits)}.westus.logic.azure.com:443/workflows/"
        f"{g.s(32, HEX)}/triggers/manual/paths/invoke?api-version=2016-06-01"
        f"&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={g.s(43, URLSAFE)}"
    ),
}
CHAT_LINES = [
    "the bot uses {t} to post",
    "NOTIFY_URL={t}",
    'webhook = "{t}"',
    'curl -X POST {t} -d \'{{"text": "hi"}}\'',
]


def secret_part(kind: str, value: str) -> str:
    """What must not survive of a webhook URL: its path (the host may stay) or its signature."""
    if kind == "teams-workflow":
        return value.rsplit("sig=", 1)[1]
    if kind == "teams-webhook":
        return value.split("/webhookb2/", 1)[1]
    if kind.endswith("webhook"):
        return value.split("/webhooks/" if "discord" in kind else "/services/", 1)[1]
    return value


def trust_corpus(seed: int, per_kind: int = 2) -> list[tuple[str, str, str]]:
    """(kind, secret, line): each prose wording once per template (and at least ``per_kind``
    times), each chat shape ``per_kind`` times in rotating lines."""
    g = Gen(seed)
    out: list[tuple[str, str, str]] = []
    for kind, (make, templates) in PROSE.items():
        for i in range(max(per_kind, len(templates))):
            value = make(g)
            out.append((kind, value, templates[i % len(templates)].format(v=value)))
    for n, (kind, make) in enumerate(CHAT.items()):
        for i in range(per_kind):
            value = make(g)
            line = CHAT_LINES[(n + i) % len(CHAT_LINES)].format(t=value)
            out.append((kind, secret_part(kind, value), line))
    return out
