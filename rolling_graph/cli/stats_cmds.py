"""``stats``: probes, triggers, tokens, cost and failures per session (from the audit logs),
per day (from the usage ledger), and whether the paid probe backend is healthy."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import click

from rolling_graph.cli.common import settings, store
from rolling_graph.cli.tables import Column, Table, emit, format_option
from rolling_graph.core.signals import SessionSignals, session_signals

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
    "tokens_cached",
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
    tokens_in: int = 0  # every input token, cached or not
    tokens_cached: int = 0  # of tokens_in: prompt-cache reads (billed at a fraction)
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
        self.tokens_cached += int(rec.get("tokens_cached") or 0)
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


def _tokens(key: str) -> Column:
    return Column(key.replace("_", " "), key, drop=1)


SESSION_COLUMNS = [
    Column("session", "session_id", numeric=False),
    Column("triggers", "triggers", drop=2),
    Column("probes", "probes"),
    Column("applied", "applied", drop=3),
    Column("failed", "failures"),
    Column("rejected", "rejected", drop=4),
    Column("paid", "paid_calls"),
    Column("fallback", "fallbacks", drop=5),
    Column("tokens in", "tokens_in", drop=6),
    Column("cached", "tokens_cached", drop=6),
    Column("tokens out", "tokens_out", drop=6),
    Column("est. USD", "cost_usd", fmt=lambda v: f"{v:.4f}"),
    Column("unread", "unread", drop=5),
    Column("backends", "backends", numeric=False, drop=7),
]
SIGNAL_COLUMNS = [
    Column("session", "session_id", numeric=False),
    Column("inject", "injections"),
    Column("x-domain", "cross_domain"),
    Column("restarts", "restarts"),
    Column("turns→inject", "turns_to_inject", numeric=False, fmt=lambda v: _turns(v)),
]


def _row(r: SessionStats) -> dict[str, Any]:
    est = "~" if r.tokens_estimated else ""
    return {
        **{k: getattr(r, k) for k in ("session_id", *_SUMMED)},
        "tokens_in": est + str(r.tokens_in),
        "tokens_out": est + str(r.tokens_out),
        "backends": ", ".join(f"{k}×{v}" for k, v in sorted(r.backends.items())) or "-",
    }


DAY_COLUMNS = [
    Column("day (UTC)", "day", numeric=False),
    Column("backend:model", "key", numeric=False),  # whole: it names what to look at
    Column("calls", "calls"),
    Column("failed", "failed"),
    Column("tokens in", "tokens_in", drop=1),
    Column("cached", "tokens_cached", drop=1),
    Column("tokens out", "tokens_out", drop=1),
    Column("est. USD", "cost_usd", fmt=lambda v: f"{v:.4f}"),
]


def _per_day(home: Any) -> Table | None:
    """The last 14 days of paid probe usage, per backend and model (None: none recorded)."""
    from rolling_graph.probe.usage import Ledger

    days = Ledger(home).days()
    if not days:
        return None
    rows = [
        {"day": day, "key": key, "tokens_cached": 0, **row}
        for day in sorted(days)[-14:]
        for key, row in sorted(days[day].items())
    ]
    return Table("", DAY_COLUMNS, rows)


def _turns(values: list[int | None]) -> str:
    """Turns to first injection per restart: "0,2" (— when none followed yet)."""
    return ",".join("—" if v is None else str(v) for v in values) or "-"


def project_rows(rows: list[SessionStats]) -> list[dict[str, Any]]:
    """Signals summed per project, with the warm store's graduation outcomes for each."""
    from datetime import UTC, datetime

    from rolling_graph.core.signals import graduation_outcomes

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


def _grad(g: dict[str, Any] | None) -> str:
    keys = ("approved", "edited", "rejected", "pending", "deleted_30d")
    return "/".join(str(g[k]) for k in keys) if g else "unavailable"


PROJECT_COLUMNS = [
    Column("project", "project", numeric=False, fmt=lambda v: v or "(none)"),  # whole: copyable
    Column("sessions", "sessions"),
    Column("inject", "injections"),
    Column("x-domain", "cross_domain", drop=1),
    Column("restarts", "restarts", drop=2),
    Column("turns→inject", "turns_to_inject", numeric=False, drop=3, fmt=_turns),
    Column("graduation a/e/r/p/d≤30d", "graduation", fmt=_grad),
]


def _echo_projects(projects: list[dict[str, Any]], fmt: str) -> None:
    emit([Table("", PROJECT_COLUMNS, projects)], fmt)


@click.command()
@click.option("--session", "-s", "session_id", help="One session (default: all sessions).")
@click.option("--days", is_flag=True, help="Only the per-day usage and the paid probe's health.")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@click.option(
    "--by-project",
    is_flag=True,
    help="Validation signals and graduation outcomes per project instead of per session.",
)
@format_option
def stats(session_id: str | None, days: bool, as_json: bool, by_project: bool, fmt: str) -> None:
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
        table = _per_day(cfg.home)
        if table is None:
            click.echo("no paid probe calls recorded")
        else:
            emit([table], fmt)
        click.echo(f"\npaid probe: {'ok' if healthy else 'FAILING'}: {health}")
        return
    from rolling_graph.warm.reconcile import session_state

    st = store(cfg)
    if session_id:
        if not st.exists(session_id):
            raise click.ClickException(f"no session {session_id!r} under {st.home}")
        ids = [session_id]
    else:
        ids = st.session_ids()
    rows = [session_stats(sid, st.audit(sid).records()) for sid in ids]
    for r in rows:
        r.project = str(session_state(st, r.session_id).get("scope") or "")
    if by_project:
        projects = project_rows(rows)
        if as_json:
            click.echo(json.dumps(projects, indent=2))
        elif projects:
            _echo_projects(projects, fmt)
        else:
            click.echo(f"no sessions under {st.home}")
        return
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    if not rows:
        click.echo(f"no sessions under {st.home}")
    else:
        total = SessionStats("total")
        for r in rows:
            for name in _SUMMED:
                setattr(total, name, getattr(total, name) + getattr(r, name))
            total.tokens_estimated |= r.tokens_estimated
        table_rows = [_row(r) for r in rows] + ([_row(total)] if len(rows) > 1 else [])
        emit([Table("", SESSION_COLUMNS, table_rows, footer=int(len(rows) > 1))], fmt)
        if any(r.tokens_estimated for r in rows):
            click.echo("~ tokens estimated (claude-cli without usage)")
    table = _per_day(cfg.home)
    if table is not None:
        click.echo("")
        emit([table], fmt)
    click.echo(f"\npaid probe: {'ok' if healthy else 'FAILING'}: {health}")
    click.echo("")
    signals = [{"session_id": r.session_id, **asdict(r.signals)} for r in rows]
    emit([Table("", SIGNAL_COLUMNS, signals)], fmt)


COMMANDS = [stats]
