"""One line of ``rolling-graph doctor``'s report: a check's name, outcome, detail and fix.

Its own module so that every check (doctor's, the probe's, the MCP command's) can build one
without importing the doctor command."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
