"""``rolling-graph doctor``: check a person's setup and say what to fix.

Checks, in order (each prints ``ok`` or ``FAIL`` with a ``fix:`` line):

1. config      — the settings load (environment + config file);
2. hooks       — our hook entries sit in a settings file Claude Code reads (user, project or
                 local scope) for every event we need, and the command they run exists; and
                 the same for Codex CLI (each hook also trusted in config.toml, else Codex
                 skips it), Gemini CLI (timeouts in ms) and Copilot CLI; one complete
                 installation anywhere is enough, a broken one anywhere fails the check;
3. data dir    — the data directory exists (or can be created) and is writable;
4. warm store  — the warm store the settings name can be opened;
5. probe       — the probe backend that will actually run is usable (offline: the spaCy
                 pipeline loads; anthropic: key set and SDK importable; claude-cli: on PATH);
6. worker      — the per-user worker answers (started on demand unless ``--no-start``, as
                 the first hook would start it);
7. hook speed  — the installed hook command's round trip against ``python -I -S -c pass``
                 (the ratio of medians; informational, rolling_graph/cli/doctor_speed.py);
8. mcp         — where ``rolling-graph mcp`` is registered, and that it starts and lists its
                 tools (not registered is fine: it is optional).

The exit status is 1 when any check failed, else 0.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from rolling_graph.cli.doctor_check import Check
from rolling_graph.cli.doctor_probe import check_probe, check_probe_health

# ---------------------------------------------------------------------------------------------
# The checks (each returns one Check; none raises)
# ---------------------------------------------------------------------------------------------


def check_config() -> tuple[Check, Any]:
    from rolling_graph.config import load_settings
    from rolling_graph.paths import config_file

    path = config_file()
    try:
        settings = load_settings()
    except Exception as err:  # noqa: BLE001 - pydantic / TOML errors alike
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return (
            Check(
                "config",
                False,
                f"settings do not load: {first}",
                f"correct {path} or the ROLLING_GRAPH_* environment variables",
            ),
            None,
        )
    where = str(path) if path.exists() else f"{path} (absent: defaults and environment)"
    return Check("config", True, where), settings


PATH_FIX = (
    "put rolling-graph on PATH here (activate its environment, or pipx install rolling-graph): "
    "the project's hooks run it by name"
)


def _hook_executable(command: str) -> str | None:
    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    return parts[0] if parts else None


def _hook_script(command: str) -> str | None:
    """The script a ``python -I -S <script>`` hook command runs by path, if it is one."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    scripts = [p for p in parts[1:] if p.endswith(".py")]
    return scripts[-1] if scripts and "-I" in parts else None


def check_hooks(project: Path, home: Path | None = None) -> Check:
    """Our entries in the user, project and local settings files Claude Code reads."""
    from rolling_graph.harness.install import claude_code as inst

    fix_install = (
        f"rolling-graph install claude-code --scope user (or --scope project, run in {project})"
    )
    found: list[str] = []
    problems: list[str] = []
    fixes: list[str] = []
    complete = False
    for scope in inst.SCOPES:
        path = inst.settings_path(scope, cwd=project, home=home)
        if not path.exists():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError) as err:
            problems.append(f"{scope}: {path} is unreadable ({err})")
            fixes.append(f"repair the JSON in {path}")
            continue
        events = inst.installed(path)
        if not events:
            continue
        missing = sorted(set(inst.EVENTS) - set(events))
        hooks = data.get("hooks") if isinstance(data, dict) else None
        commands = {
            h["command"]
            for groups in (hooks or {}).values()
            if isinstance(groups, list)
            for g in groups
            if isinstance(g, dict)
            for h in g.get("hooks") or []
            if inst.is_ours(h)
        }
        broken = []
        for cmd in sorted(commands):
            exe = _hook_executable(cmd)
            runnable = bool(exe) and (
                (os.path.isfile(exe) and os.access(exe, os.X_OK)) or bool(shutil.which(exe))
            )
            script = _hook_script(cmd)
            if not runnable:
                broken.append(exe or cmd)
            elif script and not os.path.isfile(script):
                broken.append(script)  # python is there, the package moved or went
        if broken:
            problems.append(f"{scope}: {path} runs a missing program: {', '.join(broken)}")
            bare = any(Path(b).name == b for b in broken)
            fixes.append(
                PATH_FIX
                if bare
                else f"reinstall: rolling-graph install claude-code --scope {scope}"
            )
        if missing:
            problems.append(f"{scope}: {path} lacks {', '.join(missing)}")
            fixes.append(f"rolling-graph install claude-code --scope {scope}")
        if not missing and not broken:
            complete = True
        found.append(f"{scope} ({path}, {len(events)} events)")
    complete = _other_harnesses(project, home, found, problems, fixes) or complete
    if problems:
        return Check("hooks", False, "; ".join(problems), "; ".join(dict.fromkeys(fixes)))
    if not complete:
        return Check(
            "hooks",
            False,
            "no rolling-graph hooks in the settings of Claude Code, Codex, Gemini CLI or "
            "Copilot CLI",
            fix_install + "; or rolling-graph install codex|gemini|copilot",
        )
    detail = "installed in " + ", ".join(found)
    if len(found) > 1:
        detail += " (several scopes: each event runs our hook once per scope)"
    return Check("hooks", True, detail)


def _other_harnesses(
    project: Path, home: Path | None, found: list[str], problems: list[str], fixes: list[str]
) -> bool:
    """Codex, Gemini CLI, Copilot CLI: hooks present (every event), trusted (Codex), timeouts
    in the right unit (Gemini). True when one of them is installed without problems."""
    from rolling_graph.harness.install.registry import HARNESSES

    complete = False
    for h in HARNESSES.values():
        for scope in h.scopes:
            path = h.path(scope, project, home)
            events, issues = h.status(path, home)
            if not events and not issues:
                continue
            issues = issues + [f"{path} runs a missing program: {p}" for p in _unrunnable(path)]
            problems.extend(f"{h.name} {scope}: {issue}" for issue in issues)
            if any("unreadable" in issue for issue in issues):
                fixes.append(f"repair {path} where the error says (or move it aside)")
            elif any("missing program: rolling-graph" in issue for issue in issues):
                fixes.append(PATH_FIX)
            elif issues:
                fixes.append(f"rolling-graph install {h.name} --scope {scope}")
            else:
                complete = True
                found.append(
                    f"{h.name} {scope} ({path}, {len(events)} events, timeouts in {h.unit})"
                )
    return complete


def _runnable(exe: str | None) -> bool:
    return bool(exe) and (
        (os.path.isfile(str(exe)) and os.access(str(exe), os.X_OK)) or bool(shutil.which(str(exe)))
    )


def _unrunnable(path: Path) -> list[str]:
    """The programs our hook commands in ``path`` name that do not run on this machine (a
    project's bare ``rolling-graph`` must resolve on PATH here too)."""
    import re

    from rolling_graph.harness.install.claude_code import is_ours

    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    commands = {
        json.loads(f'"{m}"')
        for m in re.findall(r'"(?:command|bash)"\s*:\s*"((?:\\.|[^"\\])*)"', text)
    }
    exes = {_hook_executable(c) for c in commands if is_ours({"command": c})}
    return sorted(str(e) for e in exes if not _runnable(e))


def check_data_dir(home: Path) -> Check:
    fix = f"make {home} a writable directory, or point ROLLING_GRAPH_HOME elsewhere"
    try:
        from rolling_graph.paths import private_dir

        private_dir(home)  # 0700: sessions, audit logs and the warm store are the person's
    except OSError as err:
        return Check("data dir", False, f"{home} cannot be created: {err}", fix)
    if not home.is_dir():
        return Check("data dir", False, f"{home} is not a directory", fix)
    try:
        # Why a real write: os.access says nothing about read-only mounts, full disks or ACLs.
        fd, tmp = tempfile.mkstemp(prefix=".doctor-", dir=home)
        try:
            os.write(fd, b"ok")
        finally:
            os.close(fd)
            os.unlink(tmp)
    except OSError as err:
        return Check("data dir", False, f"{home} is not writable: {err}", fix)
    mode = home.stat().st_mode & 0o777
    if mode & 0o077:
        return Check(
            "data dir", False, f"{home} is mode {mode:04o}: others can read it", f"chmod 700 {home}"
        )
    return Check("data dir", True, f"{home} (writable, private)")


def check_warm(settings: Any) -> Check:
    url = (getattr(settings, "warm", "") or "").strip()
    home = Path(settings.home)
    shown = url or f"SQLite in {home}"
    if "@" in shown and "://" in shown:  # never print a password from a DSN
        scheme, rest = shown.split("://", 1)
        shown = f"{scheme}://…@{rest.rsplit('@', 1)[1]}"
    try:
        from rolling_graph.warm import open_store
    except ImportError as err:
        return Check("warm store", False, f"warm store code unavailable: {err}", "reinstall")
    fix = (
        "set warm = ... (config) or ROLLING_GRAPH_WARM to a reachable store: "
        "empty for SQLite in the data dir, sqlite:///path, or postgresql://…"
    )
    try:
        # migrate=False: a diagnosis must not change the store; tables appear on first use.
        store = open_store(url or None, home, migrate=False)
    except ValueError as err:
        return Check("warm store", False, f"{shown}: {err}", fix)
    except Exception as err:  # noqa: BLE001 - WarmStoreUnavailable and driver errors alike
        return Check("warm store", False, f"{shown}: {err}", fix)
    from rolling_graph.warm.identity import is_postgres_url, own_scope, person_for

    person = person_for(url, getattr(settings, "person", "") or "")
    try:
        version = store.schema_version()
        enforced_role = _enforced_role(store) if is_postgres_url(url) and version else None
    except Exception as err:  # noqa: BLE001
        return Check("warm store", False, f"{shown}: opened but unreadable: {err}", fix)
    finally:
        with contextlib.suppress(Exception):
            store.close()
    if enforced_role is not None and enforced_role != person:
        return Check(
            "warm store",
            False,
            f"{shown}: person {person!r} is not your database role {enforced_role!r}, and this"
            " team server only lets a role write its own scope: your personal flushes would wait"
            " in the outbox",
            "leave person blank (or set it to your role)",
        )
    state = f"schema v{version}" if version else "empty (created on first use)"
    mine = own_scope(url, person)
    who = f"; person {person}" + (f", own scope {mine}" if mine else "")
    return Check("warm store", True, f"{shown}: {state}{who}")


def _enforced_role(store: Any) -> str | None:
    """The connected role when row-level security binds it (a teammate, not the owner)."""
    row = store.select(
        "SELECT current_user::text, c.relrowsecurity AND pg_get_userbyid(c.relowner) <> current_user"
        " AND NOT r.rolsuper AND NOT r.rolbypassrls"
        " FROM pg_class c, pg_roles r WHERE c.oid = to_regclass('rg_nodes')"
        " AND r.rolname = current_user"
    )
    return str(row[0][0]) if row and row[0][1] else None


def check_worker(start: bool, wait_s: float) -> Check:
    from rolling_graph.transport.client import spawn_worker
    from rolling_graph.transport.protocol import (
        SocketDirError,
        WorkerUnavailable,
        check_socket_dir,
        request,
        worker_files,
    )

    files = worker_files()
    try:
        check_socket_dir(files["dir"])
    except (SocketDirError, OSError) as err:
        return Check(
            "worker", False, str(err), "fix the socket directory or set ROLLING_GRAPH_SOCKET_DIR"
        )

    def status() -> dict[str, Any] | None:
        try:
            return request("status", deadline=time.monotonic() + 2.0, sock_path=files["socket"])
        except WorkerUnavailable:
            return None

    st = status()
    started = False
    if st is None:
        if not start:
            return Check(
                "worker",
                True,
                f"not running (the first hook starts it; socket {files['socket']})",
            )
        spawn_worker(files, force=True)
        started = True
    deadline = time.monotonic() + wait_s
    while (st is None or not st.get("ready")) and time.monotonic() < deadline:
        if st is not None and st.get("engine_error"):
            break
        time.sleep(0.1)
        st = status()
    from rolling_graph.paths import log_file

    if st is None or not st.get("ready"):
        why = f"no ready worker within {wait_s:g} s"
        return Check(
            "worker",
            False,
            f"{why} (socket {files['socket']})",
            f"see {log_file()}; try: rolling-graph worker start",
        )
    from rolling_graph.transport.health import problems

    found = problems(st)
    if found:
        return Check(
            "worker",
            False,
            f"pid {st.get('pid')}: " + "; ".join(w for w, _ in found),
            "; ".join(f for _, f in found),
        )
    how = "started by doctor, " if started else ""
    return Check(
        "worker",
        True,
        f"{how}pid {st.get('pid')}, version {st.get('version')}, ready (socket {files['socket']})",
    )


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------


def check_mcp(project: Path) -> Check:
    from rolling_graph.cli.mcp_cmds import check_mcp as check

    result: Check = check(project)
    return result


def _hook_speed() -> Check:
    from rolling_graph.cli.doctor_speed import check_hook_speed

    return check_hook_speed()


def run_checks(
    project: Path, start_worker: bool = True, worker_wait_s: float = 30.0
) -> list[Check]:
    config, settings = check_config()
    checks = [config, check_hooks(project)]
    later: list[tuple[str, Callable[[], Check]]] = []
    if settings is not None:  # these cannot be judged without settings; the worker can
        later = [
            ("data dir", lambda: check_data_dir(Path(settings.home))),
            ("warm store", lambda: check_warm(settings)),
            ("probe", lambda: check_probe(settings)),
            ("probe health", lambda: check_probe_health(settings)),
        ]
    later.append(("worker", lambda: check_worker(start_worker, worker_wait_s)))
    later.append(("hook speed", _hook_speed))
    if settings is not None:
        later.append(("mcp", lambda: check_mcp(project)))
    for name, fn in later:
        try:
            checks.append(fn())
        except Exception as err:  # noqa: BLE001 - one broken check must not hide the others
            checks.append(Check(name, False, f"the check crashed: {err!r}", "report this bug"))
    return checks


@click.command("doctor")
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Project whose .claude/settings*.json to check (default: the current directory).",
)
@click.option("--no-start", is_flag=True, help="Do not start the worker when none is running.")
@click.option(
    "--worker-wait", default=30.0, show_default=True, help="Seconds to wait for the worker."
)
def doctor(project: Path | None, no_start: bool, worker_wait: float) -> None:
    """Check hooks, worker, data directory, warm store and probe backend; say what to fix."""
    checks = run_checks(project or Path.cwd(), not no_start, worker_wait)
    width = max(len(c.name) for c in checks)
    for c in checks:
        mark = "ok  " if c.ok else "FAIL"
        detail = " ".join(c.detail.split())  # driver errors come on several lines
        click.echo(f"{mark}  {c.name:<{width}}  {detail}")
        if not c.ok and c.fix:
            click.echo(f"      {'':<{width}}  fix: {c.fix}")
    failed = [c.name for c in checks if not c.ok]
    if failed:
        click.echo(f"\n{len(failed)} problem(s): {', '.join(failed)}")
        raise SystemExit(1)
    click.echo("\nall checks passed")


COMMANDS = [doctor]
