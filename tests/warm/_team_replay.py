"""Two people's sessions on one project, replayed against one PostgreSQL server, then the block
each of them gets at their next SessionStart. Used by ``test_team`` and ``bench/team_replay.py``.

Ann and Bob work on the same repository (``shop``), each in their own clone: the project key
comes from the clones' remote (``github.com/acme/shop``, written two ways), each
through their own login role made by ``init_team``. Each session mixes project decisions with
a personal aside and a note about a colleague; the offline probe builds the graphs, the
replay's SessionEnd flushes them, and a fresh session of each person pulls at start.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# Each person's clone (under the replay's folder) and its remote: one project key for both.
CLONES = {
    "ann": ("ann/code/shop", "git@github.com:acme/shop.git"),
    "bob": ("bob/src/shop", "https://github.com/acme/shop"),
}
PROJECT = "github.com/acme/shop"
PROMPTS = {
    "ann": [
        "We're adding a newsletter signup to the shop landing page. The form lives in"
        " templates/landing.html and posts to app/routes/newsletter.py.",
        "Let's go with Bento for the newsletter emails, not Resend: Bento's deliverability"
        " reports won.",
        "Unrelated, but remind me: book my daughter's dentist appointment for Tuesday"
        " afternoon, and the pediatric clinic needs her insurance card.",
        "Priya from marketing wants the double opt-in copy reviewed by Friday; she is touchy"
        " about the tone, keep it short.",
        "Decided: double opt-in is required for every signup, store consent in the"
        " subscribers table with a timestamp.",
    ],
    "bob": [
        "CI on the shop repo is flaky: pytest-xdist workers crash in the Postgres fixture of"
        " tests/conftest.py.",
        "Let's go with running the database tests serially with a pytest marker, and keep"
        " xdist for the unit tests.",
        "Personal note: my physiotherapy session moved to Thursday evening, I have to leave"
        " at six, and my knee still hurts after the gym.",
        "Tom on the platform team owes us the new CI runner image; he is on holiday until Monday.",
        "The newsletter signup should reuse the subscribers table migration, switch to"
        " Alembic for it.",
    ],
}


def clone(out: Path, person: str) -> str:
    """The person's work tree: a git repository whose ``origin`` is the shared remote."""
    rel, remote = CLONES[person]
    path = out / "clones" / rel
    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["remote", "add", "origin", remote]):
        subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)
    return str(path)


def write_transcript(path: Path, person: str, cwd: str) -> Path:
    """A Claude Code JSONL transcript: the person's prompts with a short reply to each."""
    sid = f"{person}-1"
    lines: list[dict[str, Any]] = []
    # An hour ago: the next SessionStart sees the memories as fresh, not months decayed.
    start = datetime.now(UTC) - timedelta(hours=1)
    for i, prompt in enumerate(PROMPTS[person]):
        stamp = (start + timedelta(minutes=2 * i)).isoformat().replace("+00:00", "Z")
        base = {"sessionId": sid, "cwd": cwd, "timestamp": stamp}
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": f"{sid}-u{i}",
                "message": {"role": "user", "content": prompt},
            }
        )
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"{sid}-a{i}",
                "message": {
                    "role": "assistant",
                    "id": f"msg_{sid}_{i}",
                    "content": [{"type": "text", "text": "Noted, going ahead."}],
                },
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def replay_team(urls: dict[str, str], out: Path) -> dict[str, str]:
    """Replay each person's session into the store at ``urls[person]``, then open a new
    session for each and return the block injected at its SessionStart."""
    from rolling_graph.config import load_settings
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.eval.replay import Replayer, replay_settings
    from rolling_graph.pipeline.engine import Engine

    out.mkdir(parents=True, exist_ok=True)
    cwd = {person: clone(out, person) for person in urls}
    for person, url in urls.items():
        transcript = write_transcript(out / f"{person}.jsonl", person, cwd[person])
        # Every trigger probes at the next turn: the offline probe is free, and these sessions
        # are short.
        settings = replay_settings(out / person, warm=url).model_copy(update={"probe_gap_turns": 1})
        with Replayer(out / person, settings=settings) as replayer:
            replayer.replay_file(transcript)
    blocks: dict[str, str] = {}
    for person, url in urls.items():
        settings = load_settings(home=out / f"{person}-next", warm=url, probe="offline")
        engine = Engine(settings)
        try:
            outcome = engine.handle(
                HookEvent("session_start", f"{person}-2", cwd=cwd[person], source="startup")
            )
        finally:
            engine.close()
        blocks[person] = outcome.injected or ""
    return blocks
