"""The scanner's faster context rules find exactly what the plain ones did.

Kept here, as they were before (9b33333), the plain forms of what was made faster: searching
_ASSIGN_RE from every position of a window, the auth, bearer and prose-label rules searched
whenever their literal is anywhere, one look per spelling of a prose label. ``_old_scan``
assembles them with the unchanged rules; the redactor must give the same findings on generated
texts (assignments of every shape, JSON, env lines, URLs, prose, near misses, our own markers,
the characters lower-casing treats oddly) and on every text of the shared transcripts.
"""

from __future__ import annotations

import json
import random
import string
from collections import Counter
from pathlib import Path

import pytest

from rolling_graph.privacy.redact import prose, secrets
from rolling_graph.privacy.redact.secrets import Finding

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "redaction"
SECRET_LINES = [
    json.loads(x)["text"] for x in (FIXTURES / "secrets.jsonl").read_text().splitlines()
]
CLEAN_LINES = (FIXTURES / "clean.txt").read_text().splitlines()


# --- the plain forms ---------------------------------------------------------------------------


def _old_prose_hits(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    rules, low, out = prose._rules(), prose._folded(text[lo:hi]), []
    for label in prose.LABELS:
        if label in low:
            for rx in rules[label]:
                for m in rx.finditer(text, lo, hi):
                    span = prose._labelled(label, m, text, hi)
                    if span is not None:
                        out.append(span)
    if any(label in low for label in prose._TAIL_LABELS):
        for m in rules["tail"][0].finditer(text, lo, hi):
            b = prose._BEFORE.search(text, max(lo, m.start() - 200), m.start())
            if b is not None and prose.credential(value := prose._trim(b.group("v"))):
                out.append((b.start("v"), b.start("v") + len(value)))
    for key, words in (("login", prose._LOGIN_LEADS), ("pair", prose._PAIR_LABELS)):
        if any(word in low for word in words):
            for m in rules[key][0].finditer(text, lo, hi):
                if prose.credential(value := prose._trim(m.group("v"))):
                    out.append((m.start("v"), m.start("v") + len(value)))
    return out


def _old_windows(text: str) -> list[tuple[int, int]]:
    low, n, out, pos = text.lower(), len(text), [], 0
    if len(low) != n:
        return [(0, n)]
    while (m := secrets._KEYWORD_RE.search(low, pos)) is not None:
        pos = m.start() + secrets._WINDOW_STEP
        lo, hi = max(0, m.start() - secrets._WINDOW_BACK), min(n, pos + secrets._WINDOW_FWD)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _old_labels(text: str, lo: int, hi: int, hits: list[tuple[int, int, int, str]]) -> None:
    for rx, lit in secrets._context_needles():
        if lit and text.find(lit, lo, hi) < 0:
            continue
        for m in rx.finditer(text, lo, hi):
            flag = rx is secrets._FLAG_RE
            if flag and not secrets._secret_flag(m.group("flag")):
                continue
            value = secrets.unquoted_value(m.group("v"), ";" if flag else ".,;:!?)*_`")
            if not flag and not any(c.isdigit() for c in value):
                continue
            if secrets.unquoted_credential(value):
                kind, prio = ("cli-secret", 3) if flag else ("prose-secret", 4)
                hits.append((m.start("v"), m.start("v") + len(value), prio, kind))


def _old_assignments(text: str, lo: int, hi: int, hits: list[tuple[int, int, int, str]]) -> None:
    pos = lo
    while (m := secrets._ASSIGN_RE.search(text, pos, hi)) is not None:
        start = m.start()
        if m.group("name") == "REDACTED" and (mk := secrets._MARKER_RE.match(text, start - 1)):
            pos = mk.end()
            continue
        found = secrets._classify_assignment(m, text)
        if found is None:
            pos = m.start("v")
            continue
        end = m.end("v")
        if found[0] == "secret-assignment" and not m.group("q"):
            end = m.start("v") + len(secrets.unquoted_value(m.group("v")))
        hits.append((m.start("v"), end, found[1], found[0]))
        pos = end if end < m.end("v") else m.end()


def _old_context(text: str, lo: int, hi: int, hits: list[tuple[int, int, int, str]]) -> None:
    for m in secrets._AUTH_HEADER_RE.finditer(text, lo, hi):
        if secrets._tokenish(m.group("v"), 8):
            kind = "basic-auth" if m.group("scheme").lower() == "basic" else "bearer-token"
            hits.append((m.start("v"), m.end("v"), 1, kind))
    for m in secrets._BARE_BEARER_RE.finditer(text, lo, hi):
        if secrets._tokenish(m.group("v"), 20):
            hits.append((m.start("v"), m.end("v"), 1, "bearer-token"))
    _old_labels(text, lo, hi, hits)
    hits.extend((s, e, prose.PRIORITY, prose.KIND) for s, e in _old_prose_hits(text, lo, hi))
    _old_assignments(text, lo, hi, hits)


def _old_scan(text: str) -> list[Finding]:
    hits: list[tuple[int, int, int, str]] = []
    for (kind, prio, rx, group, check), lit in secrets._shape_needles():
        if lit not in text:
            continue
        for m in rx.finditer(text):
            doc = (
                secrets._DOC_DOTTED_RE if kind in secrets._DOTTED_KINDS else secrets._DOC_EXAMPLE_RE
            )
            if (check is None or check(m)) and (
                kind == "private-key" or doc.search(m.group(0)) is None
            ):
                start, end = (m.start("pre"), m.end()) if group == "wide" else m.span(group)
                if start < end:
                    hits.append((start, end, prio, kind))
    for kind, rx in secrets._CLI_RULES:
        for m in rx.finditer(text):
            value = secrets.unquoted_value(m.group("v"))
            if not secrets._is_placeholder(value):
                hits.append((m.start("v"), m.start("v") + len(value), 1, kind))
    for lo, hi in _old_windows(text):
        _old_context(text, lo, hi, hits)
    if not hits:
        return []
    hits.sort()
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


# --- generated texts ---------------------------------------------------------------------------

_KEYWORDS = (  # noqa: SIM905 - a word list reads better as one string
    "password Password PASSWORD passwd pwd pw secret SECRET token Token api_key apiKey API_KEY "
    "key auth AUTH cred creds private dsn bearer pin PIN login log_in signin ssh passphrase "
    "client_secret access_token REDACTED redacted Redacted x-api-key"
).split() + ["\u212aey", "\u017fecret", "p\u0130n", "S\u03a3CRET", "pa\u0131ss"]
_PLAIN = "user host port name value foo x id author monkey spin typing mapping data cfg".split()  # noqa: SIM905
_AUTH_SEPS = [": ", ":", "=", " : ", '": "', '\\": \\"']  # header, JSON, JSON in a string
_ODD = ["\u0130", "\u212a", "\u017f", "\u0131", "\u03a3", "ß", "ﬁ", "é"]


class _Gen:
    """Texts made of the shapes the context rules read, and their near misses."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        r = self.r
        self.fragments = [
            self.assignment,
            self.assignment,
            self.assignment,
            lambda: "export " + self.assignment(),
            lambda: json.dumps({self.name(): self.value() for _ in range(r.randint(1, 4))}),
            lambda: json.dumps(json.dumps({self.name(): self.value()})),
            lambda: f"https://{self.name()}:{self.value()}@h.io/p?{self.name()}={self.value()}",
            lambda: (
                f"{r.choice(['Authorization', 'AUTHORIZATION', 'authorization'])}"
                f"{r.choice(_AUTH_SEPS)}"
                f"{r.choice(['Bearer', 'Basic', 'token'])}{self.space()}{self.value()}"
            ),
            lambda: f"{r.choice(['bearer', 'Bearer', 'BEARER'])}{self.space()}{self.value()}",
            # our own marker, as a name would stand before an operator
            lambda: f"[REDACTED:{r.choice(['env-secret', 'api-key'])}]{self.op()}{self.value()}",
            lambda: f"the {r.choice(_KEYWORDS)} {r.choice(['is', 'was'])} {self.value()}",
            lambda: f"{self.value()} is the {r.choice(['password', 'pw'])} for staging",
            lambda: f"log in as admin with {self.value()} then",
            lambda: f"creds: deploy:{self.value()}",
            lambda: f"--{r.choice(['api-key', 'password', 'list-secret-keys'])}={self.value()}",
            lambda: f"curl -u {self.name()}:{self.value()} https://x",
            lambda: r.choice(SECRET_LINES),
            lambda: r.choice(CLEAN_LINES),
            lambda: " ".join(r.choice(_PLAIN + _KEYWORDS) for _ in range(r.randint(1, 30))),
            lambda: "".join(r.choice(string.printable) for _ in range(r.randint(1, 60))),
        ]

    def name(self) -> str:
        r = self.r
        n = r.choice(["_", ".", "-", ""]).join(
            r.choice(_KEYWORDS + _PLAIN) for _ in range(r.randint(1, 3))
        )
        roll = r.random()
        if roll < 0.1:  # around the 101 characters a name may have
            pad = "".join(r.choice(string.ascii_letters + "_.-") for _ in range(r.randint(85, 110)))
            cut = r.randint(0, len(pad))
            n = r.choice(string.ascii_letters) + pad[:cut] + r.choice(_KEYWORDS) + pad[cut:]
        elif roll < 0.15:  # what may not stand before a name
            n = r.choice(list("$].-9@[({\"'`\\")) + n
        elif roll < 0.2:
            n = r.choice(_ODD) + n
        return n

    def op(self) -> str:
        return self.r.choice(["=", ":", ":=", "=>", " = ", ": ", "==", "\t=\t", "=\n", "]="])

    def space(self) -> str:
        return self.r.choice([" ", " ", "\t", "\n", "  ", ""])

    def value(self) -> str:
        r, roll = self.r, self.r.random()
        if roll < 0.3:
            alphabet = string.ascii_letters + string.digits + "!@#$%^&*-_./+="
            return "".join(r.choice(alphabet) for _ in range(r.randint(1, 40)))
        if roll < 0.4:
            return r.choice(["", "xxx", "***", "<token>", "${V}", "changeme", "12345", "input()"])
        if roll < 0.5:
            return f"[REDACTED:{r.choice(['env-secret', 'bearer-token', 'api-key'])}]"
        if roll < 0.7:
            return "".join(r.choice(string.ascii_letters + string.digits) for _ in range(40))
        return r.choice(SECRET_LINES)[: r.randint(5, 120)]

    def assignment(self) -> str:
        r = self.r
        op = self.op()
        quote = r.choice(["", "", '"', "'", '\\"', "`"])
        after = r.choice(["", "", '"', "'", '\\"', "]", '"]'])
        before = after if after in ('"', "'") else ""
        return f"{before}{self.name()}{after}{op}{quote}{self.value()}{quote}"

    def text(self) -> str:
        r, parts = self.r, []
        long = r.random() < 0.05
        for _ in range(r.randint(20, 120) if long else r.randint(1, 6)):
            parts.append(r.choice(self.fragments)())
            parts.append(r.choice([" ", "\n", "", ", ", "; ", "&", "?", "\t", " | ", "\\n"]))
            if long and r.random() < 0.1:
                parts.append("lorem ipsum dolor sit amet " * r.randint(20, 200))  # far apart
        return "".join(parts)


def _same(texts: list[str]) -> Counter[str]:
    """Asserts the findings are the same on every text; returns the kinds found."""
    kinds: Counter[str] = Counter()
    for text in texts:
        want = _old_scan(text)
        assert secrets._scan_text(text) == want, text[:300]
        kinds.update(f.kind for f in want)
    return kinds


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_texts_give_the_same_findings(seed: int) -> None:
    gen = _Gen(seed)
    kinds = _same([gen.text() for _ in range(600)])
    # The texts reach every context rule whose scan was made faster.
    for kind in ("env-secret", "secret-assignment", "bearer-token", "basic-auth", "url-param"):
        assert kinds[kind] > 5, kinds
    assert kinds["prose-password"] + kinds["prose-secret"] + kinds["cli-secret"] > 5, kinds


def test_corpora_give_the_same_findings_and_redactions() -> None:
    texts = SECRET_LINES + CLEAN_LINES + ["\n".join(SECRET_LINES), "\n".join(CLEAN_LINES)]
    _same(texts)
    gen = _Gen(4)
    for text in [*texts, *(gen.text() for _ in range(200))]:
        old = _old_scan(text)
        assert secrets.redact(text) == (secrets._apply(text, old) if old else text)


def test_a_repeated_text_gets_its_findings_again_as_a_list_of_its_own() -> None:
    text = "API_KEY=abc123def456ghi"
    first = secrets.redact_with_report(text)[1]
    first.clear()  # a caller's list: the next caller still gets the findings
    again = secrets.redact_with_report(text)[1]
    assert again == _old_scan(text) != [] and secrets._scan(text) is not again


@pytest.mark.shared_data
def test_the_findings_kept_hold_no_text_of_what_was_scanned() -> None:
    # a long-lived worker keeps findings by a digest: the secret it removed is not held
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    secrets.redact(f"export GITHUB_TOKEN={token}")
    assert secrets._KEPT and all(isinstance(k, bytes) and len(k) == 16 for k in secrets._KEPT)
    assert not any(token.encode() in k for k in secrets._KEPT)


def test_real_transcripts_give_the_same_findings() -> None:
    import sys

    from tests.shared_data import manifest_rows, require_shared_data

    require_shared_data()
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from redact_false_positives import texts  # type: ignore[import-not-found]

    for row in manifest_rows():
        _same(texts(row.path))
