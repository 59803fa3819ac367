"""``stats``: probes, triggers, tokens, cost and failures per session (from the audit logs),
per day (from the usage ledger), and whether the paid probe backend is healthy."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import click

from rolling_graph.cli.common import settings, store
from rolling_graph.signals import SessionSignals, session_signals

_SUMMED = (
    "unread",
    "triggers",
    "coalesced",
    "probes",
    "applied",
    "failures",
    "rejected",
    "paid_calls",
    "fallbacks",
    "tokens_in",
    "tokens_out",
    "cost_usd",
)


@dataclass
class SessionStats:
    session_id: str
    triggers: int = 0  # gate firings that asked for a probe
    coalesced: int = 0  # of those, folded into a probe already in flight
    probes: int = 0  # probe runs (applied + failed), paid and offline
    applied: int = 0
    failures: int = 0
    rejected: int = 0  # failures where the engine refused the patch
    paid_calls: int = 0  # calls to the paid backend (anthropic, claude-cli, openai…)
    fallbacks: int = 0  # offline probes run in place of a paid one (failure, backoff, budget)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0  # estimated from list prices (config price_in / price_out)
    tokens_estimated: bool = False
    backends: dict[str, int] = field(default_factory=dict)
    unread: int = 0  # prompts the offline language rules could not read (another language)
    project: str = ""  # the warm-store scope the session flushed to ("" when unknown)
    signals: SessionSignals = field(default_factory=SessionSignals)

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
        self.paid_calls += rec.get("tier") == "paid"
        self.fallbacks += bool(rec.get("fallback"))
        self.tokens_in += int(rec.get("tokens_in") or 0)
        self.tokens_out += int(rec.get("tokens_out") or 0)
        self.cost_usd = round(self.cost_usd + float(rec.get("cost_usd") or 0.0), 6)
        self.tokens_estimated |= bool(rec.get("tokens_estimated"))
        backend = str(rec.get("backend") or "?")
        self.backends[backend] = self.backends.get(backend, 0) + 1
        from rolling_graph.probe.offline.unread import count_in  # lazy: the probe's rules

        self.unread += count_in(str(rec.get("rationale") or ""))


def session_stats(session_id: str, records: Iterable[dict[str, Any]]) -> SessionStats:
    st = SessionStats(session_id)
    recs = list(records)
    for rec in recs:
        st.add(rec)
    st.signals = session_signals(recs)
    return st


def _row(r: SessionStats) -> str:
    est = "~" if r.tokens_estimated else ""
    backends = ", ".join(f"{k}×{v}" for k, v in sorted(r.backends.items()))
    return (
        f"{r.session_id[:38]:<38} {r.triggers:>8} {r.probes:>6} {r.applied:>7} {r.failures:>6} "
        f"{r.rejected:>8} {r.paid_calls:>5} {r.fallbacks:>8} {est + str(r.tokens_in):>10} "
        f"{est + str(r.tokens_out):>10} {r.cost_usd:>8.4f} {r.unread:>6}  {backends}"
    )


def _per_day(home: Any) -> list[str]:
    from rolling_graph.probe.usage import Ledger

    days = Ledger(home).days()
    if not days:
        return []
    lines = [
        "",
        f"{'day (UTC)':<12} {'backend:model':<36} {'calls':>6} {'failed':>6} "
        f"{'tokens in':>10} {'tokens out':>10} {'est. USD':>9}",
    ]
    for day in sorted(days)[-14:]:
        for key, row in sorted(days[day].items()):
            lines.append(
                f"{day:<12} {key[:36]:<36} {row['calls']:>6} {row['failed']:>6} "
                f"{row['tokens_in']:>10} {row['tokens_out']:>10} {row['cost_usd']:>9.4f}"
            )
    return lines


def _turns(values: list[int | None]) -> str:
    """Turns to first injection per restart: "0,2" (— when none followed yet)."""
    return ",".join("—" if v is None else str(v) for v in values) or "-"


def project_rows(rows: list[SessionStats]) -> list[dict[str, Any]]:
    """Signals summed per project, with the warm store's graduation outcomes for each."""
    from datetime import UTC, datetime

    from rolling_graph.signals import graduation_outcomes

    by: dict[str, list[SessionStats]] = {}
    for r in rows:
        by.setdefault(r.project, []).append(r)
    s = settings()
    drafts = _drafts(s, sorted(by))
    out = []
    for project, members in sorted(by.items()):
        turns = [t for r in members for t in r.signals.turns_to_inject]
        outcome = None
        if drafts is not None:
            from rolling_graph.warm.graduation import flat_memory_path

            outcome = graduation_outcomes(
                drafts.get(project, []), flat_memory_path(s), datetime.now(UTC)
            ).as_dict()
        out.append(
            {
                "project": project,
                "sessions": len(members),
                "injections": sum(r.signals.injections for r in members),
                "cross_domain": sum(r.signals.cross_domain for r in members),
                "restarts": sum(r.signals.restarts for r in members),
                "turns_to_inject": turns,
                "graduation": outcome,
            }
        )
    return out


def _drafts(s: Any, scopes: list[str]) -> dict[str, list[Any]] | None:
    """Drafts per scope from the warm store; None when it cannot be opened."""
    from pathlib import Path

    from rolling_graph.warm import open_store
    from rolling_graph.warm.reconcile import store_params

    try:
        with open_store(s.warm or None, Path(s.home), params=store_params(s)) as warm:
            return {sc: warm.list_drafts(scope=sc) for sc in scopes}
    except Exception as err:  # noqa: BLE001 - stats must still print the rest
        click.echo(f"graduation outcomes unavailable: {err}", err=True)
        return None


def _echo_projects(projects: list[dict[str, Any]]) -> None:
    click.echo(
        f"{'project':<24} {'sessions':>8} {'inject':>6} {'x-domain':>8} {'restarts':>8}"
        f"  {'turns→inject':<14} graduation (approved/edited/rejected/pending/deleted≤30d)"
    )
    for p in projects:
        g = p["graduation"]
        grad = (
            "/".join(
                str(g[k]) for k in ("approved", "edited", "rejected", "pending", "deleted_30d")
            )
            if g
            else "unavailable"
        )
        click.echo(
            f"{(p['project'] or '(none)')[:24]:<24} {p['sessions']:>8} {p['injections']:>6} "
            f"{p['cross_domain']:>8} {p['restarts']:>8}  {_turns(p['turns_to_inject']):<14} {grad}"
        )


@click.command()
@click.option("--session", "-s", "session_id", help="One session (default: all sessions).")
@click.option("--days", is_flag=True, help="Only the per-day usage and the paid probe's health.")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@click.option(
    "--by-project",
    is_flag=True,
    help="Validation signals and graduation outcomes per project instead of per session.",
)
def stats(session_id: str | None, days: bool, as_json: bool, by_project: bool) -> None:
    """Probes, triggers, paid calls, tokens, estimated cost and failures per session and per
    day, the paid probe's health, and the validation signals: cross-domain surfacings, turns to
    the first injection after a resume or compaction, and (--by-project) graduation outcomes."""
    from rolling_graph.probe.health import Health
    from rolling_graph.probe.usage import Ledger

    cfg = settings()
    healthy, health = Health.from_settings(cfg).status()
    if days:
        if as_json:
            doc = {"days": Ledger(cfg.home).days(), "health": {"ok": healthy, "detail": health}}
            click.echo(json.dumps(doc, indent=2))
            return
        for line in _per_day(cfg.home) or ["no paid probe calls recorded"]:
            click.echo(line)
        click.echo(f"\npaid probe: {'ok' if healthy else 'FAILING'}: {health}")
        return
    st = store(cfg)
    if session_id:
        if not st.exists(session_id):
            raise click.ClickException(f"no session {session_id!r} under {st.home}")
        ids = [session_id]
    else:
        ids = st.session_ids()
    rows = [session_stats(sid, st.audit(sid).records()) for sid in ids]
    for r in rows:
        r.project = str((st.read_state(r.session_id, "warm", {}) or {}).get("scope") or "")
    if by_project:
        projects = project_rows(rows)
        if as_json:
            click.echo(json.dumps(projects, indent=2))
        elif projects:
            _echo_projects(projects)
        else:
            click.echo(f"no sessions under {st.home}")
        return
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    if not rows:
        click.echo(f"no sessions under {st.home}")
    else:
        click.echo(
            f"{'session':<38} {'triggers':>8} {'probes':>6} {'applied':>7} {'failed':>6} "
            f"{'rejected':>8} {'paid':>5} {'fallback':>8} {'tokens in':>10} {'tokens out':>10} "
            f"{'est. USD':>8} {'unread':>6}  backends"
        )
        total = SessionStats("total")
        for r in rows:
            click.echo(_row(r))
            for name in _SUMMED:
                setattr(total, name, getattr(total, name) + getattr(r, name))
            total.tokens_estimated |= r.tokens_estimated
        if len(rows) > 1:
            click.echo(_row(total))
        if any(r.tokens_estimated for r in rows):
            click.echo("~ tokens estimated (claude-cli without usage)")
    for line in _per_day(cfg.home):
        click.echo(line)
    click.echo(f"\npaid probe: {'ok' if healthy else 'FAILING'}: {health}")
    click.echo(f"\n{'session':<38} {'inject':>6} {'x-domain':>8} {'restarts':>8}  turns→inject")
    for r in rows:
        sg = r.signals
        click.echo(
            f"{r.session_id[:38]:<38} {sg.injections:>6} {sg.cross_domain:>8} {sg.restarts:>8}"
            f"  {_turns(sg.turns_to_inject)}"
        )


COMMANDS = [stats]
