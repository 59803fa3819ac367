from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rolling_graph.config import Settings
from rolling_graph.probe.base import ProbeRequest, TurnDigest


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # ``always`` and no backoff: these tests drive the runner's mechanics with a scripted paid
    # backend; the cost policy and the fallback have their own tests (test_cost_policy.py).
    return Settings(
        home=tmp_path / "home",
        probe="offline",
        probe_timeout=2.0,
        probe_retries=2,
        paid_probes="always",
        backoff_s=0,
    )


def make_request(text: str = "let's use Resend for email", **kw: Any) -> ProbeRequest:
    return ProbeRequest(session_id="s1", turn=1, turns=[TurnDigest(1, text)], **kw)


VALID_PATCH: dict[str, Any] = {
    "rationale": "Email provider chosen.",
    "ops": [
        {
            "op": "add",
            "path": "/nodes/use-resend",
            "value": {
                "id": "use-resend",
                "label": "Use Resend",
                "domain": "project",
                "kind": "decision",
            },
            "reason": "'let's use Resend'",
        },
        {
            "op": "add",
            "path": "/nodes/email",
            "value": {"label": "Email delivery", "domain": "project"},
            "reason": "email named",
        },
        {
            "op": "add",
            "path": "/edges/use-resend|uses|email",
            "value": {"source": "use-resend", "relationship": "uses", "target": "email"},
            "reason": "Resend sends the email",
        },
    ],
}
