"""``replay`` and ``eval``: run saved transcripts through the pipeline and measure recovery."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from rolling_graph.cli.tables import emit, format_option

PROBES = ("offline", "anthropic", "claude-cli", "auto")
_paths = click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on stderr when it is a terminal; otherwise one plain line per file
    (logs and CI output stay readable)."""
    if not enabled:
        seen: set[Path] = set()

        def line(path: Path, done: int, total: int) -> None:
            if path not in seen:
                seen.add(path)
                click.echo(f"replaying {path} ({total} hook events)", err=True)

        yield line
        return
    from rich.console import Console
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


def _check_warm(url: str) -> None:
    from rolling_graph.warm import check_url

    try:
        check_url(url, Path("."))
    except ValueError as err:
        raise click.ClickException(f"--warm {url}: {err}") from None


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
@format_option
def replay_cmd(
    paths: tuple[Path, ...],
    probe: str,
    out: Path,
    warm: str | None,
    budget: int | None,
    quiet: bool,
    fmt: str,
) -> None:
    """Replay transcripts (PATH…) as successive sessions through the hook pipeline.

    The format is detected from each file's content: Claude Code, Codex CLI, Gemini CLI,
    Copilot CLI, pi and plain role/content JSONL; Claude Code /export text and aider chat
    histories (replay only: no live hook reads them).
    """
    from rolling_graph.core.textfile import not_a_transcript
    from rolling_graph.eval.replay import Replayer
    from rolling_graph.eval.start_up import start_up

    if warm:
        _check_warm(warm)
    try:
        rp = Replayer(out, probe=probe, budget=budget, warm=warm)
    except Exception as err:  # noqa: BLE001 - bad settings become a clear CLI error
        raise click.ClickException(f"cannot start the replay: {err}") from None
    try:
        rp.start_up_seconds = start_up()  # not in the first file's events per second
    except Exception as err:  # noqa: BLE001 - then the first file pays it, as before
        click.echo(f"start-up not paid apart ({type(err).__name__}: {err})", err=True)
    with rp, _progress(sys.stderr.isatty()) as progress:
        for p in paths:
            why = not_a_transcript(p)
            if why:
                click.echo(f"skipped {p}: {why}", err=True)
                continue
            try:
                rp.replay_file(p, progress=progress)
            except ValueError as err:  # unsupported format: say so, go on with the others
                click.echo(f"skipped {p}: {str(err).removeprefix(f'{p.name}: ')}", err=True)
        doc = rp.finish()
    if not doc["sessions"]:
        raise click.ClickException(
            "nothing replayed: no file held a transcript of Claude Code, Codex, Gemini CLI, "
            "Copilot CLI or pi (JSONL), a Claude Code /export or an aider chat history; "
            "give such a file"
        )
    if not quiet:
        from rolling_graph.cli.replay_tables import summary_table

        emit([summary_table(doc)], fmt)
    if "start_up_seconds" in doc:
        click.echo(
            f"start-up {doc['start_up_seconds']:.1f} s (imports, the language pipeline, compiled "
            "rules), paid once before the first file: in no row's ev/s",
            err=True,
        )
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
@format_option
def eval_cmd(
    paths: tuple[Path, ...],
    out: Path,
    probe: str,
    budget: int | None,
    window: int,
    cut_every: int,
    fmt: str,
) -> None:
    """Measure context recovery at compaction boundaries (and simulated cuts)."""
    from rolling_graph.cli.replay_tables import eval_tables
    from rolling_graph.eval.evaluate import evaluate

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
    emit(eval_tables(doc), fmt)
    click.echo(f"wrote {out / 'eval.json'}", err=True)


COMMANDS = [replay_cmd, eval_cmd]
