"""``stats``: probes, triggers, tokens and failures per session, read from the audit logs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import click

from rolling_graph.cli.common import settings, store


@dataclass
class SessionStats:
    session_id: str
    triggers: int = 0  # gate firings that asked for a probe
    coalesced: int = 0  # of those, folded into a probe already in flight
    probes: int = 0  # probe runs (applied + failed)
    applied: int = 0
    failures: int = 0
    rejected: int = 0  # failures where the engine refused the patch
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_estimated: bool = False
    backends: dict[str, int] = field(default_factory=dict)

    def add(self, rec: dict[str, Any]) -> None:
        kind = rec.get("type")
        if kind == "probe_trigger":
            self.triggers += 1
            if rec.get("queued") == "coalesced":
                self.coalesced += 1
            return
        if kind not in ("probe", "probe_failure"):
            return
        self.probes += 1
        if kind == "probe":
            self.applied += 1
        else:
            self.failures += 1
            if rec.get("stage") == "patch":
                self.rejected += 1
        self.tokens_in += int(rec.get("tokens_in") or 0)
        self.tokens_out += int(rec.get("tokens_out") or 0)
        self.tokens_estimated |= bool(rec.get("tokens_estimated"))
        backend = str(rec.get("backend") or "?")
        self.backends[backend] = self.backends.get(backend, 0) + 1


def session_stats(session_id: str, records: Iterable[dict[str, Any]]) -> SessionStats:
    st = SessionStats(session_id)
    for rec in records:
        st.add(rec)
    return st


@click.command()
@click.option("--session", "-s", "session_id", help="One session (default: all sessions).")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
def stats(session_id: str | None, as_json: bool) -> None:
    """Probes, triggers, tokens and failures per session (from the audit logs)."""
    st = store(settings())
    if session_id:
        if not st.exists(session_id):
            raise click.ClickException(f"no session {session_id!r} under {st.home}")
        ids = [session_id]
    else:
        ids = st.session_ids()
    rows = [session_stats(sid, st.audit(sid).records()) for sid in ids]
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    if not rows:
        click.echo(f"no sessions under {st.home}")
        return
    head = f"{'session':<38} {'triggers':>8} {'probes':>6} {'applied':>7} {'failed':>6} {'rejected':>8} {'tokens in':>10} {'tokens out':>10}  backends"
    click.echo(head)
    total = SessionStats("total")
    for r in rows:
        est = "~" if r.tokens_estimated else ""
        backends = ", ".join(f"{k}×{v}" for k, v in sorted(r.backends.items()))
        click.echo(
            f"{r.session_id[:38]:<38} {r.triggers:>8} {r.probes:>6} {r.applied:>7} {r.failures:>6} "
            f"{r.rejected:>8} {est + str(r.tokens_in):>10} {est + str(r.tokens_out):>10}  {backends}"
        )
        for name in (
            "triggers",
            "coalesced",
            "probes",
            "applied",
            "failures",
            "rejected",
            "tokens_in",
            "tokens_out",
        ):
            setattr(total, name, getattr(total, name) + getattr(r, name))
        total.tokens_estimated |= r.tokens_estimated
    if len(rows) > 1:
        est = "~" if total.tokens_estimated else ""
        click.echo(
            f"{'total':<38} {total.triggers:>8} {total.probes:>6} {total.applied:>7} {total.failures:>6} "
            f"{total.rejected:>8} {est + str(total.tokens_in):>10} {est + str(total.tokens_out):>10}"
        )
    if any(r.tokens_estimated for r in rows):
        click.echo("~ tokens estimated (claude-cli without usage)")


COMMANDS = [stats]
