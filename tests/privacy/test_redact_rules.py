"""Rules added for issue 14: placeholders and documentation examples stay, code stays, the
privacy boundary (private spans, opt-out, event sanitizing) does what it says; and, on the real
transcripts in ../shared/data, how much the redactor flags (run with -s for the figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rolling_graph.core.hook_event import HookEvent
from rolling_graph.privacy.boundary import (
    IGNORE_FILE,
    opted_out,
    sanitize_event,
    scrub,
    strip_private,
)
from rolling_graph.privacy.redact.secrets import redact_with_report
from tests.security.secret_corpus import HELD_OUT, corpus

KEPT = [
    "export OPENAI_API_KEY=sk-...",
    "set ANTHROPIC_API_KEY=<your-key>",
    "API_KEY=xxxx",
    "password: changeme",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "password: ${DB_PASSWORD}",
    "token: str",
    "password = input('Password: ')",
    "const apiKey = options.apiKey || getEnvApiKey(model.provider);",
    "headers: { 'x-api-key': process.env.DUNE_API_KEY! }",
    "The token is short-lived and expires by TTL.",
    "1Password is locked - unlock it and try again",
    "gpg --list-secret-keys 8E1F5C2A9B7D3E06",
    "echo $GITHUB_TOKEN | gh auth login --with-token 2>/dev/null",
    'ts="$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    "https://rr1.googlevideo.com/videoplayback?expire=1&sig=AJfQdSswRAIgQx3kP9bLmN2vR7tY&lsparams=x",
    "PasswordLastSet  : 11/12/2023 10:24:36 AM",
    "use anchor_spl::associated_token::AssociatedToken;",
    "target/deps/spl_token-87bdf810a82c8f79.d:1:/Users/me/.cargo/registry/src/lib.rs",
    "hf_transformers_cache_dir = '/data/cache'",
    "docker login --password-stdin -u builder registry.example.org",
    "mkdir -p build && cp -r dist build/",
]


@pytest.mark.parametrize("line", KEPT)
def test_placeholders_docs_examples_and_code_are_kept(line: str) -> None:
    out, findings = redact_with_report(line)
    assert findings == [], [line[f.start : f.end] for f in findings]
    assert out == line


def test_azure_sas_and_aws_presigned_signatures_are_redacted() -> None:
    sas = "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026&sp=r&sig=Zk3%2Bq9LmN0pRt7vWx2yB4dF6hJ8kA1sD3fG5hJ7kL9m%3D"
    aws = "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA/x&X-Amz-Signature=9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c1b3d5f7e"
    for url in (sas, aws):
        out, findings = redact_with_report(url)
        assert [f.kind for f in findings] == ["url-signature"], url


def test_private_spans_are_dropped_whole() -> None:
    text = "keep <private>my salary is 90k\nand more</private> this; <PRIVATE>open to the end"
    assert strip_private(text) == "keep [private] this; [private]"
    assert scrub("<private>sk-proj-abc</private> ok") == "[private] ok"


def test_sanitize_event_scrubs_every_text_and_reduces_raw() -> None:
    (kind, secret, line), *_ = corpus(7, HELD_OUT)
    ev = HookEvent(
        "tool_use",
        "s1",
        prompt=f"<private>diary</private> {line}",
        tool_name="Bash",
        tool_input={"command": line, "env": {"API_TOKEN": "hunter2-Abc9"}},
        tool_response={"stdout": line, "nested": [line]},
        raw={"hook_event_name": "PostToolUse", "tool_input": {"command": line}},
    )
    clean = sanitize_event(ev)
    dumped = json.dumps(
        [clean.prompt, clean.tool_input, clean.tool_response, clean.raw], ensure_ascii=False
    )
    assert secret not in dumped and "diary" not in dumped and "hunter2-Abc9" not in dumped, kind
    assert clean.raw == {"hook_event_name": "PostToolUse"}  # routing fields only
    assert clean.redacted and sanitize_event(clean) is clean
    assert secret in ev.tool_input["command"]  # the caller's object is left as it was


def test_opt_out_by_file_or_config(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    assert not opted_out(str(repo / "src"))
    (repo / IGNORE_FILE).write_text("")
    assert opted_out(str(repo / "src" / "deep"))
    other = tmp_path / "other"
    other.mkdir()
    assert opted_out(str(other / "x"), [str(other)])
    assert not opted_out(str(tmp_path / "otherwise"), [str(other)])
    assert not opted_out(None) and not opted_out("relative/path")


@pytest.mark.shared_data
def test_false_positives_on_real_transcripts() -> None:
    from tests.shared_data import require_shared_data

    require_shared_data()
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from redact_false_positives import scan  # type: ignore[import-not-found]

    res = scan(0)
    kinds = res["kinds"]
    total = sum(kinds.values())
    per_mb = total / res["mb"]
    print(
        f"\n{res['files']} real transcripts, {res['mb']:.1f} MB: {total} findings "
        f"({per_mb:.2f}/MB): {dict(kinds.most_common())}"
    )
    # Rules added for issue 14 that read context (prose, flags, command lines, signed URLs)
    # must stay near silent on real work; shapes are prefixed tokens and cannot drift far.
    contextual = sum(
        kinds.get(k, 0) for k in ("prose-secret", "cli-secret", "cli-password", "url-signature")
    )
    assert contextual <= 10, dict(kinds)
    assert per_mb < 8, dict(kinds)


def test_huge_tool_text_is_cut_at_a_space_never_inside_a_token() -> None:
    from rolling_graph.privacy.boundary import MAX_TOOL_TEXT, TRUNCATED, scrub_obj

    (_, secret, _), *_ = corpus(3, HELD_OUT)
    pad = "ab " * ((MAX_TOOL_TEXT - len(secret) // 2) // 3)
    out = scrub_obj({"stdout": pad + secret + " tail"})["stdout"]
    assert out.endswith(TRUNCATED) and len(out) <= MAX_TOOL_TEXT + len(TRUNCATED)
    assert secret[:12] not in out  # the straddling token is dropped whole, not cut in two
