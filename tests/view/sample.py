"""A small session with a known history: a decision, people and facts in every domain, then a
correction that supersedes the decision, and a hostile label. Shared by the view tests and the
``/graph`` end-to-end test."""

from __future__ import annotations

from pathlib import Path

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.patch import PatchSource
from rolling_graph.core.session import HotSession

SESSION = "view-test"


def _op(path: str, value: object, reason: str) -> dict[str, object]:
    return {"op": "add", "path": path, "value": value, "reason": reason}


def build_session(home: Path, session_id: str = SESSION) -> HotSession:
    """Four turns: a decision, people and facts in every domain, then a correction that
    supersedes the decision. Each patch has reasons, so the audit log explains every node."""
    sess = HotSession.open(HotStore(home), session_id)
    turns = [
        [
            _op(
                "/nodes/use-resend",
                {"label": "Use Resend", "domain": "project", "kind": "decision"},
                "user: let's go with Resend for email",
            ),
            _op("/nodes/resend", {"label": "Resend", "domain": "technical"}, "named service"),
            _op(
                "/edges/use-resend|uses|resend",
                {"source": "use-resend", "target": "resend", "relationship": "uses"},
                "the decision names the service",
            ),
        ],
        [
            _op(
                "/nodes/dana",
                {
                    "label": "Dana",
                    "domain": "relationship",
                    "kind": "person",
                    "summary": "owns the mail domain",
                },
                "user mentions Dana",
            ),
            _op(
                "/nodes/gym-evenings",
                {"label": "Gym in the evenings", "domain": "personal"},
                "personal aside",
            ),
        ],
        [
            _op(
                "/nodes/use-bento",
                {
                    "label": "Use Bento",
                    "domain": "project",
                    "kind": "decision",
                    "summary": "Bento instead of Resend (deliverability)",
                },
                "correction: actually, Bento instead of Resend",
            ),
            _op(
                "/edges/use-bento|supersedes|use-resend",
                {"source": "use-bento", "target": "use-resend", "relationship": "supersedes"},
                "Bento replaces the Resend decision",
            ),
            _op(
                "/edges/dana|informs|use-bento",
                {"source": "dana", "target": "use-bento", "relationship": "informs"},
                "Dana asked for the switch",
            ),
        ],
        [
            _op(
                "/nodes/xss",
                {"label": "</script><b>not markup</b>", "domain": "technical"},
                "a hostile label must stay text",
            ),
        ],
    ]
    for ops in turns:
        sess.advance_turn()
        res = sess.apply(ops, PatchSource("offline"))
        assert res.applied, res.error
    sess.save()
    return sess
