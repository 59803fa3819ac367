"""Writes the sample transcripts in this directory (Claude Code session JSONL).

The sessions are ours, written for rolling-graph's quick start and tests: realistic in shape
(one API message split over several lines sharing ``message.id``; thinking, text and tool_use
blocks; tool results as user lines; progress and file-history lines; an auto compaction with
its ``compact_boundary`` and ``isCompactSummary`` lines) and in content (a decision that
changes, corrections, a domain shift). Deterministic: re-running rewrites identical files.

    .venv/bin/python transcripts/make_samples.py
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VERSION = "2.1.39"
MODEL = "claude-opus-4-6"


class Session:
    """Builds one Claude Code transcript, line by line, with a monotonic fake clock."""

    def __init__(self, session_id: str, cwd: str, start: datetime, branch: str = "main") -> None:
        self.sid = session_id
        self.cwd = cwd
        self.t = start
        self.branch = branch
        self.lines: list[dict[str, Any]] = []
        self.n = 0
        self.parent: str | None = None

    def _id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.sid[:8]}-{self.n:04d}"

    def _stamp(self, seconds: float) -> str:
        self.t += timedelta(seconds=seconds)
        return self.t.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _base(self, kind: str, seconds: float) -> dict[str, Any]:
        uid = self._id("")
        line = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": VERSION,
            "gitBranch": self.branch,
            "type": kind,
            "uuid": f"{uid[:8]}-aaaa-4bbb-8ccc-{self.n:012d}",
            "timestamp": self._stamp(seconds),
        }
        self.parent = line["uuid"]
        return line

    def user(self, text: str, pause: float = 40.0) -> None:
        line = self._base("user", pause)
        line["message"] = {"role": "user", "content": text}
        line["permissionMode"] = "default"
        self.lines.append(
            {
                "type": "file-history-snapshot",
                "messageId": line["uuid"],
                "snapshot": {
                    "messageId": line["uuid"],
                    "trackedFileBackups": {},
                    "timestamp": line["timestamp"],
                },
                "isSnapshotUpdate": False,
            }
        )
        self.lines.append(line)

    def _assistant_line(self, msg_id: str, block: dict[str, Any], seconds: float) -> None:
        line = self._base("assistant", seconds)
        line["message"] = {
            "model": MODEL,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 6, "output_tokens": 180, "cache_read_input_tokens": 21000},
        }
        line["requestId"] = "req_" + msg_id[4:]
        self.lines.append(line)

    def turn(
        self,
        *,
        thinking: str | None = None,
        text: str | None = None,
        tools: list[tuple[str, dict[str, Any], str]] | None = None,
        final: str | None = None,
    ) -> None:
        """One agent turn: a message (thinking, text, tool calls) then results, then a reply."""
        msg = "msg_" + self._id("01")
        if thinking:
            self._assistant_line(
                msg, {"type": "thinking", "thinking": thinking, "signature": "EqQBCkYIBx"}, 3
            )
        if text:
            self._assistant_line(msg, {"type": "text", "text": text}, 2)
        ids = []
        tools = tools or []
        for name, inp, _ in tools:
            tid = "toolu_" + self._id("01")
            ids.append(tid)
            self._assistant_line(
                msg, {"type": "tool_use", "id": tid, "name": name, "input": inp}, 1
            )
        for tid, (name, _, result) in zip(ids, tools, strict=True):
            prog = self._base("progress", 0.2)
            prog.update(
                data={
                    "type": "hook_progress",
                    "hookEvent": "PostToolUse",
                    "hookName": f"PostToolUse:{name}",
                    "command": "callback",
                },
                toolUseID=tid,
                parentToolUseID=tid,
            )
            self.lines.append(prog)
            res = self._base("user", 2)
            is_error = result.startswith("Exit code")
            res["message"] = {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": tid,
                        "type": "tool_result",
                        "content": result,
                        "is_error": is_error,
                    }
                ],
            }
            res["toolUseResult"] = (
                {"stdout": result, "stderr": "", "interrupted": False, "isImage": False}
                if name == "Bash"
                else result
            )
            self.lines.append(res)
        if final:
            self._assistant_line("msg_" + self._id("01"), {"type": "text", "text": final}, 6)

    def compact(self, summary: str, trigger: str = "auto", pre_tokens: int = 156_402) -> None:
        line = self._base("system", 20)
        line.update(
            subtype="compact_boundary",
            content="Conversation compacted",
            isMeta=False,
            level="info",
            compactMetadata={"trigger": trigger, "preTokens": pre_tokens},
        )
        line["parentUuid"] = None
        line["logicalParentUuid"] = self.parent
        self.lines.append(line)
        s = self._base("user", 1)
        s["isCompactSummary"] = True
        s["isVisibleInTranscriptOnly"] = True
        s["message"] = {
            "role": "user",
            "content": "This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\n" + summary,
        }
        self.lines.append(s)

    def write(self, name: str) -> Path:
        path = HERE / name
        with path.open("w", encoding="utf-8") as fh:
            for line in self.lines:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        return path


def numbered(text: str) -> str:
    """File contents as Claude Code's Read tool returns them (cat -n style)."""
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.splitlines(), 1))


MAIN_PY = """from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.db import engine
from app.routes import landing, notes

app = FastAPI(title="harbor-notes")
app.mount("/static", StaticFiles(directory="static"), name="static")
app.include_router(landing.router)
app.include_router(notes.router, prefix="/notes")
"""

MODELS_PY = """from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "notes"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=datetime.utcnow)
"""

SUMMARY_1 = """Analysis:
The user is adding a newsletter signup to the harbor-notes landing page (FastAPI, SQLAlchemy, Alembic, Jinja templates). Chronologically:
- Email provider: first chosen as Resend with double opt-in; later changed to Bento because marketing (Priya) runs sequences there.
- Storage: a new table, first drafted as newsletter_signups; the user corrected the name to subscribers (the analytics export already references it).
- A POST /subscribe endpoint with a confirm-token flow, rate limited to 5 per hour per IP.
- A HANDOFF.md for Dana (who takes over the repo during the user's parental leave).
- The confirm link expires after 48 hours; a test covers the expired token.

Summary:
1. Primary Request and Intent:
   Add a newsletter signup (double opt-in) to harbor-notes: store subscribers, send a confirmation email, and hand confirmed subscribers to the email provider. The user also asked for a handoff document for Dana.

2. Key Technical Concepts:
   - FastAPI router in app/routes/subscribe.py; SQLAlchemy model Subscriber in app/models.py; Alembic migration for the subscribers table
   - Double opt-in with a signed confirm token (itsdangerous URLSafeTimedSerializer), max_age 48 hours
   - Bento REST API for transactional email and subscriber import (replaced Resend)
   - Rate limiting with slowapi, 5/hour per client IP

3. Files and Code Sections:
   - app/email.py: BentoClient with send_confirmation(email, confirm_url) and add_subscriber(email); reads BENTO_SITE_UUID and BENTO_PUBLISHABLE_KEY / BENTO_SECRET_KEY from the environment
   - app/routes/subscribe.py: POST /subscribe creates a pending Subscriber and sends the confirmation; GET /subscribe/confirm/{token} marks it confirmed
   - app/models.py: Subscriber(id, email unique, status pending|confirmed, created_at, confirmed_at)
   - alembic/versions/7c1e2a_add_subscribers.py: creates the subscribers table
   - tests/test_subscribe.py: signup, confirm, expired token (freezes time 49 hours ahead)
   - .env.example: BENTO_SITE_UUID, BENTO_PUBLISHABLE_KEY, BENTO_SECRET_KEY
   - HANDOFF.md: email setup, ownership (Priya owns the Bento account)

4. Errors and fixes:
   - Tests failed with KeyError: 'RESEND_API_KEY' at import time; fixed by reading keys lazily in the client and setting fake keys in tests/conftest.py (since switched to Bento keys).
   - The user corrected the table name from newsletter_signups to subscribers.

5. Pending Tasks:
   - Wire the signup form in templates/landing.html to POST /subscribe (htmx)
   - Commit the work

6. Current Work:
   The expired-token test had just been added and the suite passed (14 passed).
"""


def newsletter() -> Session:
    s = Session(
        "6f1d3c2a-8b4e-4f0a-9d1c-2e7b5a9c4d10",
        "/home/sam/code/harbor-notes",
        datetime(2026, 3, 9, 9, 12, 5, tzinfo=UTC),
        branch="newsletter-signup",
    )
    s.user(
        "I want to add a newsletter signup to the landing page of harbor-notes. FastAPI backend, "
        "the form will live in templates/landing.html. Can you look at how the app is wired first?"
    )
    s.turn(
        thinking="Look at app/main.py and the routes package, then the templates.",
        text="I'll start with the app entry point and the existing routes.",
        tools=[
            ("Read", {"file_path": "/home/sam/code/harbor-notes/app/main.py"}, numbered(MAIN_PY)),
            (
                "Glob",
                {"pattern": "app/**/*.py"},
                "app/__init__.py\napp/db.py\napp/main.py\napp/models.py\napp/routes/__init__.py\napp/routes/landing.py\napp/routes/notes.py",
            ),
            (
                "Read",
                {"file_path": "/home/sam/code/harbor-notes/app/models.py"},
                numbered(MODELS_PY),
            ),
        ],
        final="The app is a small FastAPI service: `app/main.py` mounts `static/` and two routers (`landing`, `notes`). "
        "Models use SQLAlchemy 2.0 typed mappings (`Note` in `app/models.py`) and there is an Alembic setup. "
        "A signup fits as a third router, `app/routes/subscribe.py`, plus a model and a migration.",
    )
    s.user(
        "For sending email let's go with Resend — I've used it before and the free tier is fine. "
        "Double opt-in please: store the address as pending, email a confirm link, only then it counts."
    )
    s.turn(
        text="Adding the Resend SDK and a small email module with a confirmation sender.",
        tools=[
            (
                "Bash",
                {
                    "command": "uv add resend itsdangerous",
                    "description": "Add Resend SDK and itsdangerous",
                },
                "Resolved 41 packages in 612ms\nInstalled 2 packages in 9ms\n + itsdangerous==2.2.0\n + resend==2.4.0",
            ),
            (
                "Write",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/email.py",
                    "content": 'import os\n\nimport resend\n\nresend.api_key = os.environ["RESEND_API_KEY"]\n\n\ndef send_confirmation(email: str, confirm_url: str) -> None:\n    resend.Emails.send({"from": "harbor-notes <hello@harbornotes.app>", "to": email, "subject": "Confirm your subscription", "html": f\'<a href="{confirm_url}">Confirm</a>\'})\n',
                },
                "File created successfully at: /home/sam/code/harbor-notes/app/email.py",
            ),
        ],
        final="`app/email.py` now has `send_confirmation(email, confirm_url)` using Resend. Confirm tokens will be signed with `itsdangerous` so we don't need a token table.",
    )
    s.user("Store signups in a new table, newsletter_signups. Add an Alembic migration.")
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/models.py",
                    "old_string": "class Note(Base):",
                    "new_string": 'class NewsletterSignup(Base):\n    __tablename__ = "newsletter_signups"\n    id: Mapped[int] = mapped_column(primary_key=True)\n    email: Mapped[str] = mapped_column(String(320), unique=True)\n    status: Mapped[str] = mapped_column(String(16), default="pending")\n\n\nclass Note(Base):',
                },
                "The file /home/sam/code/harbor-notes/app/models.py has been updated.",
            ),
            (
                "Bash",
                {
                    "command": "uv run alembic revision --autogenerate -m 'add newsletter_signups'",
                    "description": "Generate migration",
                },
                "INFO  [alembic.autogenerate.compare] Detected added table 'newsletter_signups'\n  Generating /home/sam/code/harbor-notes/alembic/versions/7c1e2a_add_newsletter_signups.py ...  done",
            ),
        ],
        final="Added the `NewsletterSignup` model and migration `7c1e2a_add_newsletter_signups.py`.",
    )
    s.user(
        "No, not newsletter_signups — call the table subscribers, the analytics export already "
        "reads from a table with that name. Model class Subscriber."
    )
    s.turn(
        thinking="Rename model and table; regenerate the migration rather than editing the autogenerated one by hand.",
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/models.py",
                    "old_string": 'class NewsletterSignup(Base):\n    __tablename__ = "newsletter_signups"',
                    "new_string": 'class Subscriber(Base):\n    __tablename__ = "subscribers"',
                },
                "The file /home/sam/code/harbor-notes/app/models.py has been updated.",
            ),
            (
                "Bash",
                {
                    "command": "rm alembic/versions/7c1e2a_add_newsletter_signups.py && uv run alembic revision --autogenerate -m 'add subscribers'",
                    "description": "Regenerate migration",
                },
                "INFO  [alembic.autogenerate.compare] Detected added table 'subscribers'\n  Generating /home/sam/code/harbor-notes/alembic/versions/7c1e2a_add_subscribers.py ...  done",
            ),
        ],
        final="Renamed: model `Subscriber`, table `subscribers`, migration `7c1e2a_add_subscribers.py`.",
    )
    s.user("Now the POST /subscribe endpoint with the confirm-token flow.")
    s.turn(
        tools=[
            (
                "Write",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/routes/subscribe.py",
                    "content": 'from fastapi import APIRouter, Depends, Form, HTTPException\nfrom itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer\n\nfrom app.db import get_session\nfrom app.email import send_confirmation\nfrom app.models import Subscriber\n\nrouter = APIRouter()\nserializer = URLSafeTimedSerializer(settings.secret_key, salt="subscribe")\n\n\n@router.post("/subscribe")\ndef subscribe(email: str = Form(...), db=Depends(get_session)):\n    ...\n\n\n@router.get("/subscribe/confirm/{token}")\ndef confirm(token: str, db=Depends(get_session)):\n    ...\n',
                },
                "File created successfully at: /home/sam/code/harbor-notes/app/routes/subscribe.py",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/main.py",
                    "old_string": 'app.include_router(notes.router, prefix="/notes")',
                    "new_string": 'app.include_router(notes.router, prefix="/notes")\napp.include_router(subscribe.router)',
                },
                "The file /home/sam/code/harbor-notes/app/main.py has been updated.",
            ),
        ],
        final="`POST /subscribe` stores a pending `Subscriber` and emails a signed link; `GET /subscribe/confirm/{token}` verifies it with `URLSafeTimedSerializer` and marks the row confirmed.",
    )
    s.user("Run the tests.")
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "uv run pytest -q", "description": "Run test suite"},
                "Exit code 2\nImportError while loading conftest '/home/sam/code/harbor-notes/tests/conftest.py'.\napp/email.py:5: in <module>\n    resend.api_key = os.environ[\"RESEND_API_KEY\"]\nKeyError: 'RESEND_API_KEY'",
            )
        ],
        final="The import of `app/email.py` reads `RESEND_API_KEY` at import time. I'll read it lazily and set a fake key in `tests/conftest.py`.",
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/tests/conftest.py",
                    "old_string": "import pytest",
                    "new_string": 'import os\n\nimport pytest\n\nos.environ.setdefault("RESEND_API_KEY", "re_test_dummy")',
                },
                "The file /home/sam/code/harbor-notes/tests/conftest.py has been updated.",
            ),
            (
                "Bash",
                {"command": "uv run pytest -q", "description": "Run test suite"},
                "..........                                                     [100%]\n10 passed in 1.84s",
            ),
        ],
        final="10 passed.",
    )
    s.user("ok good. Rate-limit the endpoint, 5 per hour per IP.")
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "uv add slowapi", "description": "Add slowapi"},
                " + slowapi==0.1.9",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/routes/subscribe.py",
                    "old_string": '@router.post("/subscribe")',
                    "new_string": '@router.post("/subscribe")\n@limiter.limit("5/hour")',
                },
                "The file /home/sam/code/harbor-notes/app/routes/subscribe.py has been updated.",
            ),
        ],
        final="`/subscribe` is limited to 5 requests per hour per client IP with slowapi's `Limiter(key_func=get_remote_address)`.",
    )
    s.user(
        "Actually, Bento instead of Resend. Priya in marketing already runs their sequences in Bento "
        "and wants subscribers to land there directly, so one tool for both."
    )
    s.turn(
        thinking="Switch provider: Bento has a transactional email endpoint and a subscriber import. Remove resend dependency.",
        text="Switching the email module to Bento and dropping Resend.",
        tools=[
            (
                "Bash",
                {
                    "command": "uv remove resend && uv add httpx",
                    "description": "Swap Resend for httpx",
                },
                " - resend==2.4.0\n + httpx==0.27.2",
            ),
            (
                "Write",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/email.py",
                    "content": 'import os\n\nimport httpx\n\nBENTO_API = "https://app.bentonow.com/api/v1"\n\n\nclass BentoClient:\n    def __init__(self) -> None:\n        self.site_uuid = os.environ["BENTO_SITE_UUID"]\n        self.auth = (os.environ["BENTO_PUBLISHABLE_KEY"], os.environ["BENTO_SECRET_KEY"])\n\n    def send_confirmation(self, email: str, confirm_url: str) -> None:\n        ...\n\n    def add_subscriber(self, email: str) -> None:\n        ...\n',
                },
                "File updated successfully at: /home/sam/code/harbor-notes/app/email.py",
            ),
        ],
        final="`app/email.py` now has a `BentoClient` with `send_confirmation` (Bento's transactional emails endpoint) and `add_subscriber` (subscriber import). Resend is gone from the dependencies.",
    )
    s.user(
        "Bento needs BENTO_SITE_UUID and the keys — put them in .env.example, not as settings defaults."
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/.env.example",
                    "old_string": "DATABASE_URL=postgresql://localhost/harbor",
                    "new_string": "DATABASE_URL=postgresql://localhost/harbor\nBENTO_SITE_UUID=\nBENTO_PUBLISHABLE_KEY=\nBENTO_SECRET_KEY=",
                },
                "The file /home/sam/code/harbor-notes/.env.example has been updated.",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/tests/conftest.py",
                    "old_string": 'os.environ.setdefault("RESEND_API_KEY", "re_test_dummy")',
                    "new_string": 'os.environ.setdefault("BENTO_SITE_UUID", "site-test")\nos.environ.setdefault("BENTO_PUBLISHABLE_KEY", "pk-test")\nos.environ.setdefault("BENTO_SECRET_KEY", "sk-test")',
                },
                "The file /home/sam/code/harbor-notes/tests/conftest.py has been updated.",
            ),
        ],
        final="Added the three Bento variables (empty) to `.env.example`; tests set dummy values in `conftest.py`.",
    )
    s.user("Run the tests again.")
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "uv run pytest -q", "description": "Run test suite"},
                "............                                                   [100%]\n12 passed in 1.91s",
            )
        ],
        final="12 passed.",
    )
    s.user(
        "Unrelated: I'm handing this repo to Dana next week while I'm on parental leave. Can you "
        "draft a short HANDOFF.md — how to run it, the email setup, and who owns what?"
    )
    s.turn(
        tools=[
            (
                "Write",
                {
                    "file_path": "/home/sam/code/harbor-notes/HANDOFF.md",
                    "content": "# Handoff: harbor-notes\n\n## Running locally\n`uv run fastapi dev app/main.py`\n\n## Email\nNewsletter signups use Bento (double opt-in).\n\n## Owners\n- Code: Sam (away), then Dana\n",
                },
                "File created successfully at: /home/sam/code/harbor-notes/HANDOFF.md",
            )
        ],
        final="Drafted `HANDOFF.md` with running instructions, the email setup and an owners section.",
    )
    s.user(
        "Mention that Priya owns the Bento account, so Dana should ask her for the secret key — never commit it."
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/HANDOFF.md",
                    "old_string": "- Code: Sam (away), then Dana",
                    "new_string": "- Code: Sam (away), then Dana\n- Bento account: Priya (marketing). Ask her for BENTO_SECRET_KEY; never commit it.",
                },
                "The file /home/sam/code/harbor-notes/HANDOFF.md has been updated.",
            )
        ],
        final="Done.",
    )
    s.user("Back to code: the confirm link should expire after 48 hours.")
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/routes/subscribe.py",
                    "old_string": "email = serializer.loads(token)",
                    "new_string": "email = serializer.loads(token, max_age=CONFIRM_MAX_AGE)  # 48 hours",
                },
                "The file /home/sam/code/harbor-notes/app/routes/subscribe.py has been updated.",
            )
        ],
        final="Tokens now expire after 48 hours (`CONFIRM_MAX_AGE = 48 * 3600`); an expired link returns 410 with a 'request a new link' message.",
    )
    s.user("Add a test for the expired token.")
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/tests/test_subscribe.py",
                    "old_string": "def test_confirm_marks_subscriber_confirmed",
                    "new_string": 'def test_expired_token_is_rejected(client, time_machine):\n    token = signup(client, "ada@example.com")\n    time_machine.shift(timedelta(hours=49))\n    assert client.get(f"/subscribe/confirm/{token}").status_code == 410\n\n\ndef test_confirm_marks_subscriber_confirmed',
                },
                "The file /home/sam/code/harbor-notes/tests/test_subscribe.py has been updated.",
            ),
            (
                "Bash",
                {"command": "uv run pytest -q", "description": "Run test suite"},
                "..............                                                 [100%]\n14 passed in 2.02s",
            ),
        ],
        final="Added `test_expired_token_is_rejected`; 14 passed.",
    )
    s.compact(SUMMARY_1)
    s.user(
        "Where were we? Let's wire the form in templates/landing.html to POST /subscribe with htmx.",
        pause=90,
    )
    s.turn(
        tools=[
            (
                "Read",
                {"file_path": "/home/sam/code/harbor-notes/templates/landing.html"},
                numbered(
                    '{% extends "base.html" %}\n{% block content %}\n<section class="hero">\n  <h1>harbor-notes</h1>\n  <form id="signup">\n    <input type="email" name="email" required>\n    <button>Subscribe</button>\n  </form>\n</section>\n{% endblock %}'
                ),
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/templates/landing.html",
                    "old_string": '<form id="signup">',
                    "new_string": '<form id="signup" hx-post="/subscribe" hx-target="#signup-result" hx-swap="innerHTML">',
                },
                "The file /home/sam/code/harbor-notes/templates/landing.html has been updated.",
            ),
        ],
        final="The form in `templates/landing.html` now posts to `/subscribe` with htmx and swaps the response into `#signup-result`.",
    )
    s.user("Show a success message that says to check the inbox for the confirmation email.")
    s.turn(
        tools=[
            (
                "Write",
                {
                    "file_path": "/home/sam/code/harbor-notes/templates/partials/signup_ok.html",
                    "content": '<p class="ok">Almost there — check your inbox for a confirmation link (valid for 48 hours).</p>',
                },
                "File created successfully at: /home/sam/code/harbor-notes/templates/partials/signup_ok.html",
            )
        ],
        final="`/subscribe` returns `partials/signup_ok.html` for htmx requests.",
    )
    s.user(
        "Does the Bento call happen before or after the confirm click? It should be after — only "
        "confirmed subscribers go to Bento."
    )
    s.turn(
        thinking="Check subscribe.py: add_subscriber is called in subscribe(), should move to confirm().",
        tools=[
            (
                "Grep",
                {"pattern": "add_subscriber", "path": "app", "output_mode": "content", "-n": True},
                "app/email.py:17:    def add_subscriber(self, email: str) -> None:\napp/routes/subscribe.py:31:    bento.add_subscriber(email)",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/routes/subscribe.py",
                    "old_string": "    bento.send_confirmation(email, url)\n    bento.add_subscriber(email)",
                    "new_string": "    bento.send_confirmation(email, url)",
                },
                "The file /home/sam/code/harbor-notes/app/routes/subscribe.py has been updated.",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/app/routes/subscribe.py",
                    "old_string": '    subscriber.status = "confirmed"',
                    "new_string": '    subscriber.status = "confirmed"\n    bento.add_subscriber(subscriber.email)',
                },
                "The file /home/sam/code/harbor-notes/app/routes/subscribe.py has been updated.",
            ),
        ],
        final="It was before — `subscribe()` called `bento.add_subscriber` right after sending the confirmation. Moved it into `confirm()`, after the `Subscriber` is marked confirmed.",
    )
    s.user("Run the whole suite and ruff.")
    s.turn(
        tools=[
            (
                "Bash",
                {
                    "command": "uv run ruff check . && uv run pytest -q",
                    "description": "Lint and test",
                },
                "All checks passed!\n...............                                                [100%]\n15 passed in 2.11s",
            )
        ],
        final="ruff clean, 15 passed.",
    )
    s.user(
        "Update HANDOFF.md with the 48-hour expiry and the rate limit, then commit: 'newsletter signup with double opt-in via Bento'."
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/harbor-notes/HANDOFF.md",
                    "old_string": "Newsletter signups use Bento (double opt-in).",
                    "new_string": "Newsletter signups use Bento (double opt-in). Confirm links expire after 48 hours; /subscribe is rate limited to 5/hour per IP (slowapi). Only confirmed subscribers are sent to Bento.",
                },
                "The file /home/sam/code/harbor-notes/HANDOFF.md has been updated.",
            ),
            (
                "Bash",
                {
                    "command": "git add -A && git commit -m 'newsletter signup with double opt-in via Bento'",
                    "description": "Commit",
                },
                "[newsletter-signup 4e1b9d2] newsletter signup with double opt-in via Bento\n 11 files changed, 286 insertions(+), 3 deletions(-)",
            ),
        ],
        final="Committed `4e1b9d2` on `newsletter-signup`.",
    )
    return s


CI_YML = """name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    services:
      postgres:
        image: postgres:16
        env:
          POSTGRES_PASSWORD: postgres
        ports: ["5432:5432"]
    steps:
      - uses: actions/checkout@v4
      - uses: astral-sh/setup-uv@v3
      - run: uv sync --frozen
      - run: uv run pytest -q
"""


def flaky_ci() -> Session:
    s = Session(
        "b3a9e7d4-51c2-4e86-a0f3-7d2c9e1b6a58",
        "/home/sam/code/ledgerline",
        datetime(2026, 3, 12, 14, 2, 41, tzinfo=UTC),
    )
    s.user(
        "CI on ledgerline has been flaky for a week: test_reconcile_batch fails maybe 1 run in 5 on "
        "GitHub Actions, never locally. Look at .github/workflows/ci.yml and tests/test_reconcile.py."
    )
    s.turn(
        tools=[
            (
                "Read",
                {"file_path": "/home/sam/code/ledgerline/.github/workflows/ci.yml"},
                numbered(CI_YML),
            ),
            (
                "Read",
                {"file_path": "/home/sam/code/ledgerline/tests/test_reconcile.py"},
                numbered(
                    'import pytest\nfrom datetime import datetime\n\nfrom ledgerline.reconcile import reconcile_batch\n\n\n@pytest.mark.usefixtures("pg")\ndef test_reconcile_batch(pg, ledger_rows):\n    cutoff = datetime.now()\n    result = reconcile_batch(pg, cutoff=cutoff)\n    assert result.unmatched == []\n'
                ),
            ),
        ],
        final="Two suspects: the Postgres service has no health check, so the job can start before it accepts connections; and `test_reconcile_batch` computes its cutoff with `datetime.now()`.",
    )
    s.user(
        "Here's the failure from run 8812: `psycopg.OperationalError: connection refused` during fixture setup of `pg`."
    )
    s.turn(
        thinking="Connection refused in fixture setup. Could also be the redis cache fixture that the pg fixture depends on?",
        text="Connection refused at fixture setup points at a service that isn't ready. It could also be the cache fixture — `conftest.py` has a `redis_cache` fixture that `pg` might depend on.",
    )
    s.user("No, that's not it — we dropped Redis in March. It's the Postgres service container.")
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/.github/workflows/ci.yml",
                    "old_string": '        ports: ["5432:5432"]',
                    "new_string": '        ports: ["5432:5432"]\n        options: >-\n          --health-cmd pg_isready\n          --health-interval 2s\n          --health-timeout 5s\n          --health-retries 15',
                },
                "The file /home/sam/code/ledgerline/.github/workflows/ci.yml has been updated.",
            ),
        ],
        final="Right, the Postgres service. Added a `pg_isready` health check to the service in `ci.yml`, so the job waits until Postgres accepts connections.",
    )
    s.user("Also the test uses datetime.now() for the batch cutoff — could that bite us too?")
    s.turn(
        text="Yes: `reconcile_batch` compares the cutoff with `posted_at` stored as UTC, and the runner's clock near a minute boundary can exclude rows inserted by `ledger_rows`. Freezing time in the test removes that.",
    )
    s.user(
        "Let's go with time-machine rather than freezegun, it's faster and works with our C extension."
    )
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "uv add --dev time-machine", "description": "Add time-machine"},
                " + time-machine==2.15.0",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/tests/test_reconcile.py",
                    "old_string": "def test_reconcile_batch(pg, ledger_rows):\n    cutoff = datetime.now()",
                    "new_string": "@time_machine.travel(datetime(2026, 3, 1, 12, 0, tzinfo=UTC), tick=False)\ndef test_reconcile_batch(pg, ledger_rows):\n    cutoff = datetime.now(UTC)",
                },
                "The file /home/sam/code/ledgerline/tests/test_reconcile.py has been updated.",
            ),
        ],
        final="`test_reconcile_batch` now runs at a fixed instant with `time_machine.travel(..., tick=False)` and an aware UTC cutoff.",
    )
    s.user("Run the reconcile tests 50 times locally with pytest-repeat.")
    s.turn(
        tools=[
            (
                "Bash",
                {
                    "command": "uv run pytest tests/test_reconcile.py --count 50 -q -p no:randomly",
                    "description": "Repeat reconcile tests",
                },
                "..................................................                [100%]\n50 passed in 6.40s",
            )
        ],
        final="50/50 passed.",
    )
    s.user("Push a branch and open a PR.")
    s.turn(
        tools=[
            (
                "Bash",
                {
                    "command": "git switch -c fix/flaky-reconcile && git commit -am 'ci: wait for postgres; freeze time in reconcile test' && git push -u origin fix/flaky-reconcile",
                    "description": "Branch, commit, push",
                },
                "[fix/flaky-reconcile 91c2f0e] ci: wait for postgres; freeze time in reconcile test\n 3 files changed, 12 insertions(+), 2 deletions(-)\nbranch 'fix/flaky-reconcile' set up to track 'origin/fix/flaky-reconcile'.",
            ),
            (
                "Bash",
                {"command": "gh pr create --fill", "description": "Open PR"},
                "https://github.com/ledgerline/ledgerline/pull/412",
            ),
        ],
        final="PR #412 is open.",
    )
    s.user(
        "Separate thing: Marco asked in standup whether we can move the nightly export from cron to "
        "Celery beat. What would that take?"
    )
    s.turn(
        tools=[
            (
                "Grep",
                {"pattern": "nightly_export", "output_mode": "files_with_matches"},
                "deploy/crontab\nledgerline/export/nightly.py\ntests/test_nightly_export.py",
            ),
            (
                "Read",
                {"file_path": "/home/sam/code/ledgerline/deploy/crontab"},
                numbered(
                    "15 2 * * * ledgerline /opt/ledgerline/bin/python -m ledgerline.export.nightly_export"
                ),
            ),
        ],
        final="Today `deploy/crontab` runs `ledgerline.export.nightly_export` at 02:15. Moving it to Celery beat means a worker and a beat process in production (we run neither now), a broker (we'd need one again since Redis is gone) and a `beat_schedule` entry. The export itself would not change.",
    )
    s.user(
        "Decided: keep cron for now, not worth a broker just for this. Write it down in "
        "docs/decisions/0007-nightly-export.md so Marco has something to point at."
    )
    s.turn(
        tools=[
            (
                "Write",
                {
                    "file_path": "/home/sam/code/ledgerline/docs/decisions/0007-nightly-export.md",
                    "content": "# 0007 Nightly export stays on cron\n\nStatus: accepted\n\nCelery beat would need a broker (Redis was removed in March) and two more processes. Revisit if we add other scheduled jobs.\n",
                },
                "File created successfully at: /home/sam/code/ledgerline/docs/decisions/0007-nightly-export.md",
            )
        ],
        final="Wrote ADR 0007: the nightly export stays on cron; Celery beat would need a broker and two more processes.",
    )
    s.user(
        "CI run 8830 on the PR failed again, different test this time: test_fx_rates_cache. Log says `AssertionError: assert 3 == 2` on the call count."
    )
    s.turn(
        tools=[
            (
                "Read",
                {"file_path": "/home/sam/code/ledgerline/tests/test_fx.py"},
                numbered(
                    'def test_fx_rates_cache(fx_client, respx_mock):\n    route = respx_mock.get(ECB_URL).respond(200, text=ECB_XML)\n    fx_client.rate("EUR", "USD")\n    fx_client.rate("EUR", "GBP")\n    assert route.call_count == 2\n'
                ),
            ),
            (
                "Read",
                {"file_path": "/home/sam/code/ledgerline/ledgerline/fx.py"},
                numbered(
                    "class FxClient:\n    ttl = timedelta(minutes=10)\n\n    def rate(self, base, quote):\n        if self._fetched_at is None or utcnow() - self._fetched_at > self.ttl:\n            self._refresh()\n        return self._rates[quote] / self._rates[base]\n"
                ),
            ),
        ],
        final="The assertion itself looks wrong (two rates from one fetch should be one call), and the TTL check uses the real clock, so a slow runner can refresh mid-test. The fixture `fx_client` is also module-scoped, so another test's fetch leaks in. That's why it only fails sometimes.",
    )
    s.user(
        "Use pytest-rerunfailures only for the fx tests, max 2 reruns, and open an issue to fix the fixture scope properly. Mention Marco, he wrote FxClient."
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/tests/test_fx.py",
                    "old_string": "def test_fx_rates_cache(",
                    "new_string": "@pytest.mark.flaky(reruns=2)\ndef test_fx_rates_cache(",
                },
                "The file /home/sam/code/ledgerline/tests/test_fx.py has been updated.",
            ),
            (
                "Bash",
                {
                    "command": "gh issue create --title 'test_fx_rates_cache: module-scoped fx_client leaks state' --body 'cc @marco-p — FxClient TTL uses the real clock and fx_client is module-scoped; rerun marker added in #412 as a stopgap.'",
                    "description": "Open issue",
                },
                "https://github.com/ledgerline/ledgerline/issues/413",
            ),
        ],
        final="Marked `test_fx_rates_cache` with `@pytest.mark.flaky(reruns=2)` and opened issue #413, cc Marco.",
    )
    s.user(
        "Wait, I meant the whole tests/test_fx.py module, not just that one test — put the marker at module level."
    )
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/tests/test_fx.py",
                    "old_string": "@pytest.mark.flaky(reruns=2)\ndef test_fx_rates_cache(",
                    "new_string": "def test_fx_rates_cache(",
                },
                "The file /home/sam/code/ledgerline/tests/test_fx.py has been updated.",
            ),
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/tests/test_fx.py",
                    "old_string": "import pytest\n",
                    "new_string": "import pytest\n\npytestmark = pytest.mark.flaky(reruns=2)\n",
                },
                "The file /home/sam/code/ledgerline/tests/test_fx.py has been updated.",
            ),
        ],
        final="Moved it to module level: `pytestmark = pytest.mark.flaky(reruns=2)` in `tests/test_fx.py`.",
    )
    s.user("Push that to the PR.")
    s.turn(
        tools=[
            (
                "Bash",
                {
                    "command": "git commit -am 'tests: rerun fx tests up to 2 times (see #413)' && git push",
                    "description": "Commit and push",
                },
                "[fix/flaky-reconcile 5d0a7be] tests: rerun fx tests up to 2 times (see #413)\n 1 file changed, 2 insertions(+)",
            )
        ],
        final="Pushed to PR #412.",
    )
    s.user("How's the Postgres health check doing — did run 8841 wait for the service?")
    s.turn(
        tools=[
            (
                "Bash",
                {
                    "command": "gh run view 8841 --log | grep -i -m3 'health'",
                    "description": "Check run log",
                },
                "Waiting for all services to be ready\npostgres service is healthy.\nWaiting for all services to be ready",
            )
        ],
        final="Yes: run 8841 logged 'postgres service is healthy' before the test step started.",
    )
    s.user("Good. Let's also cache uv in CI, the sync step takes 40 seconds.")
    s.turn(
        tools=[
            (
                "Edit",
                {
                    "file_path": "/home/sam/code/ledgerline/.github/workflows/ci.yml",
                    "old_string": "      - uses: astral-sh/setup-uv@v3",
                    "new_string": "      - uses: astral-sh/setup-uv@v3\n        with:\n          enable-cache: true",
                },
                "The file /home/sam/code/ledgerline/.github/workflows/ci.yml has been updated.",
            )
        ],
        final="Enabled `enable-cache: true` on `setup-uv` in `ci.yml`.",
    )
    s.user("Run the full suite locally once more, then push.")
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "uv run pytest -q", "description": "Full suite"},
                "........................................................................ [ 88%]\n.........                                                                [100%]\n81 passed in 9.72s",
            ),
            (
                "Bash",
                {
                    "command": "git commit -am 'ci: cache uv' && git push",
                    "description": "Commit and push",
                },
                "[fix/flaky-reconcile 0b77e4c] ci: cache uv\n 1 file changed, 2 insertions(+)",
            ),
        ],
        final="81 passed; pushed `0b77e4c`.",
    )
    s.user(
        "Runs 8844 to 8850 all green. Can you write the PR description: the postgres health check, time-machine in the reconcile test, the fx reruns as a stopgap with #413, and the uv cache."
    )
    s.turn(
        tools=[
            (
                "Bash",
                {"command": "gh pr edit 412 --body-file -", "description": "Update PR body"},
                "https://github.com/ledgerline/ledgerline/pull/412",
            )
        ],
        final="Updated PR #412's description with the four changes and a link to #413.",
    )
    s.user("Thanks. Last thing: remind me what ADR number we used for the cron decision?")
    s.turn(
        final="0007 — `docs/decisions/0007-nightly-export.md`: the nightly export stays on cron."
    )
    return s


def main() -> None:
    for session, name in (
        (newsletter(), "newsletter-signup.jsonl"),
        (flaky_ci(), "flaky-ci.jsonl"),
    ):
        path = session.write(name)
        print(f"wrote {path} ({len(session.lines)} lines)")


if __name__ == "__main__":
    main()
