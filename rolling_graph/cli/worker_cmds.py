"""``rolling-graph worker start|stop|status``: manage the per-user worker."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import click

from rolling_graph.transport.client import pid_alive, spawn_worker
from rolling_graph.transport.protocol import (
    SocketDirError,
    WorkerUnavailable,
    check_socket_dir,
    request,
    worker_files,
)


def _ask(op: str, timeout: float = 2.0) -> dict[str, Any] | None:
    try:
        return request(op, deadline=time.monotonic() + timeout, sock_path=worker_files()["socket"])
    except WorkerUnavailable:
        return None


def _human_bytes(n: int | None) -> str:
    if n is None:
        return "unknown"
    return f"{n / (1024 * 1024):.1f} MiB"


def _ms_line(ms: dict[str, Any] | None, what: str = "answered") -> str:
    if not ms:
        return "none yet"
    return f"{ms['n']} recent, {what} in p50 {ms['p50']:.1f} ms, p95 {ms['p95']:.1f} ms"


def _print_status(st: dict[str, Any]) -> None:
    started = datetime.fromtimestamp(float(st.get("started") or 0), UTC)
    probes = st.get("probes")
    probe_line = (
        f"{probes['queued']} queued, {probes['in_flight']} in flight"
        if isinstance(probes, dict)
        else "no probe runner loaded"
    )
    state = "ready" if st.get("ready") else "loading"
    if st.get("engine_error"):
        state = f"engine failed: {st['engine_error']}"
    lines = [
        f"worker    pid {st.get('pid')}, version {st.get('version')} (protocol {st.get('protocol')}), {state}",
        f"uptime    {st.get('uptime_s')} s (since {started:%Y-%m-%d %H:%M:%S} UTC)",
        f"sessions  {st.get('sessions')} open"
        + (f": {', '.join(st.get('session_ids') or [])}" if st.get("session_ids") else ""),
        f"probes    {probe_line}",
        f"requests  {st.get('served')} served, {st.get('connections')} open",
        f"memory    {_human_bytes(st.get('rss_bytes'))} resident",
        f"hooks     {_ms_line(st.get('hook_ms'))} (worker side)",
        # Prompts and tool calls are answered first and handled after (transport.reply_first).
        f"handling  {_ms_line(st.get('handle_ms'), 'handled')}, {st.get('behind', 0)} behind",
        f"idle      {st.get('idle_for_s')} s of {st.get('idle_s')} s before exiting",
        f"socket    {st.get('socket')}",
    ]
    from rolling_graph.transport.health import problems

    for what, fix in problems(st):
        lines += [f"PROBLEM   {what}", f"  fix:    {fix}"]
    click.echo("\n".join(lines))


def _check_dir() -> None:
    try:
        check_socket_dir(worker_files()["dir"])
    except SocketDirError as err:
        raise click.ClickException(str(err)) from None


@click.group()
def worker() -> None:
    """The per-user worker that answers hook calls (started on demand, exits when idle)."""


@worker.command()
@click.option(
    "--wait", "wait_s", default=60.0, show_default=True, help="Seconds to wait until ready."
)
@click.option("--foreground", is_flag=True, help="Run in this process (logs go to the log file).")
def start(wait_s: float, foreground: bool) -> None:
    """Start the worker (no-op if one is running) and wait until it is ready."""
    _check_dir()
    if foreground:
        from rolling_graph.transport.server import serve

        raise SystemExit(serve())
    if _ask("ping") is None:
        spawn_worker(force=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        st = _ask("status")
        if st and st.get("ready"):
            _print_status(st)
            return
        time.sleep(0.1)
    raise click.ClickException(
        f"the worker did not become ready within {wait_s:g} s; see the log file"
    )


@worker.command()
@click.option("--wait", "wait_s", default=30.0, show_default=True, help="Seconds to wait for exit.")
def stop(wait_s: float) -> None:
    """Ask the worker to finish its work and exit."""
    reply = _ask("stop")
    if reply is None:
        click.echo("no worker running")
        return
    pid = int(reply.get("pid") or 0)
    deadline = time.monotonic() + wait_s
    while pid and pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid and pid_alive(pid):
        raise click.ClickException(f"worker {pid} is still running after {wait_s:g} s")
    click.echo(f"worker {pid} stopped")


@worker.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status(as_json: bool) -> None:
    """Show pid, version, uptime, sessions, probes and memory of the running worker."""
    st = _ask("status")
    if st is None:
        if as_json:
            click.echo(json.dumps({"running": False, "socket": worker_files()["socket"]}))
        else:
            click.echo(f"no worker running (socket {worker_files()['socket']})")
        raise SystemExit(1)
    if as_json:
        click.echo(json.dumps({"running": True, **st}, indent=2))
    else:
        _print_status(st)


COMMANDS = [worker]
