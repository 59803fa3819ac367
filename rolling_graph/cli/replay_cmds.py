"""``replay`` and ``eval``: run saved transcripts through the pipeline and measure recovery."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

PROBES = ("offline", "anthropic", "claude-cli", "auto")
_paths = click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on stderr when it is a terminal; otherwise no display at all
    (logs and CI output stay clean)."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as prog:
        tasks: dict[Path, Any] = {}

        def update(path: Path, done: int, total: int) -> None:
            if path not in tasks:
                tasks[path] = prog.add_task(path.name[:40], total=total)
            prog.update(tasks[path], completed=done, total=total)

        yield update


def summary_table(doc: dict[str, Any]) -> Table:
    t = Table(title="replay summary", show_lines=False)
    for col in ("file", "user turns", "tool steps", "probes", "probes/60", "injections"):
        t.add_column(col, justify="left" if col == "file" else "right")
    for col in ("inj tok max", "nodes", "edges", "rejected", "unread", "ev/s"):
        t.add_column(col, justify="right")
    rows = [*doc["sessions"], doc["overall"]]
    for i, s in enumerate(rows):
        t.add_row(
            s["file"] if i < len(rows) - 1 else f"[bold]all ({s['file']})",
            str(s["user_turns"]),
            str(s["tool_steps"]),
            str(s["probes"]),
            f"{s['probe_rate_per_60']:.1f}",
            str(s["injections"]),
            str(s["injected_tokens_max"]),
            str(s["nodes"]),
            str(s["edges"]),
            str(s["rejected_patches"]),
            str(s.get("unread_prompts", 0)),
            f"{s['events_per_second']:.0f}",
            end_section=i == len(rows) - 2,
        )
    return t


@click.command("replay")
@_paths
@click.option(
    "--probe",
    type=click.Choice(PROBES),
    default="offline",
    show_default=True,
    help="Probe backend (offline: deterministic, no network).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("replay-out"),
    show_default=True,
    help="Output directory: trace.jsonl, summary.json, graphs/ (its store/ is wiped).",
)
@click.option("--warm", default=None, help="Warm store URL (default: SQLite inside --out).")
@click.option("--budget", type=click.IntRange(100, 2500), default=None, help="Render budget.")
@click.option("--quiet", "-q", is_flag=True, help="No summary table.")
def replay_cmd(
    paths: tuple[Path, ...],
    probe: str,
    out: Path,
    warm: str | None,
    budget: int | None,
    quiet: bool,
) -> None:
    """Replay transcripts (PATH…) as successive sessions through the hook pipeline."""
    from rolling_graph.replay import Replayer

    try:
        rp = Replayer(out, probe=probe, budget=budget, warm=warm)
    except Exception as err:  # noqa: BLE001 - bad settings become a clear CLI error
        raise click.ClickException(f"cannot start the replay: {err}") from None
    with rp, _progress(sys.stderr.isatty()) as progress:
        for p in paths:
            try:
                rp.replay_file(p, progress=progress)
            except ValueError as err:  # unsupported format: say so, go on with the others
                click.echo(f"skipped {p}: {err}", err=True)
        doc = rp.finish()
    if not quiet:
        Console().print(summary_table(doc))
    click.echo(f"wrote {out / 'trace.jsonl'}, {out / 'summary.json'}, {out / 'graphs'}/", err=True)


@click.command("eval")
@_paths
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("eval-out"),
    show_default=True,
    help="Output directory: eval.json plus the replay's own outputs.",
)
@click.option("--probe", type=click.Choice(PROBES), default="offline", show_default=True)
@click.option("--budget", type=click.IntRange(100, 2500), default=None, help="Render budget.")
@click.option("--window", type=int, default=40, show_default=True, help="Events after a cut.")
@click.option("--cut-every", type=int, default=10, show_default=True, help="Simulated cuts.")
def eval_cmd(
    paths: tuple[Path, ...],
    out: Path,
    probe: str,
    budget: int | None,
    window: int,
    cut_every: int,
) -> None:
    """Measure context recovery at compaction boundaries (and simulated cuts)."""
    from rolling_graph.evaluate import evaluate, results_table

    with _progress(sys.stderr.isatty()) as progress:
        doc = evaluate(
            list(paths),
            out,
            probe=probe,
            budget=budget,
            window=window,
            cut_every=cut_every,
            progress=progress,
        )
    console = Console()
    for table in results_table(doc):
        console.print(table)
    click.echo(f"wrote {out / 'eval.json'}", err=True)


COMMANDS = [replay_cmd, eval_cmd]
