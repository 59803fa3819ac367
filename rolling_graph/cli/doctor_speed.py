"""doctor's hook-speed check: the installed hook command against the interpreter floor.

A hook runs on every prompt, so its start-up is the cost a person feels. Runs alternate (so
machine load hits both alike) between ``python -I -S -c pass`` and the hook command with
``--ping``, a whole round trip through the worker that touches no session; the ratio of the
medians is shown against the goal (issue 31: ≤ 1.5×). Informational: a slow machine is not a
broken install, and a worker that does not answer is the worker check's to report.
"""

from __future__ import annotations

import os
import shlex
import statistics
import subprocess
import time

from rolling_graph.cli.doctor_check import Check

RUNS = 11
GOAL = 1.5


def _ms(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    started = time.perf_counter()
    rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=30)
    return (time.perf_counter() - started) * 1000, rc.returncode


def check_hook_speed(runs: int = RUNS) -> Check:
    from rolling_graph.harness.install.claude_code import hook_command

    cmd = shlex.split(hook_command())
    if "-I" not in cmd:
        return Check("hook speed", True, f"not the floor client ({cmd[0]}): not timed")
    env = dict(os.environ)
    floor, hook = [], []
    for _ in range(runs):
        floor.append(_ms([cmd[0], "-I", "-S", "-c", "pass"], env)[0])
        ms, rc = _ms([*cmd, "--ping"], env)
        if rc != 0:
            return Check("hook speed", True, "no worker answered the hook client: not timed")
        hook.append(ms)
    f50, h50 = statistics.median(floor), statistics.median(hook)
    ratio = h50 / f50
    note = "within" if ratio <= GOAL else "above"
    return Check(
        "hook speed",
        True,
        f"hook round trip p50 {h50:.1f} ms = {ratio:.2f}x `python -I -S -c pass` "
        f"({f50:.1f} ms; {runs} runs each, alternating): {note} the {GOAL}x goal",
    )
